"""The thresholding primitives that are no general family (``cpp/src/filters/threshold*``): Niblack/Sauvola
local thresholds and the multi-Otsu search."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr

LocalKind = _core.LocalKind


def local_threshold(image, *, window, kind: LocalKind, k, r, out):
    """Niblack (``m - k s``) or Sauvola (``m (1 + k (s / r - 1))``) into ``out`` (float32 or float64, the
    image's shape), with m and s the mean and standard deviation over an odd ``window`` (one size per axis,
    mirror boundary) as scikit-image computes them: window sums in double, then ``out``'s float type."""
    _core.local_threshold(image, out, [int(s) for s in window], kind, float(k), float(r), stream=stream_ptr(out))
    return out


def multiotsu_indices(prob, *, thresh_count):
    """Indices of the ``thresh_count`` thresholds that maximize the between-class variance of the normalized
    histogram ``prob`` (float32, host), searched exhaustively in float32 as scikit-image does."""
    return np.asarray(_core.multiotsu_indices(np.asarray(prob, dtype=np.float32).tolist(), int(thresh_count)),
                      dtype=np.intp)
