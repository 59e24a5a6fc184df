"""Scans (``cpp/src/scan``): cumulative sums along an axis on the array's engine, and the host's window sums
of them."""
from __future__ import annotations

import math

import numpy as np

from .. import _core
from .._engine import stream_ptr


def cumsum(image, *, axis, out, half=False):
    """``out[...] = numpy.cumsum(image, axis, dtype=out.dtype)``, bit for bit on both engines: each element
    converted to out's dtype as NumPy casts it, then summed one after the other along every line (integers
    wrap). ``out`` is C-contiguous of image's shape and library, of any real dtype but bool and float16;
    ``image`` may be ``out`` itself (in place) and is any real dtype but float16. ``half``: NumPy's float16
    cumsum, held in a float32 ``out`` (its values convert to float16 exactly)."""
    if out.shape != image.shape or not out.flags.c_contiguous:
        raise ValueError("cumsum: out must be C-contiguous of the input's shape")
    axis = axis % image.ndim
    shape = image.shape
    lines = (math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]))
    # one axis before `axis` and one after it: views of out, of image too where its layout allows (else a copy)
    _core.cumsum(image.reshape(lines), out.reshape(lines), 1, half=half, stream=stream_ptr(out))
    return out


def window_sums(image, *, axis, w):
    """Host window sums along `axis` of a float32/float64 NumPy array: with c its np.cumsum
    (those roundings), c[w:-1] - c[:-w - 1] along the axis (w >= 1, the axis at least w + 2 long), in one
    sweep."""
    axis = axis % image.ndim
    shape = image.shape
    lines = (math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]))
    out = np.empty(shape[:axis] + (shape[axis] - w - 1,) + shape[axis + 1:], image.dtype)
    _core.window_sums(np.ascontiguousarray(image).reshape(lines), out.reshape(lines[0], -1, lines[2]), int(w))
    return out
