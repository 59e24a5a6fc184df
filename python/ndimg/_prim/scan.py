"""Scans (``cpp/src/scan``): cumulative sums along an axis on the array's engine."""
from __future__ import annotations

import math

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
