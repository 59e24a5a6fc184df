"""skimage.color's colour differences (skimage/color/delta_e.py) over NumPy or CuPy.

Each difference is one pass of the C++ colour family (cpp/src/color, ndimg::color::difference): the formula
per pixel in double, in scikit-image's order of operations, rounded once to the result's dtype (float32 where
both inputs are float32 or float16, as scikit-image's, else float64). An image against one colour reads the
colour through zero strides. Results agree with scikit-image's to rounding: it computes float32 inputs partly
in float32.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import supported_float_type

_D = _core.ColorDifference


def _pixels(c, shape):
    """Channel-last `c` broadcast to the pixel shape, in a dtype the C++ pass reads (float16 as float32)."""
    if c.dtype == np.float16 or not c.dtype.isnative:
        c = c.astype(np.float32 if c.dtype == np.float16 else c.dtype.newbyteorder("="))
    return xp_of(c).broadcast_to(c, shape + c.shape[-1:])


def _difference(lab1, lab2, channel_axis, kind, k=(), dtype=None):
    """The difference `kind` (parameters k) between the first 3 channels of two images, or an image and colours
    that broadcast to its pixels."""
    xp = xp_of(lab1, lab2)
    lab1, lab2 = xp.asarray(lab1), xp.asarray(lab2)
    dt = dtype or supported_float_type((lab1.dtype, lab2.dtype))
    c1 = xp.moveaxis(lab1, channel_axis, -1)
    c2 = xp.moveaxis(lab2, channel_axis, -1)
    for c in (c1, c2):
        if c.shape[-1] < 3:   # scikit-image's unpacking of L, a, b
            raise ValueError(f"not enough values to unpack (expected 3, got {c.shape[-1]})")
    shape = np.broadcast_shapes(c1.shape[:-1], c2.shape[:-1])
    out = xp.empty(shape, dt)
    _core.color_difference(_pixels(c1, shape), _pixels(c2, shape), out, kind, [float(v) for v in k],
                           stream=stream_ptr(out))
    return out[()] if out.ndim == 0 else out


@engine_aware("lab1", "lab2")
def deltaE_cie76(lab1, lab2, channel_axis=-1):
    return _difference(lab1, lab2, channel_axis, _D.Cie76)


@engine_aware("lab1", "lab2")
def deltaE_ciede94(lab1, lab2, kH=1, kC=1, kL=1, k1=0.045, k2=0.015, *, channel_axis=-1):
    return _difference(lab1, lab2, channel_axis, _D.Ciede94, (kH, kC, kL, k1, k2))


@engine_aware("lab1", "lab2")
def deltaE_ciede2000(lab1, lab2, kL=1, kC=1, kH=1, *, channel_axis=-1):
    xp = xp_of(lab1, lab2)
    lab1, lab2 = xp.asarray(lab1), xp.asarray(lab2)
    channel_axis = channel_axis % lab1.ndim
    one = lab1.ndim == 1 and lab2.ndim == 1
    if one:
        lab1, lab2, channel_axis = lab1[None, :], lab2[None, :], channel_axis + 1
    out = _difference(lab1, lab2, channel_axis, _D.Ciede2000, (kL, kC, kH))
    return out[0] if one else out


@engine_aware("lab1", "lab2")
def deltaE_cmc(lab1, lab2, kL=1, kC=1, *, channel_axis=-1):
    # one pixel each: scikit-image computes on NumPy scalars, whose in-place sums promote float32 to float64
    one = np.ndim(lab1) == 1 and np.ndim(lab2) == 1
    return _difference(lab1, lab2, channel_axis, _D.Cmc, (kL, kC), dtype=np.float64 if one else None)
