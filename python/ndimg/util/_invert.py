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
        fn = lambda x, xp, out=None: xp.invert(x, out=out)
    elif dt.kind == "u":
        top = np.iinfo(dt).max
        fn = lambda x, xp, out=None: xp.subtract(top, x, dtype=dt, out=out)
    elif dt.kind == "i":
        fn = lambda x, xp, out=None: xp.subtract(-1, x, dtype=dt, out=out)
    elif signed_float:
        fn = lambda x, xp, out=None: xp.negative(x, out=out)
    else:
        fn = lambda x, xp, out=None: xp.subtract(1, x, dtype=dt, out=out)
    return _map(image, dt, fn)
