"""skimage.registration.phase_cross_correlation (0.26) over xp: the cross-power spectrum by the engine's FFT
(scipy.fft on the CPU threads, cuFFT for CuPy; real images by half spectra), the peak refined by scikit-image's
matrix-multiply DFT around it, the periodic shift disambiguated in real space by ndimg.ndimage.shift; masks go
to the masked normalized cross-correlation (_masked_phase_cross_correlation).

Tolerance against scikit-image: the same shift; error and phasediff to float rounding (rfftn/irfftn round
differently from its complex transforms). A negative real correlation peak gives phasediff +pi here where
scikit-image gives +-pi by the sign of its rounding noise in the imaginary part."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from .._blocks import blockable, blockwise
from .._engine import engine_aware, xp_of
from .._fft import fft_of
from ..morphology._footprints import warn_user
from ..ndimage import shift as ndi_shift
from ._masked_phase_cross_correlation import _masked_phase_cross_correlation


def _spectrum_input(image, xp):
    """What the engine's fftn takes: scipy.fft computes integers and bools in float64, float16 in float32;
    cuFFT is given those types explicitly."""
    if xp is np or image.dtype.kind in "fc" and image.dtype != np.float16:
        return image
    return image.astype(np.float32 if image.dtype == np.float16 else np.float64)


def _dft_kernel(n_items, ups_size, ax_offset, upsample_factor, dtype):
    """The (ups_size, n_items) matrix of the upsampled DFT along one axis, in scikit-image's arithmetic (made
    on the host: it is small)."""
    kernel = (np.arange(ups_size) - ax_offset)[:, None] * np.fft.fftfreq(n_items, upsample_factor)
    return np.exp(-1j * 2 * np.pi * kernel).astype(dtype, copy=False)


def _check_region(shape, upsampled_region_size, axis_offsets):
    """(length, region size, offset) of each axis of data of `shape`, scikit-image's checks."""
    if not hasattr(upsampled_region_size, "__iter__"):
        upsampled_region_size = [upsampled_region_size] * len(shape)
    elif len(upsampled_region_size) != len(shape):
        raise ValueError("shape of upsampled region sizes must be equal to input data's number of dimensions.")
    if axis_offsets is None:
        axis_offsets = [0] * len(shape)
    elif len(axis_offsets) != len(shape):
        raise ValueError("number of axis offsets must be equal to input data's number of dimensions.")
    return list(zip(shape, upsampled_region_size, axis_offsets))


def _upsampled_dft(data, upsampled_region_size, upsample_factor=1, axis_offsets=None):
    """The DFT of `data` zero-padded `upsample_factor` times, only on a region of `upsampled_region_size`
    samples from `axis_offsets`, by one matrix product per axis (the last axis first)."""
    xp = xp_of(data)
    for n_items, ups_size, ax_offset in _check_region(data.shape, upsampled_region_size, axis_offsets)[::-1]:
        data = xp.tensordot(xp.asarray(_dft_kernel(n_items, ups_size, ax_offset, upsample_factor, data.dtype)),
                            data, axes=(1, -1))
    return data


def _upsampled_correlation(half, n_last, upsampled_region_size, upsample_factor, axis_offsets):
    """conj(_upsampled_dft(conj(P))) of the full Hermitian spectrum P whose rfftn half (last axis) is `half`,
    without forming P: along the last axis, column k >= h of conj(P) is P's half at the mirrored index
    (-j, n - k), so the product over all n columns is one product over the half's columns as they are and
    one over them as mirrors, whose rows are then mirrored (j -> -j) on the small result."""
    xp = xp_of(half)
    h = half.shape[-1]
    dims = _check_region(half.shape[:-1] + (n_last,), upsampled_region_size, axis_offsets)
    kernel = _dft_kernel(n_last, dims[-1][1], dims[-1][2], upsample_factor, half.dtype)
    mirrored = np.zeros((kernel.shape[0], h), kernel.dtype)
    mirrored[:, 1:n_last - h + 1] = kernel[:, :h - 1:-1]   # column m stands for column n - m
    # both in one matrix product: the half is read once
    both = xp.tensordot(xp.asarray(np.concatenate([np.conj(kernel[:, :h]), mirrored])), half, axes=(1, -1))
    direct, mirror = both[:kernel.shape[0]].conj(), both[kernel.shape[0]:]
    for ax in range(1, mirror.ndim):
        mirror = xp.roll(xp.flip(mirror, axis=ax), 1, axis=ax)
    data = direct + mirror
    for n_items, ups_size, ax_offset in dims[:-1][::-1]:
        data = xp.tensordot(xp.asarray(_dft_kernel(n_items, ups_size, ax_offset, upsample_factor, data.dtype)),
                            data, axes=(1, -1))
    return data.conj()


