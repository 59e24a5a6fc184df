"""skimage.registration's optical flow estimators (0.26) over xp: TV-L1 (Zach, Pock and Bischof 2007; the
IPOL 2013 scheme) and iterative Lucas-Kanade, with scikit-image's iterations and arithmetic; warps by
ndimg.transform.warp, filters by ndimg.ndimage / ndimg.filters."""
from __future__ import annotations

from functools import partial
from itertools import combinations_with_replacement

import numpy as np

from .._blocks import _on_threads
from .._engine import engine_aware, xp_of
from .._rules import supported_float_type
from ..filters import gaussian as gaussian_filter
from ..ndimage import median_filter, uniform_filter
from ..transform import warp
from ._optical_flow_utils import _coarse_to_fine, _get_warp_points


_THREADED_SIZE = 1 << 16   # pixels from which a level's components are projected on threads


def _sparse_grid(image, xp):
    return xp.meshgrid(*[xp.arange(n, dtype=image.dtype) for n in image.shape], indexing="ij", sparse=True)


def _tvl1(reference_image, moving_image, flow0, attachment, tightness, num_warp, num_iter, tol, prefilter):
    """One pyramid level of TV-L1: `num_warp` warps of the moving image, each followed by `num_iter`
    alternations of the pointwise data step and two dual projections per flow component (time step
    0.5 / ndim); stops early once the squared change over a warp falls below tol * size."""
    xp = xp_of(reference_image)
    dtype = reference_image.dtype
    ndim = reference_image.ndim
    grid = _sparse_grid(reference_image, xp)
    dt = 0.5 / ndim
    reg_num_iter = 2
    f0 = attachment * tightness
    f1 = dt / tightness
    tol *= reference_image.size
    # scikit-image's aliasing kept: the first data step of a warp updates flow_previous too, which makes
    # the stopping test compare against the flow after that step
    flow_current = flow_previous = flow0
    # one scratch gradient per flow component: the components' projections are independent, so on the CPU
    # they run on the engine's threads at once (NumPy's ufuncs release the GIL)
    g = xp.zeros((ndim, ndim) + reference_image.shape, dtype=dtype)
    proj = xp.zeros((ndim, ndim) + reference_image.shape, dtype=dtype)
    threaded = xp is np and reference_image.size >= _THREADED_SIZE

    def regularize(flow_current, flow_auxiliary, idx):
        """Chambolle's projection of component idx's dual variable, reg_num_iter times."""
        gi, pi = g[idx], proj[idx]
        s_g = [slice(None)] * gi.ndim
        s_p = [slice(None)] * pi.ndim
        s_d = [slice(None)] * ndim
        for _ in range(reg_num_iter):
            for ax in range(ndim):
                s_g[0] = ax
                s_g[ax + 1] = slice(0, -1)
                gi[tuple(s_g)] = xp.diff(flow_current[idx], axis=ax)
                s_g[ax + 1] = slice(None)
            norm = xp.sqrt((gi ** 2).sum(0))[xp.newaxis, ...]
            norm *= f1
            norm += 1.0
            pi -= dt * gi
            pi /= norm
            # d: the negative divergence of proj[idx]
            d = -pi.sum(0)
            for ax in range(ndim):
                s_p[0] = ax
                s_p[ax + 1] = slice(0, -1)
                s_d[ax] = slice(1, None)
                d[tuple(s_d)] += pi[tuple(s_p)]
                s_p[ax + 1] = slice(None)
                s_d[ax] = slice(None)
            flow_current[idx] = flow_auxiliary[idx] + d

    for _ in range(num_warp):
        if prefilter:
            flow_current = median_filter(flow_current, [1] + ndim * [3])
        image1_warp = warp(moving_image, _get_warp_points(grid, flow_current), mode="edge")
        grad = xp.stack(xp.gradient(image1_warp))
        NI = (grad * grad).sum(0)
        NI[NI == 0] = 1
        rho_0 = image1_warp - reference_image - (grad * flow_current).sum(0)
        for _ in range(num_iter):
            # data term: a step of rho / |grad|**2 where that stays within f0 * |grad|**2, else f0 (the same
            # values as scikit-image's masked updates, without gathering and scattering them)
            rho = rho_0 + (grad * flow_current).sum(0)
            idx = abs(rho) <= f0 * NI
            flow_auxiliary = flow_current
            flow_auxiliary -= xp.where(idx, rho * grad / NI, f0 * xp.sign(rho) * grad)
            # regularization term
            flow_current = flow_auxiliary.copy()
            if threaded:
                _on_threads(lambda first, last: [regularize(flow_current, flow_auxiliary, i)
                                                 for i in range(first, last)], ndim)
            else:
                for idx in range(ndim):
                    regularize(flow_current, flow_auxiliary, idx)
        flow_previous -= flow_current
        if float((flow_previous * flow_previous).sum()) < tol:
            break
        flow_previous = flow_current
    return flow_current


