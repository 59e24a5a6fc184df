"""skimage.feature's derivative features (corner.py in scikit-image 0.26): the Hessian and the structure
tensor (n-D), their per-pixel eigenvalues, the Hessian determinant, the shape index and the corner measures
built on them.

Derivatives come from ndimg's separable filters (Gaussian, Gaussian derivatives, Sobel) and xp.gradient;
eigenvalues and SURF's box-filter determinant from ``_prim.feature_deriv`` (C++, both engines).
"""
from __future__ import annotations

import math
import warnings
from itertools import combinations_with_replacement

import numpy as np

from .._blocks import blockable, blockwise
from .._engine import engine_aware, xp_of
from .._prim import feature_deriv as _fd
from .._rules import as_image, check_nD, supported_float_type
from ..filters._gaussian import gaussian
from ..ndimage._separable import correlate1d, gaussian_filter, sobel
from ..transform._integral import integral_image
from ._corner_cy import _float_image


def _check_order(order, ndim, message_nd, message_bad):
    if order == "xy" and ndim > 2:
        raise ValueError(message_nd)
    if order not in ("rc", "xy"):
        raise ValueError(message_bad)


def _hessian_gaussian(image, sigma, mode, cval, order):
    """The Hessian by two successive first-order Gaussian derivatives (scikit-image's
    use_gaussian_derivatives=True), each along the axes in `order`."""
    ndim = image.ndim
    if np.isscalar(sigma):
        sigma = (sigma,) * ndim
    # a sampled Gaussian derivative decays slowly at small scales: a long tail keeps the edges right
    truncate = 8 if all(s > 1 for s in sigma) else 100
    sigma = tuple(s / math.sqrt(2) for s in sigma)   # two passes compose to the requested scale
    orders = [[int(d == a) for d in range(ndim)] for a in range(ndim)]
    gauss = gaussian_filter.__wrapped_impl__

    def deriv(x, a):
        return gauss(x, sigma, order=orders[a], mode=mode, cval=cval, truncate=truncate)

    grads = [deriv(image, a) for a in range(ndim)]
    axes = range(ndim) if order == "rc" else range(ndim - 1, -1, -1)
    return [deriv(grads[a0], a1) for a0, a1 in combinations_with_replacement(axes, 2)]


def gradient(f, axis):
    """np.gradient(f, axis=axis) of a float array: central differences inside by ndimg's threaded correlation
    (the same values: halving is exact), one-sided ones at both ends. Arrays with inf or NaN take xp.gradient
    (the correlation's zero centre tap would turn an infinite centre into NaN)."""
    xp = xp_of(f)
    n = f.shape[axis]
    if n < 2 or not bool(xp.isfinite(f).all()):
        return xp.gradient(f, axis=axis)
    out = correlate1d.__wrapped_impl__(f, (-0.5, 0.0, 0.5), axis=axis, mode='nearest')
    at = lambda i: (slice(None),) * (axis % f.ndim) + (i,)
    out[at(0)] = f[at(1)] - f[at(0)]
    out[at(-1)] = f[at(-1)] - f[at(-2)]
    return out


def hessian_finite_differences(smooth, axes):
    """The Hessian's upper-triangle elements of a smoothed image by twice np.gradient, pairs of `axes`."""
    grads = [gradient(smooth, a) for a in range(smooth.ndim)]
    return [gradient(grads[a0], a1) for a0, a1 in combinations_with_replacement(axes, 2)]


def _hessian_elements(image, sigma, mode, cval, order, use_gaussian_derivatives):
    if use_gaussian_derivatives:
        return _hessian_gaussian(image, sigma, mode, cval, order)
    smooth = gaussian.__wrapped_impl__(image, sigma=sigma, mode=mode, cval=cval)
    if image.ndim == 1:   # np.gradient gives one array, not a list: scikit-image indexes into it
        xp = xp_of(image)
        return [xp.gradient(xp.gradient(smooth)[0], axis=0)]
    return hessian_finite_differences(smooth, range(image.ndim) if order == "rc" else range(image.ndim - 1, -1, -1))


