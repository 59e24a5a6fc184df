"""skimage.feature.canny on the ndimg engines.

The smoothing (with scikit-image's bleed-over correction for masks and mode 'constant') and the Sobel
gradients are ndimg's own filters, bit for bit scikit-image's; the gradient magnitude and the non-maximum
suppression with both thresholds are C++ kernels (cpp/src/feature/canny.hpp), and the hysteresis keeps the
8-connected components of the candidates that hold a pixel above the high threshold: a flood from the
strong pixels on the CPU, ndimg's labelling on the GPU.
"""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim import feature as _feature
from .._prim import label as _label
from .._rules import array_argument, check_nD, supported_float_type
from ..filters import gaussian
from ..ndimage import binary_erosion, sobel
from ..util._dtype import limits_of

_EIGHT = np.ones((3, 3), dtype=bool)


def _smooth(image, mask, sigma, mode, cval):
    """scikit-image's canny _preprocess: the smoothed image and the eroded mask (uint8)."""
    xp = xp_of(image)
    kw = dict(sigma=sigma, mode=mode, cval=cval, preserve_range=False)
    float_type = supported_float_type(image.dtype)
    bleed = mode == "constant" or mask is not None
    if mask is None:
        weights = None
        masked = image
        eroded = xp.zeros(image.shape, np.uint8)
        eroded[1:-1, 1:-1] = 1
    else:
        mask = xp.asarray(mask).astype(bool, copy=False)
        check_mask_shape(image.shape, mask.shape)
        weights = mask.astype(float_type, copy=False)
        masked = xp.where(mask, image, xp.zeros((), image.dtype))
        eroded = binary_erosion(mask, _EIGHT, border_value=0).view(np.uint8)
    smoothed = gaussian(masked, **kw)
    if not bleed:
        return smoothed, eroded
    eps = np.finfo(float_type).eps
    if mask is not None:
        bleed_over = gaussian(weights, **kw)
        bleed_over += eps
        smoothed /= bleed_over
        return smoothed, eroded
    _divide_by_smoothed_ones(smoothed, float_type, eps, kw)
    return smoothed, eroded


def _divide_by_smoothed_ones(smoothed, float_type, eps, kw):
    """smoothed /= gaussian(ones) + eps without smoothing an image of ones: in mode 'constant' each of its
    values depends only on how far the pixel is from each edge (within the kernel radius r, or beyond), so
    an image of ones of 2 r + 3 pixels per axis holds them all; the blocks of `smoothed` are divided by its
    matching values (the interior by one number), the same numbers as scikit-image divides by."""
    xp = xp_of(smoothed)
    sigma = np.broadcast_to(np.asarray(kw["sigma"], dtype=float), (smoothed.ndim,))
    radius = [int(4.0 * float(s) + 0.5) for s in sigma]   # scipy's gaussian_filter at truncate 4
    small_shape = [min(n, 2 * r + 3) for n, r in zip(smoothed.shape, radius)]
    small = gaussian(xp.ones(small_shape, float_type), **kw)
    small += eps

    def regions(n, m, r):
        """(image slice, small slice) per region of one axis: near the start, the interior, near the end."""
        if n == m:
            return [(slice(None), slice(None))]
        return [(slice(0, r + 1), slice(0, r + 1)), (slice(r + 1, n - r - 1), slice(r + 1, r + 2)),
                (slice(n - r - 1, n), slice(m - r - 1, m))]

    for rows, small_rows in regions(smoothed.shape[0], small_shape[0], radius[0]):
        for cols, small_cols in regions(smoothed.shape[1], small_shape[1], radius[1]):
            smoothed[rows, cols] /= small[small_rows, small_cols]


def check_mask_shape(image_shape, mask_shape):
    """NumPy's IndexError of scikit-image's image[mask] for a mask of another shape."""
    if tuple(mask_shape) != tuple(image_shape):
        axis = next((a for a, (n, m) in enumerate(zip(image_shape, mask_shape)) if n != m), 0)
        raise IndexError(f"boolean index did not match indexed array along axis {axis}; size of axis is "
                         f"{image_shape[axis]} but size of corresponding boolean axis is {mask_shape[axis]}")


