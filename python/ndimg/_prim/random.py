"""NumPy's random streams (``cpp/src/random``) on the array's engine: the numbers a NumPy generator would
draw, computed where the array lives (any position of the stream, by jumping ahead)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr

_WORD = (1 << 64) - 1


def pcg64_random(bit_generator, *, offset, out):
    """``out[...]`` = ``numpy.random.Generator(bit_generator).random(out.shape)`` after ``offset`` draws, bit for
    bit, leaving ``bit_generator`` where it is. ``bit_generator``: a ``numpy.random.PCG64`` (one 64-bit draw
    per value); ``out``: a C-contiguous float64 array of NumPy or a GPU library."""
    if type(bit_generator) is not np.random.PCG64:
        raise TypeError("pcg64_random: a numpy.random.PCG64 bit generator expected")
    st = bit_generator.state["state"]
    s, inc = int(st["state"]), int(st["inc"])
    _core.pcg64_random(s >> 64, s & _WORD, inc >> 64, inc & _WORD, int(offset), out, stream=stream_ptr(out))
    return out