def _warn_gaussian_derivatives(use_gaussian_derivatives, stacklevel):
    if use_gaussian_derivatives is None:
        warnings.warn("use_gaussian_derivatives currently defaults to False, but will change to True in a future "
                      "version. Please specify this argument explicitly to maintain the current behavior",
                      category=FutureWarning, stacklevel=stacklevel)
    return bool(use_gaussian_derivatives)


@engine_aware("image")
def hessian_matrix_elements(image, sigma=1, mode='constant', cval=0, order='rc', use_gaussian_derivatives=False):
    """hessian_matrix's elements as a tuple (the form Dask blocks return), without its warning."""
    image = _float_image(image)
    _check_order(order, image.ndim, "order='xy' is only supported for 2D images.", f"unrecognized order: {order}")
    return tuple(_hessian_elements(image, sigma, mode, cval, order, use_gaussian_derivatives))


@engine_aware("image")
def hessian_matrix(image, sigma=1, mode='constant', cval=0, order='rc', use_gaussian_derivatives=None):
    """The upper-triangle elements of each pixel's Hessian (n-D), as ``skimage.feature.hessian_matrix``:
    finite differences of the Gaussian-smoothed image, or Gaussian-derivative filters."""
    if order in ("rc", "xy"):   # a bad order is refused before the warning, as scikit-image does
        use_gaussian_derivatives = _warn_gaussian_derivatives(use_gaussian_derivatives, 4)
    return list(hessian_matrix_elements.__wrapped_impl__(image, sigma, mode, cval, order, use_gaussian_derivatives))


@engine_aware("image")
def structure_tensor_elements(image, sigma=1, mode='constant', cval=0, order='rc'):
    """structure_tensor's elements as a tuple (the form Dask blocks return)."""
    image = as_image(image)
    _check_order(order, image.ndim, 'Only "rc" order is supported for dim > 2.',
                 f'order {order} is invalid. Must be either "rc" or "xy"')
    if not np.isscalar(sigma):
        sigma = tuple(sigma)
        if len(sigma) != image.ndim:
            raise ValueError('sigma must have as many elements as image has axes')
    xp = xp_of(image)
    image = xp.squeeze(image)
    check_nD(image, range(2, 6))
    image = _float_image(image)
    ders = [sobel.__wrapped_impl__(image, axis=a, mode=mode, cval=cval) for a in range(image.ndim)]
    if order == "xy":
        ders = ders[::-1]
    return tuple(gaussian.__wrapped_impl__(d0 * d1, sigma=sigma, mode=mode, cval=cval)
                 for d0, d1 in combinations_with_replacement(ders, 2))


@engine_aware("image")
def structure_tensor(image, sigma=1, mode='constant', cval=0, order='rc'):
    """The upper-triangle elements of each pixel's structure tensor (2-D to 5-D): Gaussian-weighted products
    of Sobel derivatives, as ``skimage.feature.structure_tensor``."""
    return list(structure_tensor_elements.__wrapped_impl__(image, sigma, mode, cval, order))


def _symmetric_image(elems, xp):
    """(..., n, n) full matrices from the upper-triangle elements (n: the elements' dimensionality)."""
    first = elems[0]
    n = first.ndim
    full = xp.zeros(first.shape + (n, n), dtype=first.dtype)
    for idx, (r, c) in enumerate(combinations_with_replacement(range(n), 2)):
        full[..., r, c] = elems[idx]
        full[..., c, r] = elems[idx]
    return full


def _eigvals(elems):
    """Decreasing eigenvalues of each pixel's symmetric matrix, leading axis (skimage's
    _symmetric_compute_eigenvalues)."""
    elems = list(elems)
    xp = xp_of(elems[0])
    first = elems[0]
    n = 2 if len(elems) == 3 else first.ndim
    fast = (first.dtype in (np.float32, np.float64) and 1 <= n <= _fd.MAX_SYM_DIM
            and len(elems) == n * (n + 1) // 2
            and all(getattr(e, "dtype", None) == first.dtype and e.shape == first.shape for e in elems))
    if fast:
        out = xp.empty((n,) + first.shape, dtype=first.dtype)
        return _fd.sym_eigvals([xp.ascontiguousarray(e) for e in elems], out=out)
    if len(elems) == 3:   # other dtypes: scikit-image's expression, in the elements' type
        m00, m01, m11 = elems
        eigs = xp.empty((2,) + m00.shape, m00.dtype)
        eigs[:] = (m00 + m11) / 2
        hsqrtdet = xp.sqrt(m01**2 + ((m00 - m11) / 2) ** 2)
        eigs[0] += hsqrtdet
        eigs[1] -= hsqrtdet
        return eigs
    eigs = xp.linalg.eigvalsh(_symmetric_image(elems, xp))[..., ::-1]
    return xp.moveaxis(eigs, -1, 0)


