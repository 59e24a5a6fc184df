"""Histograms (``cpp/src/histogram``): every element counted into bins on the array's engine; the counts
come back as an int64 array of the array's library."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr, xp_of


def integer_counts(image, *, lo, nbins):
    """``counts[v - lo]`` = how many elements equal v, for v in [lo, lo + nbins), of an integer or bool
    array (numpy.bincount after an offset; other values are not counted)."""
    counts = xp_of(image).zeros(int(nbins), dtype=np.int64)
    _core.histogram_integer(image, int(lo), counts, stream=stream_ptr(image))
    return counts


def uniform_counts(image, *, edges):
    """numpy.histogram(image, bins=edges) for equally spaced ``edges`` (a NumPy array): the bin index is
    computed in float32 for float32 arrays and in double otherwise, then corrected against ``edges`` as
    NumPy does; the last bin includes its right edge; values outside the edges and NaN are not counted."""
    counts = xp_of(image).zeros(len(edges) - 1, dtype=np.int64)
    _core.histogram_uniform(image, np.asarray(edges, dtype=np.float64).tolist(), counts, stream=stream_ptr(image))
    return counts
