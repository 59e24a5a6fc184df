"""skimage.segmentation.active_contour on the ndimg engines.

scikit-image samples the external energy's gradient from scipy's interpolating quadratic spline
(RectBivariateSpline, kx = ky = 2, s = 0: knots at the clamped ends and halfway between the samples, FITPACK
clamping points into the image). ndimg builds that same spline -- its coefficients from the banded
collocation systems along each axis -- and evaluates its partial derivatives at the snake's points, both
derivatives from one set of B-spline values. The snake's iterations are scikit-image's (same matrix, same
update order, same convergence test); the spline agrees with FITPACK's to rounding (about 1e-12 of the image's
range), which the generated tests' tolerance states.

On CuPy input the edge image is filtered on the GPU; the banded solves and the iterations over a few hundred
points run on the host, in NumPy's arithmetic: thousands of tiny steps, which on the GPU would be launch
latency, and whose float32 rounding (matrix-vector sums) the iterations amplify.
"""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import img_as_float, supported_float_type
from ..filters._edges import sobel

_BCS = ("periodic", "free", "fixed", "free-fixed", "fixed-free", "fixed-fixed", "free-free")
_CONVERGENCE_ORDER = 10


def _knots(m):
    """FITPACK's knots of the quadratic interpolating spline through samples at 0 .. m-1: the ends three
    times, interior knots halfway between samples 1 .. m-2."""
    return np.concatenate((np.zeros(3), np.arange(1, m - 2) + 0.5, np.full(3, float(m - 1))))


def _basis(t, m, u):
    """For points u: the first of the three coefficients that act there, the three quadratic B-splines'
    values and their derivatives (u clamped into [0, m - 1] as FITPACK clamps)."""
    u = np.clip(u, 0.0, float(m - 1))
    span = np.clip(np.searchsorted(t, u, side="right") - 1, 2, m - 1)
    tm1, t0, t1, t2 = (t[span + d] for d in (-1, 0, 1, 2))
    n0 = (t1 - u) / (t1 - t0)          # the two linear B-splines of the span
    n1 = (u - t0) / (t1 - t0)
    a = n0 / (t1 - tm1)
    b = n1 / (t2 - t0)
    values = np.stack(((t1 - u) * a, (u - tm1) * a + (t2 - u) * b, (u - t0) * b), axis=-1)
    slopes = np.stack((-2.0 * a, 2.0 * (a - b), 2.0 * b), axis=-1)
    return span - 2, values, slopes


def _collocation_solve(values, axis):
    """The spline coefficients along `axis`: the banded collocation system of the samples solved for every
    line."""
    from scipy.linalg import solve_banded

    m = values.shape[axis]
    first, v, _ = _basis(_knots(m), m, np.arange(m, dtype=np.float64))
    band = np.zeros((5, m))   # rows: diagonals +2 .. -2 of the (at most pentadiagonal) collocation matrix
    for j in range(3):
        col = first + j
        band[2 + np.arange(m) - col, col] = v[:, j]
    coef = solve_banded((2, 2), band, np.moveaxis(values, axis, 0), check_finite=False)
    return np.moveaxis(coef, 0, axis)


def _spline(field):
    """The coefficients (rows by columns) of the interpolating quadratic spline of a 2-D field, with each
    axis' knots."""
    if field.ndim < 2:
        raise IndexError("tuple index out of range")   # scikit-image reads img.shape[1]
    if field.ndim > 2:
        raise ValueError("x dimension of z must have same number of elements as x")
    rows, cols = field.shape
    if rows <= 2 or cols <= 2:
        raise ValueError("the image must have more than 2 rows and columns (a quadratic spline interpolates it)")
    coef = _collocation_solve(_collocation_solve(field.astype(np.float64), 0), 1)
    return coef, _knots(rows), _knots(cols)


def _gradient(spline, x, y):
    """The spline's derivatives along columns (x) and rows (y) at the points (x, y)."""
    coef, ty, tx = spline
    cx, vx, sx = _basis(tx, coef.shape[1], x.astype(np.float64))
    cy, vy, sy = _basis(ty, coef.shape[0], y.astype(np.float64))
    taps = coef[(cy[:, None] + np.arange(3))[:, :, None], (cx[:, None] + np.arange(3))[:, None, :]]
    fx = np.einsum("nij,ni,nj->n", taps, vy, sx)
    fy = np.einsum("nij,ni,nj->n", taps, sy, vx)
    return fx, fy


