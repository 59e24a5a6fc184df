"""Whole-array reductions (``cpp/src/reduce``): one pass over every element, a small host result.

Floating-point sums are merged in an order fixed by the array's size, so results are the same at every
thread count.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr, xp_of

Stats = _core.Stats
SplitSums = _core.SplitSums
DiffSums = _core.DiffSums


def image_stats(image) -> Stats:
    """Statistics of a non-empty array of any dtype (float16 is read as float32, exactly).

    Floats: ``min``, ``max`` and ``sum`` over the finite values, and the counts ``n_nan``, ``n_posinf``,
    ``n_neginf`` and ``n_finite``. Integers and bool: ``imin``/``imax`` exact, ``min``/``max``/``sum`` as
    doubles, ``n_finite`` the size. ValueError on an empty array.
    """
    if image.dtype == np.float16:
        image = image.astype(np.float32)
    return _core.image_stats(image, stream=stream_ptr(image))


def mean(image, *, dtype=None):
    """The mean of a non-empty real array as NumPy's ``mean`` gives it (NaN for a NaN or both infinities,
    that infinity for one), as a 0-d array of the array's library, summed in float64 whatever ``dtype``:
    by default float32 for float32 input, else float64 (``dtype=np.float64``: float64 always). On the GPU it
    stays there, without a synchronisation. Float16 is not taken (NumPy means it in float16)."""
    if dtype is None:
        dtype = np.float32 if image.dtype == np.float32 else np.float64
    out = xp_of(image).empty((), dtype)
    _core.image_mean(image, out, stream=stream_ptr(image))
    return out


def split_sums(image, *, shift, t) -> SplitSums:
    """With y = x - shift in the array's float type, over its finite x: the sums and counts of the y above
    ``t`` (``sum_above``, ``n_above``) and at or below it (``sum_below``, ``n_below``). Float32/float64 only
    (Li's iteration)."""
    return _core.split_sums(image, float(shift), float(t), stream=stream_ptr(image))


def min_gap(image, *, shift) -> float:
    """The smallest positive difference between the sorted values x - shift (in the array's float type) of
    the finite x; inf when there are fewer than two distinct ones. Float32/float64 only."""
    return _core.min_gap(image, float(shift), stream=stream_ptr(image))


def diff_sums(a, b) -> DiffSums:
    """For two arrays of one shape and dtype, in the float type of the dtype (float32 for float32, float64
    otherwise), with d = a - b: ``sum_sq_diff``, the float64 sum of the rounded d * d, and ``sum_sq_a``, that
    of a * a (NumPy's ``(x * x).sum(dtype=float64)``). Zeros for empty arrays."""
    return _core.diff_sums(a, b, stream=stream_ptr(a))


def numpy_sum(x):
    """NumPy's ``x.sum()`` of a float32/float64 array to the last bit (its pairwise order, which the GPU's
    reductions do not keep), as a 0-d array of x's library and dtype; on the GPU no synchronisation. For
    iterations whose stopping tests compare sums, so that they stop where scikit-image's NumPy code does."""
    xp = xp_of(x)
    x = xp.ascontiguousarray(x)   # NumPy sums a C-contiguous run in one piece
    out = xp.empty((), x.dtype)
    _core.numpy_sum(x, out, stream=stream_ptr(x))
    return out

