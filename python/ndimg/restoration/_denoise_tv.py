"""skimage.restoration's total-variation denoisers: Chambolle's projection (n-D; the CPU engine's iterations in
C++ on the thread pool, CuPy's over `xp`) and split Bregman (2-D plus channels; C++'s Gauss-Seidel sweep,
sequential on the CPU, a wavefront of tiles on the GPU)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._prim.reduce import numpy_sum
from .._rules import img_as_float, supported_float_type
from ..transform._warps import _channel_last


def _chambolle_xp(xp, image, weight, eps, max_num_iter):
    """Chambolle's iterations over array operations, scikit-image's step for step (the CUDA engine's
    schedule; the CPU engine's runs restoration::tv_chambolle): the estimate from the dual field p, the
    energy, the dual step."""
    ndim = image.ndim
    p = xp.zeros((ndim,) + image.shape, dtype=image.dtype)
    g = xp.zeros_like(p)
    d = xp.zeros_like(image)
    tau = 1.0 / (2.0 * ndim)
    out = image
    for i in range(max_num_iter):
        if i > 0:
            d = -p.sum(0)
            for ax in range(ndim):
                head = (slice(None),) * ax
                d[head + (slice(1, None),)] += p[(ax,) + head + (slice(0, -1),)]
            out = image + d
        energy = numpy_sum(d ** 2)   # NumPy's sums to the bit: the stopping test compares them
        for ax in range(ndim):
            g[(ax,) + (slice(None),) * ax + (slice(0, -1),)] = xp.diff(out, axis=ax)
        norm = xp.sqrt((g ** 2).sum(axis=0))[xp.newaxis, ...]
        energy += weight * numpy_sum(norm)
        norm *= tau / weight
        norm += 1.0
        p -= tau * g
        p /= norm
        energy /= float(image.size)   # scikit-image's scalar arithmetic (float32 stays float32)
        if i == 0:
            e_init = e_prev = energy
        elif abs(e_prev - energy) < eps * e_init:
            break
        else:
            e_prev = energy
    return out


def _chambolle(xp, image, weight, eps, max_num_iter):
    if max_num_iter <= 0:   # scikit-image's loop never assigns its result
        raise UnboundLocalError("cannot access local variable 'out' where it is not associated with a value")
    if image.ndim == 0:   # scikit-image's step 1 / (2 ndim)
        raise ZeroDivisionError("float division by zero")
    if type(weight) in (int, float) and weight == 0:   # scikit-image's tau / weight in Python
        raise ZeroDivisionError("float division by zero")
    if image.size == 0:   # nothing to smooth: the image itself
        return image.copy()
    # the C++ iterations cast weight and eps to the image's float type as NumPy casts Python numbers; NumPy
    # scalars (strong types in NumPy's promotion) run NumPy's steps
    if xp is not np or type(weight) not in (int, float) or type(eps) not in (int, float):
        return _chambolle_xp(xp, image, weight, eps, max_num_iter)
    image = np.ascontiguousarray(image)
    out = np.empty_like(image)
    _core.tv_chambolle(image, out, float(weight), float(eps), int(max_num_iter))
    return out


@engine_aware("image")
def denoise_tv_chambolle(image, weight=0.1, eps=2.0e-4, max_num_iter=200, *, channel_axis=None):
    """Total-variation denoising by Chambolle's projection algorithm, n-D (skimage 0.26)."""
    xp = xp_of(image)
    if image.dtype.kind != "f":
        image = img_as_float(image)
    image = image.astype(supported_float_type(image.dtype), copy=False)
    if channel_axis is None:
        return _chambolle(xp, image, weight, eps, max_num_iter)
    axis = channel_axis % image.ndim
    out = xp.zeros_like(image)
    for c in range(image.shape[axis]):
        at = (slice(None),) * axis + (c,)
        out[at] = _chambolle(xp, image[at], weight, eps, max_num_iter)
    return out


@engine_aware("image")
@_channel_last
def denoise_tv_bregman(image, weight=5.0, max_num_iter=100, eps=1e-3, isotropic=True, *, channel_axis=None):
    """Total-variation denoising by split Bregman of 2-D images (a third axis: channels, denoised together, or
    one at a time with `channel_axis`), skimage 0.26."""
    xp = xp_of(image)
    image = xp.atleast_3d(img_as_float(image))
    if image.dtype not in (np.float32, np.float64):
        raise TypeError("No matching signature found")   # scikit-image's compiled loop: float32 and float64
    if image.ndim != 3:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 3, got {image.ndim})")
    rows, cols, dims = image.shape
    if image.size and (rows < 2 or cols < 2):   # scikit-image reflects the second row and column
        raise IndexError(f"Out of bounds on buffer access (axis {0 if rows < 2 else 1})")
    out = xp.zeros((rows + 2, cols + 2, dims), image.dtype)
    weight = float(image.dtype.type(weight))
    args = (weight, int(max_num_iter), float(eps), bool(isotropic))
    if channel_axis is not None:
        # one output reused: each channel's split variables start from the previous channel's result
        channel_out = xp.zeros((rows + 2, cols + 2, 1), image.dtype)
        for c in range(dims):
            _core.tv_bregman(xp.ascontiguousarray(image[..., c:c + 1]), channel_out, *args,
                             stream=stream_ptr(channel_out))
            out[..., c] = channel_out[..., 0]
    else:
        _core.tv_bregman(xp.ascontiguousarray(image), out, *args, stream=stream_ptr(out))
    return xp.squeeze(out[1:-1, 1:-1])
