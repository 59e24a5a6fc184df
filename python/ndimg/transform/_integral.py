"""skimage.transform's integral image (0.26): integral_image (cumulative sums along every axis, on the CPU
engine's threads) and integrate (sums over boxes by inclusion-exclusion of corners)."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim import scan
from ..ndimage._footprint import to_host


# Input and output dtypes the scan primitive takes (float16 output: its float16 mode, in float32); bool output
# (a logical or) is NumPy's or CuPy's own loop; complex is a scan of the real parts and one of the imaginary.
_SCANNED = frozenset("?bhilqBHILQefd")
_SCANNED_OUT = frozenset("bhilqBHILQefd")


def _scan_axes(image, out, half=False):
    """out = the cumulative sums of `image` along every axis in turn (scikit-image's order)."""
    # float16 widens to float32 exactly (the scan reads 32- and 64-bit floats)
    S = image.astype(np.float32) if image.dtype == np.float16 else image
    for i in range(image.ndim):
        scan.cumsum(S, axis=i, out=out, half=half)
        S = out
    return out


@engine_aware("image")
def integral_image(image, *, dtype=None):
    """The integral (summed-area) image (skimage.transform.integral_image): ``S[i, j, ...]`` is the sum of
    ``image[:i + 1, :j + 1, ...]``. Float input sums in at least float64 unless `dtype` says otherwise. The
    cumulative sums run axis after axis as scikit-image's, each line in index order (the same float sums)."""
    if dtype is None and image.real.dtype.kind == "f":
        dtype = np.promote_types(image.dtype, np.float64)
    xp = xp_of(image)
    result = np.empty(0, image.dtype).cumsum(dtype=dtype).dtype
    if image.ndim > 0 and result.kind == "c" and (image.dtype.kind == "c" or image.dtype.char in _SCANNED):
        # complex sums add real and imaginary parts apart
        part = np.empty(0, result).real.dtype
        out = xp.empty(image.shape, result)
        out.real[...] = integral_image(image.real, dtype=part)
        out.imag[...] = integral_image(image.imag, dtype=part) if image.dtype.kind == "c" else 0
        return out
    if image.ndim == 0 or image.dtype.char not in _SCANNED or result.char not in _SCANNED_OUT:
        S = image
        for i in range(image.ndim):
            S = S.cumsum(axis=i, dtype=dtype)
        return S
    if result == np.float16:
        return _scan_axes(image, xp.empty(image.shape, np.float32), half=True).astype(np.float16)
    return _scan_axes(image, xp.empty(image.shape, result))


@engine_aware("ii")
def integrate(ii, start, end):
    """Sums over the boxes [start, end] (inclusive; negative coordinates count from the end) of the integral
    image `ii` (skimage.transform.integrate): one value per box, float64."""
    xp = xp_of(ii)
    # the boxes are parameters: NumPy or GPU arrays (or sequences), read on the host
    start, end = (np.atleast_2d(to_host(v)) for v in (start, end))
    rows = start.shape[0]
    total_shape = np.tile(ii.shape, [rows, 1])
    start = np.where(start < 0, start + total_shape, start)
    end = np.where(end < 0, end + total_shape, end)
    if np.any(end - start < 0):
        raise IndexError("end coordinates must be greater or equal to start")
    S = np.zeros(rows)
    for i in range(2 ** ii.ndim):
        # corner i: the axes whose bit is set take start - 1, the others end
        mask = np.array([(i >> (ii.ndim - 1 - d)) & 1 for d in range(ii.ndim)], dtype=bool)
        sign = (-1) ** int(mask.sum())
        corners = np.where(mask, start - 1, end)
        ok = ~np.any((start - 1) * mask < 0, axis=1)
        if ok.any():
            values = xp.asarray(ii[tuple(xp.asarray(corners[ok]).T)], dtype=np.float64)
            S[ok] += sign * (values.get() if xp is not np else values)
    return xp.asarray(S)


def integral_image_dask(image, *, dtype=None):
    """integral_image of a Dask array, lazily: Dask's cumulative sums along every axis (each chunk's own sums
    plus the totals of the chunks before it; floats equal to rounding)."""
    if dtype is None and image.real.dtype.kind == "f":
        dtype = np.promote_types(image.dtype, np.float64)
    S = image
    for i in range(image.ndim):
        S = S.cumsum(axis=i, dtype=dtype)
    return S
