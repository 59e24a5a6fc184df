"""skimage.restoration's bilateral and wavelet denoisers and its noise estimate (skimage/restoration/_denoise.py).

The bilateral filter runs on ndimg's patch primitive (scikit-image's float arithmetic and lookup tables);
the wavelet transforms are ndimg's (_dwt: PyWavelets' to the bit, in C++ on the CPU engine, over CuPy on the
CUDA engine; PyWavelets gives the filters and level counts); thresholds, the noise estimate and the colour
handling are written once over `xp`.
"""
from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from .. import _core
from .._blocks import blockable, blockwise
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import as_image, img_as_float
from ..transform._warps import _channel_last
from ..morphology._footprints import warn_user
from . import _dwt

_BILATERAL_MODES = {"constant": "C", "edge": "E", "symmetric": "S", "reflect": "R", "wrap": "W"}
# the standard normal's 75th percentile (scipy.stats.norm.ppf(0.75)), a float64 scalar: float32 estimates are float64
_NORM_PPF_75 = np.float64(0.6744897501960817)


def _host_scalar(v):
    """A 0-d CuPy result as the NumPy scalar of its dtype (NumPy scalars pass through)."""
    return v.get()[()] if hasattr(v, "get") else v


def _gaussian_lut(values, sigma, dtype):
    """exp(-values^2 / (2 sigma^2)), evaluated in `dtype` as scikit-image's tables are."""
    return np.exp(-0.5 * (values**2 / sigma**2), dtype=dtype)