def _threshold(value, default, use_quantiles, dtype_max):
    if value is None:
        return default
    if use_quantiles:
        if not (0.0 <= value <= 1.0):
            raise ValueError("Quantile thresholds must be between 0 and 1.")
        return value
    value /= dtype_max
    return value


def _low_as_float(low):
    """scikit-image passes the low threshold as a C float, and 0 as 1e-14 (no zero magnitude is an edge)."""
    with np.errstate(over="ignore"):
        low = np.float32(low)
    return float(np.float32(1e-14) if low == 0 else low)


def thresholds(image, low_threshold, high_threshold, use_quantiles):
    """scikit-image's checks of the image and the thresholds, and the thresholds scaled to its dtype's range
    (quantiles as given)."""
    image = array_argument(image)
    if np.issubdtype(image.dtype, np.int64) or np.issubdtype(image.dtype, np.uint64):
        raise ValueError("64-bit integer images are not supported")
    check_nD(image, 2)
    dtype_max = limits_of(image.dtype, clip_negative=False)[1]
    low = _threshold(low_threshold, 0.1, use_quantiles, dtype_max)
    high = _threshold(high_threshold, 0.2, use_quantiles, dtype_max)
    if high < low:
        raise ValueError("low_threshold should be lower then high_threshold")
    return low, high


def _gradients(image, mask, sigma, mode, cval):
    smoothed, eroded = _smooth(image, mask, sigma, mode, cval)
    gj = sobel(smoothed, axis=1)
    gi = sobel(smoothed, axis=0)
    return gi, gj, _feature.gradient_magnitude(gi, gj), eroded


def _suppress(gi, gj, magnitude, eroded, low, high):
    # the high threshold is compared as NumPy compares it with the magnitude (a Python float in its dtype)
    high = float(np.result_type(gi.dtype, high).type(high))
    return _feature.canny_suppress(gi, gj, magnitude, eroded, low=_low_as_float(low), high=high)


@engine_aware("smoothed", "eroded")
def smoothed_classes(smoothed, low, high, eroded=None):
    """canny's pixels before the hysteresis (uint8: 0, 1 a candidate, 2 a strong one) of an image already
    smoothed, for thresholds already scaled; no `eroded` mask: all but the frame. The blockwise part of canny
    over Dask arrays (feature/_canny_dask.py)."""
    if eroded is None:
        eroded = xp_of(smoothed).zeros(smoothed.shape, np.uint8)
        eroded[1:-1, 1:-1] = 1
    gj = sobel(smoothed, axis=1)
    gi = sobel(smoothed, axis=0)
    return _suppress(gi, gj, _feature.gradient_magnitude(gi, gj), eroded.view(np.uint8), low, high)


@engine_aware("image", "mask")
def canny(image, sigma=1.0, low_threshold=None, high_threshold=None, mask=None, use_quantiles=False, *,
          mode="constant", cval=0.0):
    """Edge map of a 2-D image by Canny's algorithm (skimage.feature.canny)."""
    low, high = thresholds(image, low_threshold, high_threshold, use_quantiles)
    xp = xp_of(image)
    gi, gj, magnitude, eroded = _gradients(image, mask, sigma, mode, cval)
    if use_quantiles:
        low, high = (np.float64(float(q)) for q in xp.percentile(magnitude, [100.0 * low, 100.0 * high]))
    classes = _suppress(gi, gj, magnitude, eroded, low, high)
    if xp is np:
        return _feature.canny_hysteresis(classes)
    # on the GPU: the 8-connected components of the candidates, kept where one holds a strong pixel
    candidates = classes > 0
    labels = xp.empty(classes.shape, np.int32)
    count = _label.label(candidates, structure=_EIGHT, out=labels)
    if count == 0:
        return candidates
    good = xp.zeros(count + 1, dtype=bool)
    good[labels[classes == 2]] = True
    return good[labels]
