"""Groups of equal values (``cpp/src/histogram/unique_cpu.cpp``), on the CPU engine."""
from __future__ import annotations

import numpy as np

from .. import _core


def inverse_counts(a):
    """numpy.unique(a, return_inverse=True, return_counts=True)[1:] for a NumPy array: the flat int64 group
    number of every element (groups in NumPy's sort order; -0.0 with 0.0, the NaNs one group) and each
    group's size; from a parallel radix sort."""
    a = np.ascontiguousarray(a, dtype=np.float32 if a.dtype == np.float16 else None)   # float16: exact in float32
    inverse = np.empty(a.size, np.int64)
    counts = np.empty(a.size, np.int64)
    k = _core.unique_inverse(a, inverse, counts)
    return inverse, counts[:k]