def _compute_phasediff(cross_correlation_max):
    return np.arctan2(cross_correlation_max.imag, cross_correlation_max.real)


def _compute_error(cross_correlation_max, src_amp, target_amp):
    """The translation-invariant normalized RMS error (scikit-image's warning where an image is empty)."""
    amp = src_amp * target_amp
    if amp == 0:
        warn_user("Could not determine RMS error between images with the normalized average intensities "
                  f"{src_amp!r} and {target_amp!r}. Either the reference or moving image may be empty.", UserWarning)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = 1.0 - cross_correlation_max * cross_correlation_max.conj() / amp
    return np.sqrt(np.abs(error))


def _disambiguate_shift(reference_image, moving_image, shift):
    """Of the 2**ndim shifts equal modulo the image shape, the one whose overlap correlates best: the moving
    image shifted with 'grid-wrap' once, its quadrants correlated with the reference's in turn."""
    xp = xp_of(reference_image)
    shape = reference_image.shape
    positive_shift = [shift_i % s for shift_i, s in zip(shift, shape)]
    negative_shift = [shift_i - s for shift_i, s in zip(positive_shift, shape)]
    subpixel = np.any(np.array(shift) % 1 != 0)
    shifted = ndi_shift(moving_image, shift, mode="grid-wrap", order=3 if subpixel else 0)
    indices = np.round(positive_shift).astype(int)
    max_corr = -1.0
    max_slice = None
    for test_slice in itertools.product(*[(slice(0, i), slice(i, None)) for i in indices]):
        reference_tile = xp.reshape(reference_image[test_slice], -1)
        moving_tile = xp.reshape(shifted[test_slice], -1)
        corr = -1.0
        if reference_tile.size > 2:
            # a constant tile: corrcoef warns and gives NaN, which never wins
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.filterwarnings("ignore", category=RuntimeWarning)
                corr = xp.corrcoef(reference_tile, moving_tile)[0, 1]
            if xp is not np:   # a NumPy scalar: complex tiles (space='fourier') compare as NumPy's do
                corr = corr.get()[()]
        if corr > max_corr:
            max_corr = corr
            max_slice = test_slice
    if max_slice is None:
        warn_user(f"Could not determine real-space shift for periodic shift {shift!r} as requested by "
                  "`disambiguate=True` (disambiguation is degenerate).", UserWarning)
        return shift
    return np.array([pos if sl.stop is None else neg
                     for sl, pos, neg in zip(max_slice, positive_shift, negative_shift)])


def _cross_power(src_freq, target_freq, normalization, xp):
    """src * conj(target), divided by its magnitude (at least 100 eps) for 'phase': on the CPU threads in
    cache-sized blocks (one sweep instead of four), whole on CuPy."""
    if normalization not in ("phase", None):
        raise ValueError("normalization must be either phase or None")
    if not blockable(src_freq, target_freq):
        image_product = src_freq * target_freq.conj()
        if normalization == "phase":
            image_product /= xp.maximum(xp.abs(image_product), 100 * np.finfo(image_product.real.dtype).eps)
        return image_product
    image_product = np.empty(src_freq.shape, np.result_type(src_freq, target_freq))
    eps = 100 * np.finfo(image_product.real.dtype).eps

    def block(p, s, t):
        np.multiply(s, t.conj(), out=p)
        if normalization == "phase":
            p /= np.maximum(np.abs(p), eps)

    blockwise(block, image_product, src_freq, target_freq)
    return image_product


def _energy(freq, xp):
    """sum(|freq|**2) in freq's real type, as scikit-image sums np.real(freq * conj(freq))."""
    return xp.sum(xp.real(freq * freq.conj()))


def _half_energy(half, n_last, xp):
    """_energy of the full spectrum of a real signal from its rfftn half: every column but 0 (and n/2 for
    even n) stands for its mirror too."""
    e = 2 * _energy(half, xp) - _energy(half[..., 0], xp)
    if n_last % 2 == 0 and n_last > 1:
        e -= _energy(half[..., -1], xp)
    return e


def _peak(cross_correlation, xp):
    """The index tuple of the largest magnitude (the first of equals, as np.argmax)."""
    flat = int(xp.argmax(xp.abs(cross_correlation)))
    return np.unravel_index(flat, cross_correlation.shape)