@engine_aware("image")
@_channel_last
def denoise_bilateral(image, win_size=None, sigma_color=None, sigma_spatial=1, bins=10000, mode="constant", cval=0,
                      *, channel_axis=None):
    """Edge-preserving bilateral filter of a 2-D grayscale or (rows, cols, channels) image
    (skimage.restoration.denoise_bilateral): each pixel the mean of its `win_size` window weighted by a
    spatial Gaussian (`sigma_spatial`) and a Gaussian of the colour distance (`sigma_color`, tabulated in
    `bins` steps)."""
    if channel_axis is not None:
        if image.ndim == 2:
            raise ValueError("Use ``channel_axis=None`` for 2D grayscale images. The last axis of the input image "
                             "must be multiple color channels not another spatial dimension.")
        if image.ndim != 3:
            raise ValueError(f"Bilateral filter is only implemented for 2D grayscale images (image.ndim == 2) and 2D "
                             f"multichannel (image.ndim == 3) images, but the input image has {image.ndim} dimensions.")
        if image.shape[2] > 4:
            warn_user(f"The last axis of the input image is interpreted as channels. Input image with shape "
                      f"{image.shape} has {image.shape[2]} channels in last axis. ``denoise_bilateral``is implemented "
                      f"for 2D grayscale and color images only.")
        elif image.shape[2] not in (3, 4):
            warn_user(f"Input image must be grayscale, RGB, or RGBA; but has shape {image.shape}.")
    elif image.ndim > 2:
        raise ValueError(f"Bilateral filter is not implemented for grayscale images of 3 or more dimensions, but input "
                         f"image has {image.shape} shape. Use ``channel_axis=-1`` for 2D RGB images.")
    if win_size is None:
        win_size = max(5, 2 * int(math.ceil(3 * sigma_spatial)) + 1)
    # the extremes of the image as given (scikit-image scales the colour table by them, not by the float image's)
    image = as_image(image)
    xp = xp_of(image)
    # as NumPy scalars of the image's dtype on either engine: scikit-image's scalar arithmetic below
    min_value, max_value = _host_scalar(image.min()), _host_scalar(image.max())
    if min_value == max_value:
        return image
    if mode not in _BILATERAL_MODES:
        raise ValueError("Invalid mode specified.  Please use `constant`, `edge`, `wrap`, `symmetric` or `reflect`.")
    image = xp.ascontiguousarray(xp.atleast_3d(img_as_float(image)))
    sigma_color = sigma_color or _host_scalar(image.std())
    dtype = image.dtype
    color_lut = _gaussian_lut(np.linspace(0, max_value, bins, endpoint=False), sigma_color, dtype)
    grid = np.arange(-win_size // 2, win_size // 2 + 1)
    range_lut = _gaussian_lut(np.hypot(*np.meshgrid(grid, grid, indexing="ij")), sigma_spatial, dtype).ravel()
    if min_value < 0:   # the primitive wants a non-negative image; cval is not shifted, as in scikit-image
        image = image - min_value
        max_value -= min_value
    out = xp.empty(image.shape, dtype=dtype)
    win_size = operator.index(win_size)   # scikit-image's Cython takes integers only (TypeError)
    if bins < 1:   # scikit-image reads before its empty colour table
        raise ValueError("bins must be a positive integer")
    # bins // channels: scikit-image divides the C integers
    _core.bilateral(image, win_size, _BILATERAL_MODES[mode], float(cval), bins // image.shape[2] / float(max_value),
                    xp.asarray(color_lut), xp.asarray(range_lut), out, stream=stream_ptr(out))
    out = xp.squeeze(out)
    if min_value < 0:
        out += min_value
    return out


def _pywt():
    try:
        import pywt
    except ImportError:
        raise ImportError("PyWavelets is not installed. Please ensure it is installed in order to use this "
                          "function.") from None
    return pywt


def _sigma_from_details(details):
    """The noise's standard deviation from the finest diagonal details: their median absolute deviation (zeros,
    masked regions, left out) over the normal's 75th percentile (Donoho & Johnstone), a float64 (0-d on the GPU:
    the median stays on the device)."""
    xp = xp_of(details)
    details = xp.abs(details[details != 0])   # a mask, not nonzero()'s index arrays: the same values, 6x sooner
    if xp is np:
        median = np.median(details)
    elif details.size == 0:   # NumPy's median of nothing, which CuPy's partition refuses
        median = xp.asarray(np.nan)
    else:   # CuPy's partition sorts NaNs last and takes the middle; NumPy's median of NaNs is NaN
        median = xp.where(xp.isnan(details).any(), np.nan, xp.median(details))
    return median.astype(np.float64) / _NORM_PPF_75


def _wavelet_threshold(image, wavelet, method, sigma, mode, wavelet_levels):
    """Soft/hard thresholding of the detail coefficients of one channel (BayesShrink per sub-band or
    VisuShrink's universal threshold)."""
    pywt = _pywt()
    xp = xp_of(image)
    wavelet = pywt.Wavelet(wavelet)
    if not wavelet.orthogonal:
        warn_user(f"Wavelet thresholding was designed for use with orthogonal wavelets. For nonorthogonal wavelets "
                  f"such as {wavelet.name},results are likely to be suboptimal.")
    if wavelet_levels is None:
        # the coarsest three scales are left alone (they hold the image, not the noise)
        wavelet_levels = max(pywt.dwtn_max_level(image.shape, wavelet) - 3, 1)
    coeffs = _dwt.wavedecn(image, wavelet=wavelet, level=wavelet_levels)
    details = coeffs[1:]
    if sigma is None:
        sigma = _sigma_from_details(details[-1]["d" * image.ndim])
    var = sigma**2
    if method == "BayesShrink":
        def threshold(band):
            eps = np.finfo(band.dtype).eps
            return var / xp.sqrt(xp.maximum(xp.mean(band * band) - var, eps))
    elif method == "VisuShrink":
        universal = sigma * np.sqrt(2 * np.log(image.size))

        def threshold(band):
            return universal
    else:
        raise ValueError(f"Unrecognized method: {method}")
    shrunk = [{key: _threshold(pywt, band, threshold(band), mode) for key, band in level.items()} for level in details]
    out = _dwt.waverecn([coeffs[0]] + shrunk, wavelet)
    # odd lengths come back one sample longer
    return out[tuple(slice(n) for n in image.shape)].astype(image.dtype)


def _threshold(pywt, band, value, mode):
    """pywt.threshold's soft and hard thresholding, its formulas element for element (over blocks on the CPU
    engine's threads); PyWavelets' other modes, which scikit-image does not document, by PyWavelets itself
    (on the host for GPU bands)."""
    xp = xp_of(band)
    if mode not in ("soft", "hard"):
        if xp is np:
            return pywt.threshold(band, value=value, mode=mode)
        return xp.asarray(pywt.threshold(band.get(), value=_host_scalar(value), mode=mode))
    # NumPy's promotion of the band with the threshold (a Python float is weak, a float64 scalar or 0-d array
    # not), spelled out for CuPy: both cast to it first, which rounds as PyWavelets' mixed operations do; soft
    # thresholds give that dtype, hard ones keep the band's
    promoted = np.result_type(band.dtype, getattr(value, "dtype", value))
    value = xp.asarray(value, dtype=promoted)
    out = xp.empty(band.shape, promoted if mode == "soft" else band.dtype)

    def block(d, o):
        p = d.astype(promoted, copy=False)
        if mode == "hard":
            o[...] = xp.where(xp.less(xp.absolute(p), value), 0, d)
            return
        with np.errstate(divide="ignore"):   # |d| = 0 gives -inf, clipped to 0 as in PyWavelets
            scale = 1 - value / xp.absolute(p)
        scale.clip(min=0, max=None, out=scale)
        xp.multiply(p, scale, out=o)

    if xp is np and blockable(band):
        blockwise(block, band, out)
    else:
        block(band, out)
    return out


def _float_image_and_sigma(image, sigma, multichannel, rescale_sigma):
    """The image as floats, and sigma (one per channel where multichannel) scaled as img_as_float scaled the
    image."""
    if multichannel:
        if isinstance(sigma, numbers.Number) or sigma is None:
            sigma = [sigma] * image.shape[-1]
        elif len(sigma) != image.shape[-1]:
            raise ValueError("When channel_axis is not None, sigma must be a scalar or have length equal to the "
                             "number of channels")
    if image.dtype.kind != "f":
        # the extremes as host scalars of their dtypes (GPU ones too): sigma stays a host number
        extremes = lambda a: (_host_scalar(a.max()), _host_scalar(a.min()))
        if rescale_sigma:
            high, low = extremes(image)
            range_pre = high - low
        image = img_as_float(image)
        if rescale_sigma:
            high, low = extremes(image)
            scale = (high - low) / range_pre
            if multichannel:
                sigma = [s * scale if s is not None else s for s in sigma]
            elif sigma is not None:
                sigma *= scale
    elif image.dtype == np.float16:
        image = image.astype(np.float32)
    return image, sigma


@engine_aware("image")
@_channel_last
def denoise_wavelet(image, sigma=None, wavelet="db1", mode="soft", wavelet_levels=None, convert2ycbcr=False,
                    method="BayesShrink", rescale_sigma=True, *, channel_axis=None):
    """Wavelet shrinkage denoising (skimage.restoration.denoise_wavelet): the detail coefficients of a
    PyWavelets decomposition thresholded by BayesShrink or VisuShrink, per channel, optionally in YCbCr."""
    multichannel = channel_axis is not None
    if method not in ("BayesShrink", "VisuShrink"):
        raise ValueError(f'Invalid method: {method}. The currently supported methods are "BayesShrink" and '
                         f'"VisuShrink".')
    clip_output = image.dtype.kind != "f"   # floats are not rescaled: their result is not clipped
    if convert2ycbcr and not multichannel:
        raise ValueError("convert2ycbcr requires channel_axis to be set")
    image, sigma = _float_image_and_sigma(image, sigma, multichannel, rescale_sigma)
    xp = xp_of(image)
    kw = dict(wavelet=wavelet, method=method, mode=mode, wavelet_levels=wavelet_levels)
    if multichannel and convert2ycbcr:
        from ..color._colorconv import rgb2ycbcr, ycbcr2rgb, ycbcr_from_rgb

        out = rgb2ycbcr(image)
        if rescale_sigma and sigma[0] is not None:
            # the RGB noise variances carried through the conversion's rows
            sigma = np.sqrt((ycbcr_from_rgb**2) @ (np.asarray(sigma, dtype=float) ** 2))
        for c in range(3):
            low, high = out[..., c].min(), out[..., c].max()
            span = high - low
            if span == 0:
                continue
            channel = (out[..., c] - low) / span
            s = sigma[c] / span if sigma[c] is not None else None
            out[..., c] = denoise_wavelet(channel, sigma=s, rescale_sigma=rescale_sigma, **kw) * span
            out[..., c] += low
        out = ycbcr2rgb(out)
    elif multichannel:
        out = xp.empty_like(image)
        for c in range(image.shape[-1]):
            out[..., c] = _wavelet_threshold(image[..., c], sigma=sigma[c], **kw)
    else:
        out = _wavelet_threshold(image, sigma=sigma, **kw)
    if clip_output:
        out = xp.clip(out, -1 if image.min() < 0 else 0, 1, out=out)
    return out


@engine_aware("image")
def estimate_sigma(image, average_sigmas=False, *, channel_axis=None):
    """Robust wavelet-based estimate of the Gaussian noise's standard deviation
    (skimage.restoration.estimate_sigma), per channel where channel_axis is given."""
    xp = xp_of(image)
    if channel_axis is not None:
        axis = channel_axis % image.ndim
        sigmas = [estimate_sigma(xp.take(image, c, axis=axis)) for c in range(image.shape[axis])]
        return xp.mean(xp.stack(sigmas)) if average_sigmas else sigmas
    if image.shape[-1] <= 4:
        warn_user(f"image is size {image.shape[-1]} on the last axis, but channel_axis is None. If this is a color "
                  f"image, please set channel_axis=-1 for proper noise estimation.")
    # only the all-detail band of one db2 level: the high-pass branch along every axis in turn (what
    # pywt.dwtn computes for that band, without its other 2^ndim - 1 bands)
    details, wavelet = xp.asarray(image), _pywt().Wavelet("db2")
    for axis in range(details.ndim):
        details = _dwt.dwt(details, wavelet, axis=axis)[1]
    return _sigma_from_details(details)