def _check_dtype(dtype):
    if np.dtype(dtype) != supported_float_type(dtype):
        raise ValueError(f"dtype={dtype} is not supported. Try 'float32' or 'float64.'")


@engine_aware("reference_image", "moving_image")
def optical_flow_tvl1(reference_image, moving_image, *, attachment=15, tightness=0.3, num_warp=5, num_iter=10,
                      tol=1e-4, prefilter=False, dtype=np.float32):
    """Coarse-to-fine TV-L1 optical flow (skimage.registration.optical_flow_tvl1): the flow, shape
    (ndim, *image.shape), that warps `moving_image` onto `reference_image`."""
    solver = partial(_tvl1, attachment=attachment, tightness=tightness, num_warp=num_warp, num_iter=num_iter,
                     tol=tol, prefilter=prefilter)
    _check_dtype(dtype)
    return _coarse_to_fine(reference_image, moving_image, solver, dtype=dtype)


def _solve2(a00, a01, a11, b0, b1, xp):
    """The flow of every pixel's symmetric 2 x 2 system [[a00, a01], [a01, a11]] x = b, as LAPACK's gesv
    solves it (LU with partial pivoting) but elementwise, zero where |det| < 1e-14 (scikit-image's
    ill-conditioned systems)."""
    swap = abs(a01) > abs(a00)   # the pivot: the larger first column entry, the first of equals
    p, q = xp.where(swap, a01, a00), xp.where(swap, a11, a01)   # pivot row
    r, s = xp.where(swap, a00, a01), xp.where(swap, a01, a11)   # the other row
    c0, c1 = xp.where(swap, b1, b0), xp.where(swap, b0, b1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = r / p
        upper = s - lower * q
        x1 = (c1 - lower * c0) / upper
        x0 = (c0 - q * x1) / p
    singular = abs(p * upper) < 1e-14
    return xp.stack([xp.where(singular, 0, x0), xp.where(singular, 0, x1)]).astype(a00.dtype, copy=False)


def _ilk(reference_image, moving_image, flow0, radius, num_warp, gaussian, prefilter):
    """One pyramid level of iterative Lucas-Kanade: `num_warp` times, warp, then solve at every pixel the
    ndim x ndim system of the gradients' products integrated over the window (uniform or Gaussian);
    systems with |det| < 1e-14 give zero flow."""
    xp = xp_of(reference_image)
    dtype = reference_image.dtype
    ndim = reference_image.ndim
    size = 2 * radius + 1
    if gaussian:
        filter_func = partial(gaussian_filter, sigma=ndim * (size / 4,), mode="mirror")
    else:
        filter_func = partial(uniform_filter, size=ndim * (size,), mode="mirror")
    flow = flow0
    grid = _sparse_grid(reference_image, xp)
    if ndim != 2:
        A = xp.zeros(reference_image.shape + (ndim, ndim), dtype=dtype)
        b = xp.zeros(reference_image.shape + (ndim, 1), dtype=dtype)
    for _ in range(num_warp):
        if prefilter:
            flow = median_filter(flow, (1,) + ndim * (3,))
        moving_image_warp = warp(moving_image, _get_warp_points(grid, flow), mode="edge")
        grad = xp.stack(xp.gradient(moving_image_warp), axis=0)
        error_image = (grad * flow).sum(axis=0) + reference_image - moving_image_warp
        if ndim == 2:   # 2 x 2 systems elementwise: a batched LAPACK call per pixel costs more than the rest
            flow = _solve2(filter_func(grad[0] * grad[0]), filter_func(grad[0] * grad[1]),
                           filter_func(grad[1] * grad[1]), filter_func(grad[0] * error_image),
                           filter_func(grad[1] * error_image), xp)
            continue
        for i, j in combinations_with_replacement(range(ndim), 2):
            A[..., i, j] = A[..., j, i] = filter_func(grad[i] * grad[j])
        for i in range(ndim):
            b[..., i, 0] = filter_func(grad[i] * error_image)
        idx = abs(xp.linalg.det(A)) < 1e-14
        A[idx] = xp.eye(ndim, dtype=dtype)
        b[idx] = 0
        flow = xp.moveaxis(xp.linalg.solve(A, b)[..., 0], ndim, 0)
    return flow


@engine_aware("reference_image", "moving_image")
def optical_flow_ilk(reference_image, moving_image, *, radius=7, num_warp=10, gaussian=False, prefilter=False,
                     dtype=np.float32):
    """Coarse-to-fine iterative Lucas-Kanade optical flow (skimage.registration.optical_flow_ilk): the flow,
    shape (ndim, *image.shape), that warps `moving_image` onto `reference_image`."""
    solver = partial(_ilk, radius=radius, num_warp=num_warp, gaussian=gaussian, prefilter=prefilter)
    _check_dtype(dtype)
    return _coarse_to_fine(reference_image, moving_image, solver, dtype=dtype)