@engine_aware("elems")
def _eigvals_engine(elems):
    return _eigvals(elems)


def _eigvals_any(elems):
    """_eigvals on the elements' engine; Dask elements block by block (each pixel's matrix is its own)."""
    elems = list(elems)
    if not any(type(e).__module__.startswith("dask") for e in elems):
        return _eigvals_engine(elems)
    import dask.array as da

    elems = [da.asarray(e) for e in elems]
    first = elems[0].rechunk(elems[0].chunks)
    elems = [e.rechunk(first.chunks) for e in elems]
    n = 2 if len(elems) == 3 else first.ndim
    meta = _eigvals_engine([np.zeros_like(e._meta, shape=(1,) * e.ndim) for e in elems])
    return da.map_blocks(lambda *blocks: _eigvals_engine(blocks), *elems, new_axis=0,
                         chunks=((n,),) + first.chunks, dtype=meta.dtype, meta=meta[(slice(0, 0),) * meta.ndim])


def hessian_matrix_eigvals(H_elems):
    """Eigenvalues of each pixel's Hessian, decreasing, along the leading axis
    (``skimage.feature.hessian_matrix_eigvals``); Dask elements give a Dask array."""
    return _eigvals_any(H_elems)


def structure_tensor_eigenvalues(A_elems):
    """Eigenvalues of each pixel's structure tensor, decreasing, along the leading axis
    (``skimage.feature.structure_tensor_eigenvalues``); Dask elements give a Dask array."""
    return _eigvals_any(A_elems)


@engine_aware("image")
def hessian_matrix_det(image, sigma=1, approximate=True):
    """Determinant of each pixel's Hessian (``skimage.feature.hessian_matrix_det``): for a 2-D image with
    `approximate`, SURF's box filters on the integral image (float64); else the exact determinant of
    hessian_matrix's finite differences (the image's float type)."""
    image = _float_image(image)
    xp = xp_of(image)
    if image.ndim == 2 and approximate:
        if math.isnan(sigma):
            raise ValueError("cannot convert float NaN to integer")
        if math.isinf(sigma):
            raise OverflowError("cannot convert float infinity to integer")
        integral = xp.ascontiguousarray(integral_image.__wrapped_impl__(image), dtype=np.float64)
        return _fd.hessian_det_box(integral, sigma=sigma, out=xp.empty(image.shape, np.float64))
    h = _hessian_elements(image, sigma, "constant", 0, "rc", False)
    if image.ndim == 2:
        h00, h01, h11 = h
        return h00 * h11 - h01 * h01
    if image.ndim == 3:   # cofactor expansion: pointwise, not LAPACK's LU per pixel (the same to rounding)
        h00, h01, h02, h11, h12, h22 = h
        return h00 * (h11 * h22 - h12 * h12) - h01 * (h01 * h22 - h12 * h02) + h02 * (h01 * h12 - h11 * h02)
    return xp.linalg.det(_symmetric_image(h, xp))


@engine_aware("image")
def shape_index(image, sigma=1, mode='constant', cval=0):
    """Koenderink and van Doorn's shape index of a 2-D image from its Hessian's eigenvalues, in [-1, 1], NaN
    where flat (``skimage.feature.shape_index``)."""
    image = _float_image(image)
    xp = xp_of(image)
    l1, l2 = _eigvals(_hessian_elements(image, sigma, mode, cval, "rc", False))

    def measure(l1, l2):
        with np.errstate(divide='ignore', invalid='ignore'):
            return ((2.0 / np.pi) * xp_of(l1).arctan((l2 + l1) / (l2 - l1)),)

    (out,) = _pointwise(measure, (xp.empty(l1.shape, l1.dtype),), l1, l2)
    return out


