"""skimage.util.map_array over NumPy and CuPy: a sorted key table, looked up per element (a dense table where
the keys span a short range), over blocks on the CPU engine's threads."""
from __future__ import annotations

import numpy as np

from .._blocks import blockwise
from .._engine import engine_aware, is_gpu_array, library_of, to_working, xp_of


def _table(xp, keys, values):
    """keys sorted with each key's value, the last of repeated keys winning (as scikit-image's hash map)."""
    order = xp.argsort(keys, kind="stable") if xp is np else xp.argsort(keys)   # CuPy sorts stably
    keys, values = keys[order], values[order]
    last = xp.ones(keys.size, dtype=bool)
    last[:-1] = keys[1:] != keys[:-1]
    return keys[last], values[last]


def _lookup(keys, values, dense, lo, span, udt):
    """fn(o, x, xp) writing the value of each element of x into o: from the dense table of the key range
    (its last entry, 0, for elements outside the range) or by binary search in the sorted keys."""
    def fn(o, x, xp):
        if dense is not None:
            d = (x - lo).view(udt)   # elements below lo wrap around beyond span
            xp.take(dense, xp.where(d <= span, d, span + 1), out=o)
            return
        at = xp.minimum(xp.searchsorted(keys, x), keys.size - 1)
        o[...] = xp.where(keys[at] == x, values[at], 0)
    return fn


@engine_aware("input_arr", native=False)
def map_array(input_arr, input_vals, output_vals, out=None):
    """Each element of the integer array `input_arr` equal to input_vals[i] becomes output_vals[i] (the last
    i of repeated values); elements equal to none of them become 0. Written into `out` where given. The value
    tables are parameters: NumPy arrays are taken beside a GPU `input_arr` (moved to its device)."""
    if not np.issubdtype(input_arr.dtype, np.integer):
        raise TypeError("The dtype of an array to be remapped should be integer.")
    shape = input_arr.shape
    if out is not None:
        if out.shape != shape:   # scikit-image's ValueError before any check of the device
            raise ValueError(f"If out array is provided, it should have the same shape as the input array. Input "
                             f"array has shape {shape}, provided output array has shape {out.shape}.")
        if is_gpu_array(out):
            out = to_working(out, library_of(out))
    xp = xp_of(input_arr, out)   # an `out` on another device than input_arr raises
    if xp is not np:
        input_vals, output_vals = xp.asarray(input_vals), xp.asarray(output_vals)
    flat = input_arr.reshape(-1)
    if out is None:
        out = xp.empty(shape, dtype=output_vals.dtype)
    if not (out.ndim <= 1 or out.flags.c_contiguous):
        raise ValueError(f"If out array is provided, it should be either contiguous or 1-dimensional. Got array with "
                         f"shape {out.shape} and strides {out.strides}.")
    if not (input_arr.dtype.isnative and out.dtype.isnative):   # scikit-image's typed buffers refuse them
        raise ValueError("Big-endian buffer not supported on little-endian compiler")
    oflat = out.reshape(-1)
    keys, values = _table(xp, input_vals.astype(input_arr.dtype, copy=False).reshape(-1),
                          output_vals.astype(out.dtype, copy=False).reshape(-1))
    if keys.size == 0:
        oflat[...] = 0
        return out
    udt = np.dtype(f"u{input_arr.dtype.itemsize}")
    lo = keys[0]
    span = int(keys[-1]) - int(lo)
    dense = None
    if span <= 4 * keys.size + 4096:   # a table of the key range: one gather per element
        dense = xp.zeros(span + 2, dtype=out.dtype)
        dense[(keys - lo).view(udt).astype(np.intp)] = values
    fn = _lookup(keys, values, dense, lo, span, udt)
    if xp is np:
        blockwise(lambda o, x: fn(o, x, np), oflat, flat)
    else:
        fn(oflat, flat, xp)
    return out


def dask_map_array(input_arr, input_vals, output_vals, out=None):
    """Dask arrays: each chunk mapped on its own (the table is small and whole in every task)."""
    if out is not None:
        if out.shape != input_arr.shape:
            raise ValueError(f"If out array is provided, it should have the same shape as the input array. Input "
                             f"array has shape {input_arr.shape}, provided output array has shape {out.shape}.")
        raise NotImplementedError("ndimg.util.map_array: out= arrays cannot take a lazy Dask result; drop the out= "
                                  "argument")
    if not np.issubdtype(input_arr.dtype, np.integer):
        raise TypeError("The dtype of an array to be remapped should be integer.")
    return input_arr.map_blocks(map_array, input_vals, output_vals, dtype=output_vals.dtype)
