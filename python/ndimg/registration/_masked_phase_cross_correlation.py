"""Masked normalized cross-correlation (Padfield, IEEE TIP 2012) over xp, as scikit-image 0.26 computes it:
every masked sum of the correlation is one product of spectra by the engine's FFT, at a fast length."""
from __future__ import annotations

import numpy as np
from scipy.fft import next_fast_len

from .._engine import xp_of
from .._fft import fft_of
from .._rules import supported_float_type


def _masked_phase_cross_correlation(reference_image, moving_image, reference_mask, moving_mask=None,
                                    overlap_ratio=0.3):
    """The shift registering `moving_image` to `reference_image` (shapes may differ) at the maximum of their
    masked normalized cross-correlation (the mean position of equal maxima)."""
    xp = xp_of(reference_image, moving_image)
    if moving_mask is None:
        if reference_image.shape != moving_image.shape:
            raise ValueError("Input images have different shapes, moving_mask must be explicitly set.")
        moving_mask = reference_mask.astype(bool)
    for im, mask in ((reference_image, reference_mask), (moving_image, moving_mask)):
        if im.shape != mask.shape:
            raise ValueError("Image sizes must match their respective mask sizes.")
    xcorr = cross_correlate_masked(moving_image, reference_image, moving_mask, reference_mask,
                                   axes=tuple(range(moving_image.ndim)), mode="full", overlap_ratio=overlap_ratio)
    maxima = xp.stack(xp.nonzero(xcorr == xcorr.max()), axis=1)
    center = xp.mean(maxima, axis=0)
    if xp is not np:
        center = center.get()
    shifts = center - np.array(reference_image.shape) + 1
    size_mismatch = np.array(moving_image.shape) - np.array(reference_image.shape)
    return -shifts + (size_mismatch / 2)


def _centered(arr, newshape, axes):
    """The centre `newshape` part of `arr` along `axes`."""
    slices = [slice(None)] * arr.ndim
    for ax in axes:
        start = (arr.shape[ax] - newshape[ax]) // 2
        slices[ax] = slice(start, start + newshape[ax])
    return arr[tuple(slices)]


def _flip(arr, axes):
    """`arr` reversed along `axes` (the n-D rotation by 180 degrees)."""
    reverse = [slice(None)] * arr.ndim
    for axis in axes:
        reverse[axis] = slice(None, None, -1)
    return arr[tuple(reverse)]


def cross_correlate_masked(arr1, arr2, m1, m2, mode="full", axes=(-2, -1), overlap_ratio=0.3):
    """Masked normalized cross-correlation of `arr1` and `arr2` along `axes` ('full' or 'same' as
    scikit-image's), clipped to [-1, 1], zero where the masks overlap on fewer than `overlap_ratio` of the
    largest overlap or where the denominator is below 1000 eps of its maximum."""
    if mode not in {"full", "same"}:
        raise ValueError(f"Correlation mode '{mode}' is not valid.")
    xp = xp_of(arr1, arr2)
    fixed_image = xp.asarray(arr1)
    moving_image = xp.asarray(arr2)
    float_dtype = supported_float_type((fixed_image.dtype, moving_image.dtype))
    if float_dtype.kind == "c":
        raise ValueError("complex-valued arr1, arr2 are not supported")
    fixed_image = fixed_image.astype(float_dtype)
    fixed_mask = xp.array(m1, dtype=bool)
    moving_image = moving_image.astype(float_dtype)
    moving_mask = xp.array(m2, dtype=bool)
    eps = np.finfo(float_dtype).eps

    for axis in set(range(fixed_image.ndim)) - set(axes):
        if fixed_image.shape[axis] != moving_image.shape[axis]:
            raise ValueError(f"Array shapes along non-transformation axes should be equal, but dimensions along "
                             f"axis {axis} are not.")
    # computed at the next fast length of the full correlation along each axis, then cut back
    final_shape = list(fixed_image.shape)
    for axis in axes:
        final_shape[axis] = fixed_image.shape[axis] + moving_image.shape[axis] - 1
    final_slice = tuple(slice(0, int(sz)) for sz in final_shape)
    fast_shape = tuple(next_fast_len(final_shape[ax]) for ax in axes)
    fftlib = fft_of(xp)

    def fft(x):
        return fftlib.fftn(x, s=fast_shape, axes=axes)

    def ifft(x):
        return fftlib.ifftn(x, s=fast_shape, axes=axes).real

    fixed_image[~fixed_mask] = 0.0
    moving_image[~moving_mask] = 0.0
    rotated_moving_image = _flip(moving_image, axes)
    rotated_moving_mask = _flip(moving_mask, axes)

    fixed_fft = fft(fixed_image)
    rotated_moving_fft = fft(rotated_moving_image)
    fixed_mask_fft = fft(fixed_mask.astype(float_dtype))
    rotated_moving_mask_fft = fft(rotated_moving_mask.astype(float_dtype))

    # the number of overlapping valid pixels at every displacement
    number_overlap_masked_px = xp.round(ifft(rotated_moving_mask_fft * fixed_mask_fft))
    number_overlap_masked_px = xp.fmax(number_overlap_masked_px, eps)

    masked_correlated_fixed_fft = ifft(rotated_moving_mask_fft * fixed_fft)
    masked_correlated_rotated_moving_fft = ifft(fixed_mask_fft * rotated_moving_fft)

    numerator = ifft(rotated_moving_fft * fixed_fft)
    numerator -= masked_correlated_fixed_fft * masked_correlated_rotated_moving_fft / number_overlap_masked_px

    fixed_denom = ifft(rotated_moving_mask_fft * fft(xp.square(fixed_image)))
    fixed_denom -= xp.square(masked_correlated_fixed_fft) / number_overlap_masked_px
    fixed_denom = xp.fmax(fixed_denom, 0.0)

    moving_denom = ifft(fixed_mask_fft * fft(xp.square(rotated_moving_image)))
    moving_denom -= xp.square(masked_correlated_rotated_moving_fft) / number_overlap_masked_px
    moving_denom = xp.fmax(moving_denom, 0.0)

    denom = xp.sqrt(fixed_denom * moving_denom)

    numerator = numerator[final_slice]
    denom = denom[final_slice]
    number_overlap_masked_px = number_overlap_masked_px[final_slice]
    if mode == "same":
        numerator = _centered(numerator, fixed_image.shape, axes)
        denom = _centered(denom, fixed_image.shape, axes)
        number_overlap_masked_px = _centered(number_overlap_masked_px, fixed_image.shape, axes)

    # a tiny denominator would blow the quotient up: those displacements are zero
    tol = 1e3 * eps * xp.max(xp.abs(denom), axis=axes, keepdims=True)
    nonzero_indices = denom > tol
    out = xp.zeros_like(denom, dtype=float_dtype)
    out[nonzero_indices] = numerator[nonzero_indices] / denom[nonzero_indices]
    xp.clip(out, -1, 1, out=out)
    number_px_threshold = overlap_ratio * xp.max(number_overlap_masked_px, axis=axes, keepdims=True)
    out[number_overlap_masked_px < number_px_threshold] = 0.0
    return out
