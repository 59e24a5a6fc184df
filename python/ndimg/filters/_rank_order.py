"""skimage.filters.rank_order, sort-based on both engines."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import array_argument


def _keyed_order(flat):
    """NumPy's argsort of 32-bit-or-narrower values as one sort of uint64 keys (the value's order-preserving
    bits above the index: NumPy's SIMD sort of plain integers, several times faster than its argsort), with
    the sorted values read back from the keys; None where it does not apply. Equal values come out in index
    order, which changes no label; NaN (each ranked apart in argsort's order) returns None."""
    dt = flat.dtype
    if not dt.isnative or dt.itemsize > 4 or dt.kind not in "biuf" or flat.size >= 2**32:
        return None
    if dt.kind == "f":
        f32 = flat.astype(np.float32, copy=False)  # float16 exactly
        bits = f32.view(np.uint32)
        key = np.where(bits >> 31, ~bits, bits | np.uint32(1 << 31))  # IEEE order as unsigned order
    elif dt.kind == "i":
        key = (flat.astype(np.int64) - np.iinfo(dt).min).astype(np.uint32)
    else:
        key = flat.astype(np.uint32)
    keys = key.astype(np.uint64) << np.uint64(32)
    keys |= np.arange(flat.size, dtype=np.uint64)
    keys.sort()
    order = (keys & np.uint64(0xFFFFFFFF)).astype(np.intp)
    hi = (keys >> np.uint64(32)).astype(np.uint32)
    if dt.kind == "f":
        ordered = np.where(hi >> 31, hi ^ np.uint32(1 << 31), ~hi).view(np.float32).astype(dt, copy=False)
        if np.isnan(ordered[0]) or np.isnan(ordered[-1]):  # NaN keys sort to either end
            return None
    elif dt.kind == "i":
        ordered = (hi.astype(np.int64) + np.iinfo(dt).min).astype(dt)
    else:
        ordered = hi.astype(dt)
    return order, ordered


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
