"""skimage.measure's image moments (skimage/measure/_moments.py) over the array's library (NumPy or CuPy).

An image's moments on the GPU come from one pass of ``_core.measure_image_moments`` (float64 power sums,
rounded once); on the CPU from one contraction per axis with the powers of the (scaled, centred) coordinates
(BLAS matrix products, in scikit-image's float32 summation order for float32 images). The moments of many
labelled regions at once (regionprops) come from the per-label accumulator ``_core.measure_label_moments``.
The formulas from moments onwards (normalisation, Hu's invariants, the inertia tensor) are written here once
for one image and for a stack of regions (leading axis); for one image on the GPU they run on its few
moments on the host (a few NumPy operations instead of many tiny kernels).
"""
from __future__ import annotations

import itertools
from math import comb

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ..ndimage._footprint import to_host


def float_type(dtype):
    """scikit-image's _supported_float_type: float32 for float16/float32 input, float64 otherwise; complex
    refused."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        raise ValueError("complex valued input is not supported")
    return np.dtype(np.float32) if dtype in (np.float16, np.float32) else np.dtype(np.float64)


def _check_2d(coords):
    if coords.ndim != 2:
        raise ValueError(f"The parameter `image` must be a 2-dimensional array")


@engine_aware("coords")
def moments_coords(coords, order=3):
    return moments_coords_central(coords, 0, order=order)


@engine_aware("coords")
def moments_coords_central(coords, center=None, order=3):
    if isinstance(coords, tuple):   # np.nonzero's (rows, cols, ...): points as rows
        xp = xp_of(*coords)
        coords = xp.stack([xp.asarray(c) for c in coords], axis=-1)
    xp = xp_of(coords)
    _check_2d(xp.asarray(coords))
    if not hasattr(coords, "shape"):   # scikit-image checks a converted copy, then reads the shape of its own
        raise AttributeError(f"'{type(coords).__name__}' object has no attribute 'shape'")
    ndim = coords.shape[1]
    ftype = float_type(coords.dtype)
    if center is None:
        center = xp.mean(coords, axis=0, dtype=float)
    centred = coords.astype(ftype, copy=False) - (xp.asarray(center) if not np.isscalar(center) else center)
    # powers (npoints, ndim, order + 1), multiplied axis by axis into (npoints, order + 1, ..., order + 1)
    powers = xp.stack([centred ** k for k in range(order + 1)], axis=-1)
    calc = powers[:, 0]
    for axis in range(1, ndim):
        calc = calc[..., None] * powers[:, axis].reshape((powers.shape[0],) + (1,) * axis + (order + 1,))
    return calc.sum(axis=0)


def _on_gpu(a):
    return xp_of(a) is not np


def _power_sums(image, center, order, spacing):
    """_moments_about in float64 by one pass of the core on the image's device (up to 6 axes and 64 terms)."""
    ndim = image.ndim
    spacing = np.ones(ndim) if spacing is None else np.asarray(to_host(spacing), np.float64)
    center = np.asarray(to_host(center), np.float64)
    # scikit-image reads spacing[d] and center[d] per axis: too few is its IndexError, more are ignored
    spacing, center = [float(spacing[d]) for d in range(ndim)], [float(center[d]) for d in range(ndim)]
    if image.dtype == np.float16:
        image = image.astype(np.float32)
    out = xp_of(image).empty((order + 1,) * ndim, np.float64)
    _core.measure_image_moments(image, center, spacing, int(order), out, stream=stream_ptr(out))
    return out


def _core_takes(image, order):
    return 1 <= image.ndim <= 6 and 0 <= order <= 7 and (order + 1) ** image.ndim <= 64


def _moments_about(image, center, order, spacing, dtype=None):
    """sum over the image of value * prod_d (index_d * spacing_d - center_d)^p_d for p_d <= order, in `dtype`
    (default: scikit-image's float type of the image)."""
    xp = xp_of(image)
    ftype = float_type(image.dtype)
    # the core's one pass on the GPU; the CPU keeps BLAS's contractions: scikit-image's summation order (float32
    # sums round alike; regionprops' orientation reads the sign of a zero mu11 summed so)
    if xp is not np and _core_takes(image, order):
        return _power_sums(image, center, order, spacing).astype(dtype or ftype, copy=False)
    if dtype is not None and dtype != ftype:
        return _moments_about(image.astype(dtype), center, order, spacing)
    # the default spacing in the computation's type: float32 images keep float32 coordinates (NumPy's
    # promotion of the spacing and centre values decides the type of the sums, as in scikit-image)
    spacing = np.ones(image.ndim, dtype=ftype) if spacing is None else spacing
    calc = image.astype(ftype, copy=False)
    orders = xp.arange(order + 1, dtype=ftype)
    axes = list(range(image.ndim))
    k, p = image.ndim, image.ndim + 1   # einsum labels: the contracted axis, the powers' axis
    for dim, length in enumerate(image.shape):
        delta = xp.arange(length, dtype=ftype) * spacing[dim] - center[dim]
        powers = delta[:, None] ** orders
        # einsum's greedy contraction: the summation order of scikit-image's, so float32 sums round alike
        calc = xp.einsum(calc, axes[:dim] + [k] + axes[dim + 1:], powers, [k, p], axes[:dim] + [p] + axes[dim + 1:],
                         optimize="greedy")
    return calc


