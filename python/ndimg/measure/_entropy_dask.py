"""shannon_entropy of a Dask array: each chunk's distinct values and their counts, merged (the values'
union, counts added), then the in-memory formula on the counts in value order: the same counts as the whole
image's, so the same result. A 0-d Dask array."""
from __future__ import annotations

import functools

import numpy as np

from .._engine import xp_of
from ..filters._thresholding_dask import delayed, reduction, scalar
from . import _entropy as e


def _distinct(chunk):
    """The chunk's distinct values and their counts (bytes: one counting pass, as in memory)."""
    xp = xp_of(chunk)
    if chunk.dtype.itemsize == 1 and chunk.dtype.kind in "biu":
        counts = xp.bincount(xp.ascontiguousarray(chunk).reshape(-1).view(np.uint8), minlength=256)
        present = xp.flatnonzero(counts)
        return present.astype(np.uint8).view(chunk.dtype), counts[present]
    return xp.unique(chunk, return_counts=True)


def _merge(parts):
    xp = xp_of(parts[0][0])
    values = xp.concatenate([v for v, _ in parts])
    counts = xp.concatenate([c for _, c in parts])
    merged, where = xp.unique(values, return_inverse=True)
    # float64 weights: exact counts up to 2**53
    return merged, xp.bincount(where.reshape(-1), weights=counts, minlength=merged.size).astype(np.int64)


def _finish(merged, base):
    out = e.entropy_of_counts(merged[1], base)
    return out if hasattr(out, "shape") else np.asarray(out)


def shannon_entropy(image, base=2):
    e.shannon_entropy(np.zeros((1,) * image.ndim, image.dtype), base)   # the base's errors, at once
    merged = reduction(_distinct, _merge, image)
    return scalar(delayed(functools.partial(_finish, base=base))(merged), np.dtype(np.float64), like=image)
