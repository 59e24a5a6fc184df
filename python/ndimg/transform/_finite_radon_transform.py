"""The finite Radon transform (skimage.transform.finite_radon_transform, Kingston and Svalbe): sums along
the periodic lines of a square array, written over `xp` (NumPy or CuPy). frt2 stores float sums in uint32,
whose truncation shows their last bit, so it adds as NumPy adds for scikit-image (CuPy's reductions add in
another order, and float16 in float32): the projections row after row in the sum's dtype, the row sums
pairwise; and it converts as NumPy's cast does."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from ..filters._thresholding import _to_host


def _sheared(a, m, sign):
    """a with row r rolled left (sign 1) or right (sign -1) by m * r places, periodically."""
    xp = xp_of(a)
    n = a.shape[1]
    r = xp.arange(a.shape[0])[:, None]
    c = xp.arange(n)[None, :]
    return xp.take_along_axis(a, (c + sign * m * r) % n, axis=1)


def _tree(r):
    """The values summed as halves of halves: ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))."""
    if len(r) == 1:
        return r[0]
    return _tree(r[:len(r) // 2]) + _tree(r[len(r) // 2:])


def _pairwise_rows(x, xp, per=1):
    """Each row of x summed as NumPy's add.reduce sums a contiguous axis, from 0, in x's dtype: its
    pairwise_sum counts scalars, `per` to an element (2: the real parts of complex values, which it
    interleaves with the imaginary ones). Below 8 scalars in turn; up to 128 in 8 interleaved partial sums
    joined as a tree, the rest in turn; beyond, the halves (whole blocks of 8 scalars first) apart."""
    n = x.shape[1]
    u = n * per
    if u > 128:
        half = (u // 2 - (u // 2) % 8) // per
        return _pairwise_rows(x[:, :half], xp, per) + _pairwise_rows(x[:, half:], xp, per)
    total = xp.zeros(x.shape[0], x.dtype)
    lanes = 8 // per
    whole = 0
    if u >= 8:
        r = x[:, :lanes].copy()
        whole = n - n % lanes
        for i in range(lanes, whole, lanes):
            r += x[:, i:i + lanes]
        total = total + _tree([r[:, j] for j in range(lanes)])
    for i in range(whole, n):
        total = total + x[:, i]
    return total


def _as_uint32(sums, xp):
    """Projections' sums (one per row) cast to uint32 as the reference's NumPy casts each row: integers wrap
    modulo 2^32, floats truncate and negative ones wrap too (C's conversion through a signed integer; CuPy's
    cast saturates them to 0). NaN, infinities and sums outside [-2^31, 2^32) have no defined conversion in
    C, and NumPy's gives 0 or 2^31 by the element's place in its vector loop: rows holding one are cast
    alone on the host, as the reference casts them."""
    out = sums.astype(np.uint32)   # complex: the real part (NumPy warns that the imaginary one is discarded)
    if sums.dtype.kind not in "fc":
        return out
    r = sums.real
    # bounds the sums' dtype holds (float16: its every finite value)
    lo, hi = max(-2.0 ** 31, float(np.finfo(r.dtype).min)), min(2.0 ** 32, float(np.finfo(r.dtype).max))
    neg = (r < 0) & (r >= lo)
    out = xp.where(neg, xp.trunc(xp.where(neg, r, 0)).astype(np.int64).astype(np.uint32), out)
    undefined = ~((r >= lo) & (r < hi))   # NaN too
    for i in _to_host(xp.flatnonzero(undefined.any(axis=1))).tolist():
        out[i] = xp.asarray(_to_host(sums[i]).astype(np.uint32))
    return out


@engine_aware("a")
def frt2(a):
    """The (M + 1, M) uint32 finite Radon transform of a square (M, M) array: row m < M sums the lines of
    slope m, row M the rows (invertible when M is prime)."""
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("Input must be a square, 2-D array")
    xp = xp_of(a)
    n = a.shape[0]
    total = np.zeros(1, a.dtype).sum().dtype   # NumPy's sum dtype: wider integers, float16 kept
    f = xp.empty((n + 1, n), np.uint32)
    if n == 0:
        return f
    # every slope m at once, row after row: row r of the lines of slope m starts m * r places on
    slopes, cols = xp.arange(n)[:, None], xp.arange(n)[None, :]
    lines = xp.broadcast_to(a[0].astype(total), (n, n)).copy()
    for r in range(1, n):
        lines += a[r][(cols + r * slopes) % n].astype(total, copy=False)
    f[:n] = _as_uint32(lines, xp)
    # the row sums of the last shear, as the reference sums them: float16 in float32 (NumPy's half loop),
    # complex values by their real parts (all that uint32 keeps; NumPy's pairwise sum counts both parts)
    per = 2 if total.kind == "c" else 1
    acc = np.float32 if total == np.float16 else np.zeros(0, total).real.dtype
    last = _sheared(a, n - 1, 1).real.astype(acc)
    f[n:] = _as_uint32(_pairwise_rows(last, xp, per).astype(total)[None], xp)
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
