"""Colocalization coefficients (skimage.measure._colocalization), on NumPy or CuPy."""
from __future__ import annotations

import warnings

import numpy as np

from .._engine import engine_aware, xp_of

__all__ = ["pearson_corr_coeff", "manders_coloc_coeff", "manders_overlap_coeff", "intersection_coeff"]


def _asarray(a, xp):
    return np.asarray(a) if xp is np else xp.asarray(a)


def _binary(array, variable_name, xp):
    """scikit-image's as_binary_ndarray: bool, or only 0 and 1, as a bool array."""
    array = _asarray(array, xp)
    if array.dtype != bool and bool(xp.any((array != 1) & (array != 0))):
        raise ValueError(f"{variable_name} array is not of dtype boolean or contains values other than 0 and 1 so "
                         "cannot be safely cast to boolean array.")
    return array.astype(bool, copy=False)


def _same_shape(*images):
    if not all(images[0].shape == im.shape for im in images[1:]):
        raise ValueError("Input images must have the same dimensions.")


def _select(images, mask, xp):
    """The images' values where `mask` is set (all of them, flattened, without one)."""
    if mask is not None:
        mask = _binary(mask, "mask", xp)
        _same_shape(*images, mask)
        return [im[mask] for im in images]
    _same_shape(*images)
    return [im.reshape(-1) for im in images]


def _p_value(r, n, dtype):
    """Two-sided p-value of Pearson's r for n samples (r is Beta(n/2 - 1, n/2 - 1) on [-1, 1] under the null),
    in the input's float type as scipy.stats.pearsonr computes it."""
    from scipy.special import betaincc

    ab = np.asarray(n / 2 - 1, dtype=dtype)
    return float(2 * betaincc(ab, ab, (np.asarray(abs(r), dtype=dtype) + 1) / 2))


def _pearson(x, y, xp):
    """Pearson's r and its two-sided p-value as scipy.stats.pearsonr computes them (floating dtype of the pair,
    constant inputs give NaN with a warning)."""
    from scipy.stats import ConstantInputWarning, NearConstantInputWarning

    dtype = np.result_type(x.dtype, y.dtype)
    if dtype.kind not in "fc":
        dtype = np.dtype(np.float64)
    if x.shape[0] < 2:
        raise ValueError("`x` and `y` must have length at least 2.")
    if dtype.kind == "c":
        raise ValueError("This function does not support complex data")
    x, y = x.astype(dtype, copy=False), y.astype(dtype, copy=False)
    const = bool(xp.all(x == x[0])) or bool(xp.all(y == y[0]))
    if const:
        warnings.warn(ConstantInputWarning("An input array is constant; the correlation coefficient is not "
                                           "defined."), stacklevel=3)
        return np.nan, np.nan
    # scipy's steps in the input's float type (float16 and float32 results round as there)
    if dtype == np.float16 and xp is not np:
        # NumPy reduces float16 in float32 and rounds the total once (mean, the sum of the rounded squares in
        # vector_norm, vecdot's sum of exact products); CuPy's float16 reductions round otherwise
        half = lambda v: v.astype(np.float16)  # noqa: E731
        mean = lambda v: half(xp.sum(v, dtype=np.float32, keepdims=True) / np.float32(v.shape[0]))  # noqa: E731
        norm = lambda v, keepdims: xp.sqrt(half(xp.sum(v * v, dtype=np.float32, keepdims=keepdims)))  # noqa: E731
        vecdot = lambda a, b: half(xp.sum(a.astype(np.float32) * b.astype(np.float32)))  # noqa: E731
    else:
        mean = lambda v: xp.mean(v, keepdims=True)  # noqa: E731
        norm = getattr(xp.linalg, "vector_norm", xp.linalg.norm)
        vecdot = xp.vecdot if hasattr(xp, "vecdot") else lambda a, b: xp.sum(a * b)
    xmean, ymean = mean(x), mean(y)
    xm, ym = x - xmean, y - ymean
    xmax, ymax = xp.max(xp.abs(xm), keepdims=True), xp.max(xp.abs(ym), keepdims=True)
    normx = xmax * norm(xm / xmax, keepdims=True)
    normy = ymax * norm(ym / ymax, keepdims=True)
    threshold = np.finfo(dtype).eps ** 0.75
    if bool(xp.any(normx < threshold * xp.abs(xmean))) or bool(xp.any(normy < threshold * xp.abs(ymean))):
        warnings.warn(NearConstantInputWarning("An input array is nearly constant; the computed correlation "
                                               "coefficient may be inaccurate."), stacklevel=3)
    a, b = xm / normx, ym / normy
    r = float(xp.clip(vecdot(a, b), -1.0, 1.0))
    if x.shape[0] == 2:   # exactly +-1, p-value 1
        return float(np.round(r)), np.nan if np.isnan(r) else 1.0
    return r, _p_value(r, x.shape[0], dtype)


@engine_aware("image0", "image1", "mask")
def pearson_corr_coeff(image0, image1, mask=None):
    """(Pearson's correlation coefficient, its two-sided p-value) of the two images' values inside `mask`."""
    xp = xp_of(image0, image1)
    image0, image1 = _select([_asarray(image0, xp), _asarray(image1, xp)], mask, xp)
    return tuple(float(v) for v in _pearson(image0, image1, xp))


@engine_aware("image0", "image1_mask", "mask")
def manders_coloc_coeff(image0, image1_mask, mask=None):
    """The fraction of image0's intensity inside image1_mask (within `mask`)."""
    xp = xp_of(image0, image1_mask)
    image0 = _asarray(image0, xp)
    image1_mask = _binary(image1_mask, "image1_mask", xp)
    image0, image1_mask = _select([image0, image1_mask], mask, xp)
    if image0.min() < 0:
        raise ValueError("image contains negative values")
    total = xp.sum(image0)
    if total == 0:
        return 0
    return xp.sum(image0 * image1_mask) / total


@engine_aware("image0", "image1", "mask")
def manders_overlap_coeff(image0, image1, mask=None):
    """sum(image0 * image1) / sqrt(sum(image0**2) * sum(image1**2)) of nonnegative images (within `mask`)."""
    xp = xp_of(image0, image1)
    image0, image1 = _select([_asarray(image0, xp), _asarray(image1, xp)], mask, xp)
    if image0.min() < 0:
        raise ValueError("image0 contains negative values")
    if image1.min() < 0:
        raise ValueError("image1 contains negative values")
    denom = (xp.sum(xp.square(image0)) * xp.sum(xp.square(image1))) ** 0.5
    return xp.sum(xp.multiply(image0, image1)) / denom


@engine_aware("image0_mask", "image1_mask", "mask")
def intersection_coeff(image0_mask, image1_mask, mask=None):
    """The fraction of image0_mask's pixels also in image1_mask (within `mask`)."""
    xp = xp_of(image0_mask, image1_mask)
    image0_mask = _binary(image0_mask, "image0_mask", xp)
    image1_mask = _binary(image1_mask, "image1_mask", xp)
    image0_mask, image1_mask = _select([image0_mask, image1_mask], mask, xp)
    nonzero0 = int(xp.count_nonzero(image0_mask))
    if nonzero0 == 0:
        return 0
    return int(xp.count_nonzero(xp.logical_and(image0_mask, image1_mask))) / nonzero0
