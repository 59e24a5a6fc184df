"""skimage.util.unique_rows over NumPy and CuPy."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of


@engine_aware("ar", native=False)
def unique_rows(ar):
    """The distinct rows of a 2-D array, each taken at its first occurrence, ordered as scikit-image orders
    them: by their bytes in memory (the rows compared as byte strings)."""
    if ar.ndim != 2:
        raise ValueError(f"unique_rows() only makes sense for 2D arrays, got {ar.ndim}")
    xp = xp_of(ar)
    ar = xp.ascontiguousarray(ar)
    if xp is np:   # each row one byte string: NumPy sorts those at once
        return ar[np.unique(ar.view(f"|S{ar.itemsize * ar.shape[1]}"), return_index=True)[1]]
    if ar.shape[1] == 0:   # NumPy's refusal of a zero-width byte string
        raise ValueError("When changing to a smaller dtype, its size must be a divisor of the size of original dtype")
    if ar.shape[0] == 0:
        return ar
    rows = ar.view(xp.uint8).reshape(ar.shape[0], -1)
    order = xp.lexsort(rows.T[::-1])   # stable: each run of equal rows starts at its first occurrence
    ranked = rows[order]
    first = xp.ones(ar.shape[0], dtype=bool)
    first[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    return ar[order[first]]
