"""skimage.filters.rank_order, sort-based on both engines."""
from __future__ import annotations

import numpy as np

from .._blocks import blockwise
from .._engine import engine_aware, xp_of
from .._rules import array_argument


def _keyed_order(flat):
    """NumPy's argsort of 32-bit-or-narrower values as one sort of uint64 keys (the value's order-preserving
    bits above the index: NumPy's SIMD sort of plain integers, several times faster than its argsort), with
    the sorted values read back from the keys; None where it does not apply. Equal values come out in index
    order, which changes no label; NaN (each ranked apart in argsort's order) returns None. The keys are made
    and taken apart blockwise on the CPU engine's threads."""
    dt = flat.dtype
    if not dt.isnative or dt.itemsize > 4 or dt.kind not in "biuf" or flat.size >= 2**32:
        return None
    if dt.kind == "f":
        src = np.ascontiguousarray(flat.astype(np.float32, copy=False)).view(np.uint32)  # float16 exactly
        values = np.empty(flat.size, np.float32)

        def to_key(v):  # IEEE order as unsigned order
            return np.where(v >> 31, ~v, v | np.uint32(1 << 31))

        def from_key(h, out):
            out.view(np.uint32)[...] = np.where(h >> 31, h ^ np.uint32(1 << 31), ~h)
    else:
        src = np.ascontiguousarray(flat)
        values = np.empty(flat.size, dt)
        low = np.iinfo(dt).min if dt.kind == "i" else 0

        def to_key(v):
            return (v.astype(np.int64) - low).astype(np.uint32) if low else v.astype(np.uint32)

        def from_key(h, out):
            out[...] = h.astype(np.int64) + low if low else h

    keys = np.arange(flat.size, dtype=np.uint64)

    def build(v, k):
        k |= to_key(v).astype(np.uint64) << np.uint64(32)

    blockwise(build, src, keys)
    keys.sort()
    order = np.empty(flat.size, np.intp)

    def split(k, o, out):
        o[...] = k & np.uint64(0xFFFFFFFF)
        from_key((k >> np.uint64(32)).astype(np.uint32), out)

    blockwise(split, keys, order, values)
    if dt.kind == "f":
        if np.isnan(values[0]) or np.isnan(values[-1]):  # NaN keys sort to either end
            return None
        values = values.astype(dt, copy=False)
    return order, values


@engine_aware("image", native=False)  # the values keep the input's byte order
def rank_order(image):
    """Each pixel's index among the sorted distinct values of `image` (labels of dtype
    np.min_scalar_type(image.size)), and those distinct values."""
    image = array_argument(image, "reshape")
    xp = xp_of(image)
    if image.size == 0:  # scikit-image indexes the last sorted value
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    flat = image.reshape(-1)
    label_dtype = np.min_scalar_type(flat.size)
    order = _keyed_order(flat) if xp is np else None
    if order is None:
        order = xp.argsort(flat)
        ordered = flat[order]
    else:
        order, ordered = order
    if xp is not np and flat.dtype.kind in "fc" and bool(xp.isnan(ordered[-1])):
        # each NaN ranks apart, in the order NumPy's unstable argsort leaves them (which scikit-image's labels
        # follow; CuPy's sort is stable): that order from the host, only for images holding NaN
        order = xp.asarray(np.argsort(flat.get()))
        ordered = flat[order]
    step = ordered[:-1] != ordered[1:]  # NaNs differ from everything, as in skimage
    ranks = xp.zeros(flat.size, dtype=label_dtype)
    ranks[1:] = xp.cumsum(step, dtype=label_dtype)
    labels = xp.empty_like(ranks)
    labels[order] = ranks
    values = xp.concatenate([ordered[:1], ordered[1:][step]]).astype(image.dtype, copy=False)
    return labels.reshape(image.shape), values
