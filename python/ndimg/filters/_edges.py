"""skimage.filters' separable edge filters (Sobel, Scharr, Prewitt, Farid) on the ndimg engines.

scikit-image convolves with the full n-D kernel (edge weights along one axis times smoothing weights
along the others). On the CPU engine that kernel runs as 1-D passes: in constant mode each later pass
reads cval times the sums of the earlier passes' weights outside the image, which is what the n-D kernel
sees there. The CUDA engine runs the n-D kernels themselves, all axes and the magnitude in one kernel
(filters/_stencil_edges.py): one read and one write of the image, no fallback to decide.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from .._rules import array_argument, check_nD, img_as_float, supported_float_type
from ..ndimage._correlate import _correlate_or_convolve
from ..ndimage._separable import Pass, run_passes
from ._stencil_edges import _convolution_taps, stencils_cuda

EDGE = np.array([1.0, 0.0, -1.0])
SOBEL_SMOOTH = np.array([1.0, 2.0, 1.0]) / 4
SCHARR_SMOOTH = np.array([3.0, 10.0, 3.0]) / 16
PREWITT_SMOOTH = np.full(3, 1 / 3)
# Farid & Simoncelli (2004), table 1, 5-tap derivative and its matching smoothing
FARID_SMOOTH = np.array([0.0376593171958126, 0.249153396177344, 0.426374573253687, 0.249153396177344,
                         0.0376593171958126])
FARID_EDGE = np.array([0.109603762960254, 0.276690988455557, 0, -0.276690988455557, -0.109603762960254])


def _as_float(image):
    if image.dtype.kind == "f":
        return image.astype(supported_float_type(image.dtype), copy=False)
    return img_as_float(image)


def _check_edge_dim(ndim, edge_dim):
    if not -ndim <= edge_dim < ndim:
        raise IndexError("list assignment index out of range")


def _axis_passes(ndim, edge_dim, edge, smooth, mode, cval):
    """The passes of one edge kernel. As in scikit-image, a negative edge_dim also gets smoothed along
    its own axis (the kernel there is edge * smooth)."""
    kernel = {d: np.ones(1) for d in range(ndim)}
    _check_edge_dim(ndim, edge_dim)
    kernel[edge_dim % ndim] = edge
    for d in range(ndim):
        if d != edge_dim:
            kernel[d] = kernel[d] * smooth
    passes, scale = [], 1.0
    for d in range(ndim):
        k = kernel[d][::-1]  # convolution, so the correlation weights are reversed
        passes.append(Pass(d, k, mode, cval * scale))
        scale *= float(k.sum())
    return passes


def _mask_result(result, mask):
    """Zero the result where the mask, eroded by its full-connectivity neighbourhood (border 0), is off."""
    if mask is None:
        return result
    xp = xp_of(result)
    mask = xp.asarray(mask) != 0
    counts = xp.empty(mask.shape, np.uint16)
    run_passes(mask, counts, [Pass(d, [1, 1, 1], "constant", 0) for d in range(mask.ndim)])
    result *= counts == 3 ** mask.ndim
    return result


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
        return _mask_result(xp.zeros(image.shape, image.dtype), mask)
    if xp is not np:
        return _mask_result(_edge_cuda(image, axes, edge, smooth, mode, cval), mask)
    parts = [run_passes(image, xp.empty(image.shape, image.dtype),
                        _axis_passes(ndim, edge_dim, edge, smooth, mode, cval)) for edge_dim in axes]
    output = _magnitude(parts, xp)
    if not bool(xp.isfinite(output.sum())):
        # The passes also multiply the edge kernel's zero taps (0 * inf is NaN) and keep each pass's sum in
        # the float type (it may overflow where the whole sum does not); scikit-image's n-D convolution skips
        # zero weights and sums once. A result with inf or NaN is made again its way.
        parts = [_correlate_or_convolve(image, _nd_kernel(ndim, edge_dim, edge, smooth), None, mode, cval, 0, True,
                                        None) for edge_dim in axes]
        output = _magnitude(parts, xp)
    return _mask_result(output, mask)


def _edge_cuda(image, axes, edge, smooth, mode, cval):
    """The CUDA engine's edge image or magnitude: scikit-image's n-D kernels (zero taps skipped, each sum
    once in double as scipy's convolve), squared, summed, rooted and divided in the float dtype, in one
    kernel."""
    ndim = image.ndim
    for edge_dim in axes:
        _check_edge_dim(ndim, edge_dim)
    stencils = _edge_stencils(ndim, tuple(axes), tuple(edge), tuple(smooth))
    scale = np.sqrt(ndim, dtype=image.dtype) if len(axes) > 1 else None
    return stencils_cuda(image, stencils, mode, cval, scale)


@functools.lru_cache(maxsize=64)
def _edge_stencils(ndim, axes, edge, smooth):
    return tuple(_convolution_taps(_nd_kernel(ndim, d, np.array(edge), np.array(smooth))) for d in axes)


def _magnitude(parts, xp):
    """The one edge image, or the magnitude of several: sqrt(sum of squares) / sqrt(ndim), every step in the
    float dtype, into parts[0]."""
    output = parts[0]
    if len(parts) > 1:
        scale = np.sqrt(output.ndim, dtype=output.dtype)
        if xp is np:  # one sweep on the thread pool, the same operations in the same order as below
            _core.root_sum_squares(parts, output, float(scale))
        else:
            output *= output
            for res in parts[1:]:
                res *= res
                output += res
            xp.sqrt(output, out=output)
            output /= scale
    return output


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
