"""Ridge filters (skimage.filters.frangi, hessian, sato, meijering).

Per scale, the Hessian's upper-triangle elements come from two successive first-order Gaussian
derivatives (scikit-image's ``hessian_matrix(..., use_gaussian_derivatives=True)``); the core then
computes each pixel's eigenvalues and the filter's measure and folds it into the maximum over scales.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim.ridges import Ridge, ridge_accumulate, ridge_max
from .._rules import check_nD, supported_float_type
from ..ndimage._separable import gaussian_filter

_DEFAULT_SIGMAS = range(1, 10, 2)


def _hessian_elements(image, sigma, mode, cval):
    """H00, H01, ..., H11, ... of a float image at scale `sigma` (scalar or one per axis), each
    C-contiguous in the image's dtype."""
    ndim = image.ndim
    sigma = (sigma,) * ndim if np.isscalar(sigma) else tuple(sigma)
    # small scales need a long tail: the sampled Gaussian derivative decays slowly there
    truncate = 8 if all(s > 1 for s in sigma) else 100
    # the two passes compose to a second derivative at the requested scale
    half = 1 / math.sqrt(2)
    sigma = tuple(half * s for s in sigma)
    gauss = gaussian_filter.__wrapped_impl__
    xp = xp_of(image)
    orders = [[int(d == a) for d in range(ndim)] for a in range(ndim)]
    elems = []
    for a in range(ndim):
        grad = gauss(image, sigma, order=orders[a], mode=mode, cval=cval, truncate=truncate)
        for b in range(a, ndim):
            h = gauss(grad, sigma, order=orders[b], mode=mode, cval=cval, truncate=truncate)
            elems.append(xp.ascontiguousarray(h))
    return elems


def _working_image(image, black_ridges):
    """The float image the filters work on (integers keep their values), negated for white ridges."""
    image = image.astype(supported_float_type(image.dtype), copy=False)
    return image if black_ridges else -image


def _frangi(image, *, sigmas, scale_range, scale_step, alpha, beta, gamma, black_ridges, mode, cval, fill):
    if scale_range is not None and scale_step is not None:
        warnings.warn("Use keyword parameter `sigmas` instead of `scale_range` and `scale_range` which will be "
                      "removed in version 0.17.", stacklevel=3)
        sigmas = np.arange(scale_range[0], scale_range[1], scale_step)
    check_nD(image, [2, 3])
    image = _working_image(image, black_ridges)
    xp = xp_of(image)
    sigmas = list(sigmas)
    if not sigmas:
        return (xp.ones if fill else xp.zeros)(image.shape, dtype=image.dtype)
    acc = xp.zeros(image.shape, dtype=image.dtype)
    for i, sigma in enumerate(sigmas):
        h = _hessian_elements(image, sigma, mode, cval)
        if gamma is None:  # half the largest Hessian norm of the first scale, kept for all scales
            gamma = ridge_max(h, kind=Ridge.norm) / 2
            if gamma == 0:
                gamma = 1
        ridge_accumulate(h, acc, kind=Ridge.frangi, alpha=alpha, beta=beta, gamma=gamma,
                         fill=fill and i == len(sigmas) - 1)
    return acc


@engine_aware("image")
def frangi(image, sigmas=_DEFAULT_SIGMAS, scale_range=None, scale_step=None, alpha=0.5, beta=0.5, gamma=None,
           black_ridges=True, mode='reflect', cval=0):
    """Frangi vesselness filter of a 2-D or 3-D image: the maximum over `sigmas` of Frangi's measure on the
    Hessian eigenvalues. As ``skimage.filters.frangi`` (0.26); ``gamma=None`` is half the largest Hessian
    norm at the first scale. GPU arrays run on the CUDA engine."""
    return _frangi(image, sigmas=sigmas, scale_range=scale_range, scale_step=scale_step, alpha=alpha, beta=beta,
                   gamma=gamma, black_ridges=black_ridges, mode=mode, cval=cval, fill=False)


@engine_aware("image")
def hessian(image, sigmas=_DEFAULT_SIGMAS, scale_range=None, scale_step=None, alpha=0.5, beta=0.5, gamma=15,
            black_ridges=True, mode='reflect', cval=0):
    """Hybrid Hessian filter: :func:`frangi` with every value <= 0 set to 1, as
    ``skimage.filters.hessian`` (0.26)."""
    return _frangi(image, sigmas=sigmas, scale_range=scale_range, scale_step=scale_step, alpha=alpha, beta=beta,
                   gamma=gamma, black_ridges=black_ridges, mode=mode, cval=cval, fill=True)


@engine_aware("image")
def sato(image, sigmas=_DEFAULT_SIGMAS, black_ridges=True, mode='reflect', cval=0):
    """Sato tubeness filter of a 2-D or 3-D image: the maximum over `sigmas` of sigma**2 times the geometric
    mean of the positive parts of all but the smallest Hessian eigenvalue, as ``skimage.filters.sato``."""
    check_nD(image, [2, 3])
    image = _working_image(image, black_ridges)
    xp = xp_of(image)
    acc = xp.zeros(image.shape, dtype=image.dtype)
    for sigma in sigmas:
        h = _hessian_elements(image, sigma, mode, cval)
        scale = sigma**2
        # NumPy's promotion: a float32 image meets a NumPy float64 scale (from np.arange, say) in float64
        dt = np.result_type(acc.dtype, scale)
        if dt != acc.dtype:
            acc = acc.astype(dt)
        ridge_accumulate(h, acc, kind=Ridge.sato, scale=scale)
    return acc


@engine_aware("image")
def meijering(image, sigmas=_DEFAULT_SIGMAS, alpha=None, black_ridges=True, mode='reflect', cval=0):
    """Meijering neuriteness filter (any dimensionality up to 4): per scale, the largest-magnitude
    normalised eigenvalue clipped at 0 and divided by its image maximum; the maximum over `sigmas`. As
    ``skimage.filters.meijering``; ``alpha=None`` is 1/(ndim + 1)."""
    if getattr(image, "ndim", None) == 0:  # scikit-image finds no Hessian element to index
        raise IndexError("list index out of range")
    image = _working_image(image, black_ridges)
    if alpha is None:
        alpha = 1 / (image.ndim + 1)
    xp = xp_of(image)
    acc = xp.zeros(image.shape, dtype=image.dtype)
    for sigma in sigmas:
        if image.size == 0:
            raise ValueError("zero-size array to reduction operation maximum which has no identity")
        h = _hessian_elements(image, sigma, mode, cval)
        top = ridge_max(h, kind=Ridge.meijering, alpha=alpha)
        ridge_accumulate(h, acc, kind=Ridge.meijering, alpha=alpha, norm=top if top > 0 else 1.0)
    return acc
