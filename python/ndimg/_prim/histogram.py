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


def joint_integer_counts(image0, image1, *, lo0, lo1, shape):
    """The ``shape`` (n0, n1) table of how many indices hold v0 in ``image0`` and v1 in ``image1``, at
    [v0 - lo0, v1 - lo1], for two integer arrays of one shape and dtype (a 2-D numpy.bincount: the dense
    contingency table of two label images; pairs outside the table are not counted)."""
    counts = xp_of(image0).zeros(tuple(int(n) for n in shape), dtype=np.int64)
    _core.histogram_joint_integer(image0, int(lo0), image1, int(lo1), counts, stream=stream_ptr(image0))
    return counts


def joint_uniform_counts(image0, image1, *, edges0, edges1):
    """numpy.histogramdd of the pairs (image0, image1) for equally spaced ``edges0`` and ``edges1`` (NumPy
    arrays) of two arrays of one shape and dtype: each axis binned as :func:`uniform_counts` bins it; a pair
    with a value outside its axis' edges is not counted."""
    counts = xp_of(image0).zeros((len(edges0) - 1, len(edges1) - 1), dtype=np.int64)
    _core.histogram_joint_uniform(image0, np.asarray(edges0, dtype=np.float64).tolist(), image1,
                                  np.asarray(edges1, dtype=np.float64).tolist(), counts, stream=stream_ptr(image0))
    return counts
