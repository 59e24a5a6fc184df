"""skimage.filters' edge filters (Sobel, Scharr, Prewitt, Farid) on the ndimg engines.

scikit-image convolves with the full n-D kernel (edge weights along one axis times smoothing weights
along the others; zero weights skipped, each sum once in double as scipy's convolve) and takes the
magnitude in the float dtype. Both engines run exactly that, all axes and the magnitude in one sweep of
the stencils primitive (filters/_stencil_edges.py): one read and one write of the image, bit-identical
to scikit-image, inf and NaN included.
"""
from __future__ import annotations

import functools

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import array_argument, check_nD
from ._stencil_edges import _as_float, _convolution_taps, _masked, stencils

EDGE = np.array([1.0, 0.0, -1.0])
SOBEL_SMOOTH = np.array([1.0, 2.0, 1.0]) / 4
SCHARR_SMOOTH = np.array([3.0, 10.0, 3.0]) / 16
PREWITT_SMOOTH = np.full(3, 1 / 3)
# Farid & Simoncelli (2004), table 1, 5-tap derivative and its matching smoothing
FARID_SMOOTH = np.array([0.0376593171958126, 0.249153396177344, 0.426374573253687, 0.249153396177344,
                         0.0376593171958126])
FARID_EDGE = np.array([0.109603762960254, 0.276690988455557, 0, -0.276690988455557, -0.109603762960254])


def _check_edge_dim(ndim, edge_dim):
    if not -ndim <= edge_dim < ndim:
        raise IndexError("list assignment index out of range")


def _nd_kernel(ndim, edge_dim, edge, smooth):
    """scikit-image's n-D kernel: the edge weights along edge_dim times the smoothing weights along the others."""
    kernel = np.reshape(edge, [-1 if d == edge_dim % ndim else 1 for d in range(ndim)])
    for d in range(ndim):
        if d != edge_dim:
            kernel = kernel * np.reshape(smooth, [-1 if d == s else 1 for s in range(ndim)])
    return kernel


def _edge_filter(image, mask, axis, mode, cval, smooth, edge=EDGE):
    image = _as_float(array_argument(image, "ndim"))
    xp = xp_of(image)
    ndim = image.ndim
    axes = list(range(ndim)) if axis is None else [axis] if np.isscalar(axis) else list(axis)
    if not axes:
        return _masked(xp.zeros(image.shape, image.dtype), mask)
    for edge_dim in axes:
        _check_edge_dim(ndim, edge_dim)
    taps = _edge_stencils(ndim, tuple(axes), tuple(edge), tuple(smooth))
    scale = np.sqrt(ndim, dtype=image.dtype) if len(axes) > 1 else None
    return _masked(stencils(image, taps, mode, cval, scale), mask)


@functools.lru_cache(maxsize=64)
def _edge_stencils(ndim, axes, edge, smooth):
    return tuple(_convolution_taps(_nd_kernel(ndim, d, np.array(edge), np.array(smooth))) for d in axes)


@engine_aware("image", "mask")
def sobel(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Sobel edge filter: gradient along `axis`, or its magnitude over several axes (skimage.filters.sobel)."""
    return _edge_filter(image, mask, axis, mode, cval, SOBEL_SMOOTH)


@engine_aware("image", "mask")
def scharr(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Scharr edge filter: gradient along `axis`, or its magnitude over several axes (skimage.filters.scharr)."""
    return _edge_filter(image, mask, axis, mode, cval, SCHARR_SMOOTH)


@engine_aware("image", "mask")
def prewitt(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Prewitt edge filter: gradient along `axis`, or its magnitude over several axes (skimage.filters.prewitt)."""
    return _edge_filter(image, mask, axis, mode, cval, PREWITT_SMOOTH)


@engine_aware("image", "mask")
def farid(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Farid edge filter: gradient along `axis`, or its magnitude over several axes (skimage.filters.farid)."""
    return _edge_filter(image, mask, axis, mode, cval, FARID_SMOOTH, FARID_EDGE)


def _directional(name, axis, smooth, edge=EDGE, keyword_mask=False):
    """skimage.filters.<name>: the 2-D edge filter along one axis (0: horizontal edges, 1: vertical ones) in
    reflect mode. `keyword_mask`: mask is keyword-only, as in scikit-image's farid_h/farid_v."""

    def run(image, mask):
        check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
        image = array_argument(image, "ndim")
        return _edge_filter(image, mask, axis, "reflect", 0.0, smooth, edge)

    if keyword_mask:
        def fn(image, *, mask=None):
            return run(image, mask)
    else:
        def fn(image, mask=None):
            return run(image, mask)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name.split('_')[0].capitalize()} edge filter along axis {axis} "
                  f"({('horizontal', 'vertical')[axis]} edges) (skimage.filters.{name}).")
    return engine_aware("image", "mask")(fn)


sobel_h = _directional("sobel_h", 0, SOBEL_SMOOTH)
sobel_v = _directional("sobel_v", 1, SOBEL_SMOOTH)
scharr_h = _directional("scharr_h", 0, SCHARR_SMOOTH)
scharr_v = _directional("scharr_v", 1, SCHARR_SMOOTH)
prewitt_h = _directional("prewitt_h", 0, PREWITT_SMOOTH)
prewitt_v = _directional("prewitt_v", 1, PREWITT_SMOOTH)
farid_h = _directional("farid_h", 0, FARID_SMOOTH, FARID_EDGE, keyword_mask=True)
farid_v = _directional("farid_v", 1, FARID_SMOOTH, FARID_EDGE, keyword_mask=True)