@engine_aware("image")
def moments(image, order=3, *, spacing=None):
    return _moments_about(image, (0,) * image.ndim, order, spacing)


@engine_aware("image")
def moments_central(image, center=None, order=3, *, spacing=None, **kwargs):
    if _on_gpu(image):
        if center is not None:
            return _moments_about(image, center, order, spacing, dtype=np.float64).astype(float_type(image.dtype))
        return xp_of(image).asarray(_central_on_host(image, order, spacing))
    if center is None:   # the centroid from the raw moments, then the binomial shift
        return raw_to_central(_moments_about(image, (0,) * image.ndim, order, spacing))
    return _moments_about(image, center, order, spacing)


def _central_on_host(image, order, spacing):
    """moments_central of a GPU image about its centroid, as a NumPy array. scikit-image sums float32 images in
    float32 in NumPy einsum's order, which no GPU sum follows: the GPU sums in float64 and rounds once, closer
    to the exact moments than either float32 sum (the registry compares them within the reference's own
    float32 error); the binomial shift runs on the host."""
    raw = _moments_about(image, (0,) * image.ndim, order, spacing, dtype=np.float64).get()
    return raw_to_central(raw).astype(float_type(image.dtype), copy=False)


def raw_to_central(m):
    """Central moments from raw moments by the binomial expansion about the centroid. As scikit-image's
    moments_raw_to_central: the moments above the order (sum of the powers) stay 0; 2-D and 3-D moments of
    order < 4 are computed in float64 with the first-order ones exactly 0, others in the moments' dtype with
    its order of operations (float32 sums round alike)."""
    xp = xp_of(m)
    dtype = m.dtype
    ndim, order = m.ndim, m.shape[0] - 1
    fast = ndim in (2, 3) and order < 4
    if fast:
        m = m.astype(np.float64, copy=False)
    m0 = m[(0,) * ndim]
    c = [m[tuple(int(a == d) for a in range(ndim))] / m0 for d in range(ndim)]
    mu = xp.zeros_like(m)
    for p in itertools.product(range(order + 1), repeat=ndim):
        if sum(p) > order or (fast and sum(p) == 1):
            continue
        acc = mu[p]
        for k in itertools.product(*(range(pi + 1) for pi in p)):
            if ndim == 2:
                val = comb(p[0], k[0]) * (-c[0]) ** (p[0] - k[0]) * (comb(p[1], k[1]) * (-c[1]) ** (p[1] - k[1])) * m[k]
            else:
                val = m[k]
                for d in range(ndim):
                    val = val * comb(p[d], k[d])
                    val = val * (-c[d]) ** (p[d] - k[d])
            acc = acc + val
        mu[p] = acc
    return mu.astype(dtype, copy=False)


def normalized(mu, order, spacing, lead=0):
    """moments_normalized of a stack (the first `lead` axes index regions): mu_p / scale**|p| /
    mu_0**(|p| / ndim + 1) for 2 <= |p| and p within the order, NaN below, 0 beyond the order; each element
    rounded as scikit-image's per-entry loop rounds it, in a few whole-array operations."""
    xp = xp_of(mu)
    shape = mu.shape[lead:]
    ndim = len(shape)
    pre = (slice(None),) * lead
    spacing = np.ones(ndim) if spacing is None else np.asarray(spacing)
    scale = float(np.min(spacing))
    cube = pre + (slice(0, order + 1),) * ndim
    sums = np.indices(mu[cube].shape[lead:]).sum(0)   # |p| of each entry
    # the powers of the zeroth moments (one per region) by NumPy on the host, in mu's dtype as the loop's
    # weak Python exponents keep it (CuPy's complex64 pow is ulps off NumPy's)
    mu0 = mu[pre + (0,) * ndim]
    mu0 = mu0.get()[()] if xp is not np else mu0   # one region: a NumPy scalar, whose pow scikit-image's is
    den = np.ones(np.shape(mu0) + sums.shape, mu.dtype)
    div = np.ones(sums.shape, mu.dtype)
    for k in range(2, int(sums.max(initial=0)) + 1):
        den[..., sums == k] = (mu0 ** (k / ndim + 1))[..., None]
        div[sums == k] = scale ** k
    nu = xp.zeros_like(mu)
    nu[cube] = (mu[cube] / xp.asarray(div)) / xp.asarray(den)
    nu[cube][..., xp.asarray(sums < 2)] = np.nan
    return nu


@engine_aware("mu")
def moments_normalized(mu, order=3, spacing=None):
    if np.any(np.array(mu.shape) <= order):
        raise ValueError("Shape of image moments must be >= `order`")
    if _on_gpu(mu):   # a few moments: on the host
        return xp_of(mu).asarray(normalized(mu.get(), order, None if spacing is None else to_host(spacing)))
    return normalized(mu, order, spacing)


