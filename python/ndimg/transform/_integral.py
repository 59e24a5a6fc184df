"""skimage.transform's integral image (0.26): integral_image (cumulative sums along every axis, on the CPU
engine's threads) and integrate (sums over boxes by inclusion-exclusion of corners)."""
from __future__ import annotations

import numpy as np

from .._blocks import _on_threads
from .._engine import engine_aware, get_num_threads, xp_of
from ..ndimage._footprint import to_host


def _cumsum(a, axis, dtype):
    """a.cumsum(axis, dtype) with the same sums in the same order: NumPy arrays on the engine's threads,
    each thread a slab across the last axis (or, summing along it, across the first). Along an outer axis the
    sums run as a recurrence of whole contiguous slices (out[i] = out[i - 1] + a[i]), which is what cumsum
    computes element by element, without its strided walk down each line."""
    if type(a) is not np.ndarray or a.ndim < 2 or a.size < (1 << 16):
        return a.cumsum(axis=axis, dtype=dtype)
    out = np.empty(a.shape, dtype=np.empty(0, a.dtype).cumsum(dtype=dtype).dtype)
    last = a.ndim - 1
    split = 0 if axis == last else last
    n = a.shape[split]
    nblocks = min(get_num_threads(), n)

    def run(first, last_block):
        sl = [slice(None)] * a.ndim
        sl[split] = slice(first * n // nblocks, last_block * n // nblocks)
        src, dst = a[tuple(sl)], out[tuple(sl)]
        if axis == last:
            np.cumsum(src, axis=axis, dtype=dtype, out=dst)
            return
        src, dst = np.moveaxis(src, axis, 0), np.moveaxis(dst, axis, 0)
        dst[0] = src[0]
        for i in range(1, src.shape[0]):
            np.add(dst[i - 1], src[i], out=dst[i])

    _on_threads(run, nblocks)
    return out


@engine_aware("image")
def integral_image(image, *, dtype=None):
    """The integral (summed-area) image (skimage.transform.integral_image): ``S[i, j, ...]`` is the sum of
    ``image[:i + 1, :j + 1, ...]``. Float input sums in at least float64 unless `dtype` says otherwise."""
    if dtype is None and image.real.dtype.kind == "f":
        dtype = np.promote_types(image.dtype, np.float64)
    S = image
    for i in range(image.ndim):
        S = _cumsum(S, i, dtype)
    return S


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
