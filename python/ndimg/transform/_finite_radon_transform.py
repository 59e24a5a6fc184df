"""The finite Radon transform (skimage.transform.finite_radon_transform, Kingston and Svalbe): sums along
the periodic lines of a square array, written over `xp` (NumPy or CuPy): each projection one gather of
the rows shifted by multiples of their index and one column sum."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of


def _sheared(a, m, sign):
    """a with row r rolled left (sign 1) or right (sign -1) by m * r places, periodically."""
    xp = xp_of(a)
    n = a.shape[1]
    r = xp.arange(a.shape[0])[:, None]
    c = xp.arange(n)[None, :]
    return xp.take_along_axis(a, (c + sign * m * r) % n, axis=1)


@engine_aware("a")
def frt2(a):
    """The (M + 1, M) uint32 finite Radon transform of a square (M, M) array: row m < M sums the lines of
    slope m, row M the rows (invertible when M is prime)."""
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("Input must be a square, 2-D array")
    xp = xp_of(a)
    n = a.shape[0]
    f = xp.empty((n + 1, n), np.uint32)
    f[0] = a.sum(axis=0)
    for m in range(1, n):
        f[m] = _sheared(a, m, 1).sum(axis=0)
    # the row sums of the last shear, as the reference sums them
    f[n] = _sheared(a, max(n - 1, 0), 1).sum(axis=1)
    return f


@engine_aware("a")
def ifrt2(a):
    """The (M, M) inverse of frt2 from its (M + 1, M) coefficients, as float64 (exact for prime M)."""
    if a.ndim != 2 or a.shape[0] != a.shape[1] + 1:
        raise ValueError("Input must be an (n+1) row x n column, 2-D array")
    xp = xp_of(a)
    lines = a[:-1]
    n = lines.shape[1]
    f = xp.empty((n, n), np.uint32)
    f[0] = lines.sum(axis=0)
    for m in range(1, n):
        f[m] = _sheared(lines, m, -1).sum(axis=0)
    f += a[-1][np.newaxis].T
    return (f - lines[0].sum()) / n