def hu(nu, lead=0):
    """Hu's seven invariants of normalised 2-D moments (last axis: the seven; leading axes kept)."""
    xp = xp_of(nu)
    pre = (slice(None),) * lead
    n = lambda p, q: nu[pre + (p, q)]  # noqa: E731
    s, d = n(2, 0) + n(0, 2), n(2, 0) - n(0, 2)
    r0, r1 = n(3, 0) + n(1, 2), n(2, 1) + n(0, 3)
    q0, q1 = n(3, 0) - 3 * n(1, 2), 3 * n(2, 1) - n(0, 3)
    a, b = r0 * (r0 * r0 - 3 * r1 * r1), r1 * (3 * r0 * r0 - r1 * r1)
    return xp.stack([
        s,
        d * d + 4 * n(1, 1) * n(1, 1),
        q0 * q0 + q1 * q1,
        r0 * r0 + r1 * r1,
        q0 * a + q1 * b,
        d * (r0 * r0 - r1 * r1) + 4 * n(1, 1) * r0 * r1,
        q1 * a - q0 * b,
    ], axis=-1)


@engine_aware("nu", native=False)
def moments_hu(nu):
    dtype = np.float32 if nu.dtype == np.float32 else np.float64
    if nu.ndim != 2:   # scikit-image's compiled kernel takes 2-D float arrays only
        raise TypeError("No matching signature found")
    for axis in (0, 1):
        if nu.shape[axis] < 4:
            raise IndexError(f"Out of bounds on buffer access (axis {axis})")
    if _on_gpu(nu):   # seven numbers: on the host
        return xp_of(nu).asarray(hu(nu.get().astype(dtype, copy=False)))
    return hu(nu.astype(dtype, copy=False))


@engine_aware("image")
def centroid(image, *, spacing=None):
    m = _moments_about(image, (0,) * image.ndim, 1, spacing)
    gpu = _on_gpu(m)
    if gpu:   # ndim quotients: on the host
        m = m.get()
    eye = tuple(np.eye(image.ndim, dtype=int))
    c = m[eye] / m[(0,) * image.ndim]
    return xp_of(image).asarray(c) if gpu else c


def tensor(mu, ndim, lead=0):
    """The inertia tensor (..., ndim, ndim) of central moments (the first `lead` axes index regions)."""
    xp = xp_of(mu)
    pre = (slice(None),) * lead
    mu0 = mu[pre + (0,) * ndim]
    sq = [mu[pre + tuple(2 * int(a == d) for a in range(ndim))] for d in range(ndim)]
    total = sum(sq[1:], sq[0])
    out = xp.zeros(mu.shape[:lead] + (ndim, ndim), dtype=mu.dtype)
    for d in range(ndim):   # I_dd: the second moments of every axis but d
        out[..., d, d] = (total - sq[d]) / mu0
    for i, j in itertools.combinations(range(ndim), 2):
        v = -mu[pre + tuple(int(a in (i, j)) for a in range(ndim))] / mu0
        out[..., i, j] = v
        out[..., j, i] = v
    return out


@engine_aware("image")   # mu (or T) is a small parameter: NumPy beside a GPU image goes to the image's device
def inertia_tensor(image, mu=None, *, spacing=None):
    if _on_gpu(image):
        return xp_of(image).asarray(_tensor_on_host(image, mu, spacing))
    if mu is None:
        mu = moments_central(image, order=2, spacing=spacing)
    return tensor(xp_of(image).asarray(mu), image.ndim)


def _tensor_on_host(image, mu, spacing):
    """inertia_tensor of a GPU image as a NumPy array: ndim**2 entries from a few moments, on the host."""
    mu = _central_on_host(image, 2, spacing) if mu is None else np.asarray(to_host(mu))
    return tensor(mu, image.ndim)


def eigvals_desc(t):
    """The eigenvalues of symmetric tensors (..., n, n), clipped at 0, in decreasing order."""
    xp = xp_of(t)
    ev = xp.clip(xp.linalg.eigvalsh(t), 0, None)
    return ev[..., ::-1]


@engine_aware("image")
def inertia_tensor_eigvals(image, mu=None, T=None, *, spacing=None):
    xp = xp_of(image)
    if xp is np:
        T = inertia_tensor(image, mu, spacing=spacing) if T is None else xp.asarray(T)
        return sorted(eigvals_desc(T), reverse=True)
    # the ndim x ndim tensor's eigenvalues by NumPy's LAPACK, as scikit-image's: its rounding, and its
    # LinAlgError for a non-finite tensor (cupy.linalg.eigvalsh returns NaN)
    T = _tensor_on_host(image, mu, spacing) if T is None else np.asarray(to_host(T))
    ev = xp.asarray(eigvals_desc(T))
    return [ev[k] for k in range(ev.shape[0])]
