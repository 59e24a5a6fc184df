"""The ridge filters' per-pixel measures (``cpp/src/filters/ridges*``): each pixel's Hessian eigenvalues and
Frangi's, Sato's or Meijering's measure (or the Hessian's norm), on the Hessian's engine."""
from __future__ import annotations

from .. import _core
from .._engine import stream_ptr

Ridge = _core.Ridge


def ridge_max(hessian, *, kind: Ridge, alpha=0.0) -> float:
    """The maximum over all pixels of Meijering's measure before normalisation (``alpha`` its shaping
    constant) or of the Hessian's Frobenius norm (``Ridge.norm``); NaN if any pixel's is NaN, -inf for an
    empty image. ``hessian``: the n(n+1)/2 upper-triangle elements in row-major order (H00, H01, ...,
    H11, ...), C-contiguous float arrays of one dtype and shape."""
    return _core.ridge_max(kind, hessian, _core.RidgeParams(alpha=float(alpha)), stream=stream_ptr(hessian[0]))


def ridge_accumulate(hessian, acc, *, kind: Ridge, alpha=0.5, beta=0.5, gamma=15.0, scale=1.0, norm=1.0,
                     fill=False):
    """``acc = maximum(acc, measure)`` per pixel (NaN propagating, like numpy.maximum) for the filter
    ``kind``: Frangi's (``alpha``, ``beta``, ``gamma``), Sato's times ``scale`` or Meijering's (``alpha``)
    divided by ``norm``; with ``fill``, values <= 0 then become 1 (skimage's hessian). ``acc``: C-contiguous,
    the Hessian's shape, its dtype or float64. Returns ``acc``."""
    params = _core.RidgeParams(alpha=float(alpha), beta=float(beta), gamma=float(gamma), scale=float(scale),
                               norm=float(norm), fill=bool(fill))
    _core.ridge_accumulate(kind, hessian, acc, params, stream=stream_ptr(acc))
    return acc