def _pointwise(fn, outs, *inputs):
    """outs[k][...] = fn(*inputs)[k] pixel by pixel: NumPy's operations over blocks on the CPU engine's threads
    (the same operations, the same values), CuPy's on the whole arrays. `fn` returns a tuple."""
    if blockable(*outs, *inputs):
        def block(*arrays):
            for o, r in zip(arrays[:len(outs)], fn(*arrays[len(outs):])):
                o[...] = r
        blockwise(block, *outs, *inputs)
    else:
        for o, r in zip(outs, fn(*inputs)):
            o[...] = r
    return outs


def _ratio(num, den):
    """num / den where den != 0, else 0 (scikit-image's masked division)."""
    xp = xp_of(den)
    nonzero = den != 0
    return xp.where(nonzero, num / xp.where(nonzero, den, 1), 0)


@engine_aware("image")
def corner_kitchen_rosenfeld(image, mode='constant', cval=0):
    """Kitchen and Rosenfeld's corner measure (``skimage.feature.corner_kitchen_rosenfeld``): second
    derivatives along the gradient's normal, from Sobel derivatives (values kept: no img_as_float)."""
    float_dtype = supported_float_type(image.dtype)
    image = image.astype(float_dtype, copy=False)
    xp = xp_of(image)

    def ders(x):
        return [sobel.__wrapped_impl__(x, axis=a, mode=mode, cval=cval) for a in range(x.ndim)]

    imy, imx = ders(image)
    imxy, imxx = ders(imx)
    imyy, _ = ders(imy)

    def measure(imx, imy, imxx, imxy, imyy):
        num = imxx * imy**2 + imyy * imx**2 - 2 * imxy * imx * imy
        return (_ratio(num, imx**2 + imy**2),)

    (out,) = _pointwise(measure, (xp.empty(image.shape, dtype=float_dtype),), imx, imy, imxx, imxy, imyy)
    return out


def _tensor2(image, sigma):
    return structure_tensor_elements.__wrapped_impl__(image, sigma, order='rc')


@engine_aware("image")
def corner_harris(image, method='k', k=0.05, eps=1e-6, sigma=1):
    """Harris' corner measure from the structure tensor A: det(A) - k trace(A)**2 (method 'k') or Noble's
    2 det(A) / (trace(A) + eps) (``skimage.feature.corner_harris``)."""
    arr, arc, acc = _tensor2(image, sigma)

    def measure(arr, arc, acc):
        det = arr * acc - arc**2
        trace = arr + acc
        return (det - k * trace**2,) if method == 'k' else (2 * det / (trace + eps),)

    # the result's dtype as NumPy's promotion of the expression gives it (a float64 k or eps promotes)
    probe = measure(*(np.zeros(1, arr.dtype),) * 3)[0]
    (out,) = _pointwise(measure, (xp_of(arr).empty(arr.shape, dtype=probe.dtype),), arr, arc, acc)
    return out


@engine_aware("image")
def corner_shi_tomasi(image, sigma=1):
    """Shi and Tomasi's corner measure: the structure tensor's smaller eigenvalue
    (``skimage.feature.corner_shi_tomasi``)."""
    arr, arc, acc = _tensor2(image, sigma)
    xp = xp_of(arr)

    def measure(arr, arc, acc):
        return (((arr + acc) - xp_of(arr).sqrt((arr - acc) ** 2 + 4 * arc**2)) / 2,)

    (out,) = _pointwise(measure, (xp.empty(arr.shape, dtype=arr.dtype),), arr, arc, acc)
    return out


@engine_aware("image")
def corner_foerstner(image, sigma=1):
    """Foerstner's error-ellipse size w = det(A) / trace(A) and roundness q = 4 det(A) / trace(A)**2 of the
    structure tensor A (``skimage.feature.corner_foerstner``)."""
    arr, arc, acc = _tensor2(image, sigma)
    xp = xp_of(arr)

    def measure(arr, arc, acc):
        det = arr * acc - arc**2
        trace = arr + acc
        nonzero = trace != 0
        xp = xp_of(trace)
        return _ratio(det, trace), xp.where(nonzero, 4 * det / xp.where(nonzero, trace, 1) ** 2, 0)

    return _pointwise(measure, (xp.empty(arr.shape, arr.dtype), xp.empty(arr.shape, arr.dtype)), arr, arc, acc)