def _snake_matrix(n, alpha, beta, gamma, boundary_condition):
    """(A + gamma I)^-1 of the snake's internal energy with its end conditions, and which ends are
    fixed and free."""
    eye = np.eye(n, dtype=float)
    a = np.roll(eye, -1, axis=0) + np.roll(eye, -1, axis=1) - 2 * eye   # second difference
    b = (np.roll(eye, -2, axis=0) + np.roll(eye, -2, axis=1) - 4 * np.roll(eye, -1, axis=0)
         - 4 * np.roll(eye, -1, axis=1) + 6 * eye)                     # fourth difference
    A = -alpha * a + beta * b
    sfixed = boundary_condition.startswith("fixed")
    efixed = boundary_condition.endswith("fixed")
    sfree = boundary_condition.startswith("free")
    efree = boundary_condition.endswith("free")
    if sfixed:
        A[0, :] = 0
        A[1, :] = 0
        A[1, :3] = [1, -2, 1]
    if efixed:
        A[-1, :] = 0
        A[-2, :] = 0
        A[-2, -3:] = [1, -2, 1]
    if sfree:
        A[0, :] = 0
        A[0, :3] = [1, -2, 1]
        A[1, :] = 0
        A[1, :4] = [-1, 3, -3, 1]
    if efree:
        A[-1, :] = 0
        A[-1, -3:] = [1, -2, 1]
        A[-2, :] = 0
        A[-2, -4:] = [-1, 3, -3, 1]
    return np.linalg.inv(A + gamma * eye), (sfixed, efixed, sfree, efree)


@engine_aware("image", "snake")
def active_contour(image, snake, alpha=0.01, beta=0.1, w_line=0.0, w_edge=1, gamma=0.01, max_px_move=1.0,
                   max_num_iter=2500, convergence=0.1, *, boundary_condition="periodic"):
    """Active contour model (skimage.segmentation.active_contour): the snake, (n, 2) row, column points,
    fitted to the image's lines and edges."""
    max_num_iter = int(max_num_iter)
    if max_num_iter <= 0:
        raise ValueError("max_num_iter should be >0.")
    if boundary_condition not in _BCS:
        raise ValueError("Invalid boundary condition.\nShould be one of: " + ", ".join(_BCS) + ".")
    xp = xp_of(image)
    img = img_as_float(image)
    float_dtype = supported_float_type(image.dtype)
    img = img.astype(float_dtype, copy=False)
    rgb = img.ndim == 3
    if rgb:
        edge = sum(sobel(img[:, :, c]) for c in range(3)) if w_edge != 0 else 0
        img = w_line * xp.sum(img, axis=2) + w_edge * edge
    else:
        edge = sobel(img) if w_edge != 0 else 0
        img = w_line * img + w_edge * edge
    if xp is not np:
        img, snake = img.get(), snake.get()
    spline = _spline(img)

    x = snake[:, 1].astype(float_dtype)
    y = snake[:, 0].astype(float_dtype)
    n = len(x)
    xsave = np.empty((_CONVERGENCE_ORDER, n), dtype=float_dtype)
    ysave = np.empty((_CONVERGENCE_ORDER, n), dtype=float_dtype)
    inv, (sfixed, efixed, sfree, efree) = _snake_matrix(n, alpha, beta, gamma, boundary_condition)
    inv = inv.astype(float_dtype, copy=False)

    for i in range(max_num_iter):
        fx, fy = _gradient(spline, x, y)
        fx = fx.astype(float_dtype, copy=False)
        fy = fy.astype(float_dtype, copy=False)
        for f in (fx, fy):   # fixed ends feel no force, free ones twice theirs
            for end, fixed, free in ((0, sfixed, sfree), (-1, efixed, efree)):
                if fixed:
                    f[end] = 0
                elif free:
                    f[end] *= 2
        xn = inv @ (gamma * x + fx)
        yn = inv @ (gamma * y + fy)
        dx = max_px_move * np.tanh(xn - x)
        dy = max_px_move * np.tanh(yn - y)
        for d in (dx, dy):   # fixed ends do not move
            for end, fixed in ((0, sfixed), (-1, efixed)):
                if fixed:
                    d[end] = 0
        x += dx
        y += dy
        j = i % (_CONVERGENCE_ORDER + 1)
        if j < _CONVERGENCE_ORDER:
            xsave[j, :] = x
            ysave[j, :] = y
        else:
            dist = np.min(np.max(np.abs(xsave - x[None, :]) + np.abs(ysave - y[None, :]), 1))
            if dist < convergence:
                break
    return xp.asarray(np.stack([y, x], axis=1))
