"""skimage.util.invert over NumPy and CuPy (NumPy on the CPU engine's threads)."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware
from ._dtype import _map


@engine_aware("image", native=False)   # as scikit-image, a byte-swapped dtype is refused by the ufuncs
def invert(image, signed_float=False):
    """skimage.util.invert: logical not, the dtype's maximum minus the value, -1 minus it,
    or for floats 1 minus it (-value with signed_float). Unsigned and signed integers are mirrored in their
    own range (the subtraction wraps in the dtype, as scikit-image's does)."""
    dt = image.dtype
    if dt == bool:
        fn = lambda x, xp: ~x
    elif dt.kind == "u":
        top = np.iinfo(dt).max
        fn = lambda x, xp: xp.subtract(top, x, dtype=dt)
    elif dt.kind == "i":
        fn = lambda x, xp: xp.subtract(-1, x, dtype=dt)
    elif signed_float:
        fn = lambda x, xp: -x
    else:
        fn = lambda x, xp: xp.subtract(1, x, dtype=dt)
    return _map(image, dt, fn)