@engine_aware("reference_image", "moving_image", "reference_mask", "moving_mask")
def phase_cross_correlation(reference_image, moving_image, *, upsample_factor=1, space="real", disambiguate=False,
                            reference_mask=None, moving_mask=None, overlap_ratio=0.3, normalization="phase"):
    """Subpixel translation between two images by (phase) cross-correlation
    (skimage.registration.phase_cross_correlation): returns (shift, error, phasediff) as scikit-image 0.26
    does; with masks the masked normalized cross-correlation, error and phasediff NaN."""
    xp = xp_of(reference_image, moving_image)
    if reference_mask is not None or moving_mask is not None:
        shift = _masked_phase_cross_correlation(reference_image, moving_image, reference_mask, moving_mask,
                                                overlap_ratio)
        return (shift if xp is np else xp.asarray(shift)), np.nan, np.nan
    if reference_image.shape != moving_image.shape:
        raise ValueError("images must be same shape")
    space = space.lower()
    if space not in ("real", "fourier"):
        raise ValueError('space argument must be "real" of "fourier"')
    shape = reference_image.shape
    midpoint = np.array([np.trunc(axis_size / 2) for axis_size in shape])
    fft = fft_of(xp)
    # real images: their spectra are Hermitian, so half of each (rfftn) carries all of it (half the
    # transforms and products; the cross-correlation is real)
    half = space == "real" and reference_image.dtype.kind in "biuf" and moving_image.dtype.kind in "biuf"
    if half:
        src_freq = fft.rfftn(_spectrum_input(reference_image, xp))
        target_freq = fft.rfftn(_spectrum_input(moving_image, xp))
    elif space == "fourier":
        src_freq, target_freq = reference_image, moving_image
    else:
        src_freq = fft.fftn(_spectrum_input(reference_image, xp))
        target_freq = fft.fftn(_spectrum_input(moving_image, xp))
    image_product = _cross_power(src_freq, target_freq, normalization, xp)
    cross_correlation = fft.irfftn(image_product, s=shape) if half else fft.ifftn(image_product)
    float_dtype = image_product.real.dtype
    complex_type = np.result_type(float_dtype, np.complex64).type
    maxima = _peak(cross_correlation, xp)
    shift = np.stack(maxima).astype(float_dtype, copy=False)
    shift[shift > midpoint] -= np.array(shape)[shift > midpoint]

    if half:
        src_amp, target_amp = (_half_energy(f, shape[-1], xp) for f in (src_freq, target_freq))
    else:
        src_amp, target_amp = _energy(src_freq, xp), _energy(target_freq, xp)
    if upsample_factor == 1:
        src_amp = src_amp / math.prod(shape)
        target_amp = target_amp / math.prod(shape)
        cc_max = cross_correlation[maxima]
    else:
        # refine on a grid 1/upsample_factor fine, 1.5 pixels wide around the estimate
        upsample_factor = np.array(upsample_factor, dtype=float_dtype)
        shift = np.round(shift * upsample_factor) / upsample_factor
        upsampled_region_size = np.ceil(upsample_factor * 1.5)
        dftshift = np.trunc(upsampled_region_size / 2.0)
        sample_region_offset = dftshift - shift * upsample_factor
        if half:
            cross_correlation = _upsampled_correlation(image_product, shape[-1], upsampled_region_size,
                                                       upsample_factor, sample_region_offset)
        else:
            cross_correlation = _upsampled_dft(image_product.conj(), upsampled_region_size, upsample_factor,
                                               sample_region_offset).conj()
        maxima = _peak(cross_correlation, xp)
        cc_max = cross_correlation[maxima]
        maxima = np.stack(maxima).astype(float_dtype, copy=False)
        maxima -= dftshift
        shift += maxima / upsample_factor
    if xp is not np:   # the scalars of the result live on the host, as scikit-image's
        cc_max, src_amp, target_amp = cc_max.get()[()], src_amp.get()[()], target_amp.get()[()]
    cc_max = complex_type(cc_max)

    # a shift along an axis of length one has no effect
    for dim in range(len(shape)):
        if shape[dim] == 1:
            shift[dim] = 0

    if disambiguate:
        if space != "real":
            ifftn = fft_of(xp).ifftn
            reference_image, moving_image = ifftn(reference_image), ifftn(moving_image)
        shift = _disambiguate_shift(reference_image, moving_image, shift)

    if np.isnan(cc_max) or np.isnan(src_amp) or np.isnan(target_amp):
        raise ValueError("NaN values found, please remove NaNs from your input data or use the "
                         "`reference_mask`/`moving_mask` keywords, eg: phase_cross_correlation(reference_image, "
                         "moving_image, reference_mask=~np.isnan(reference_image), "
                         "moving_mask=~np.isnan(moving_image))")
    shift = shift if xp is np else xp.asarray(shift)
    return shift, _compute_error(cc_max, src_amp, target_amp), _compute_phasediff(cc_max)
