"""Connected components (``cpp/src/label``): union-find over n-D arrays on the array's engine."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr, xp_of


def seeded_components(image, *, low, high, out=None):
    """The elements above ``low`` whose face-connected component (scipy.ndimage.label's default structure)
    of {image > low} holds an element above ``high``, as a bool array (written into ``out`` when given).
    Comparisons in double; float16 is read as float32 (exactly). ``image`` has at least one dimension."""
    if out is None:
        out = xp_of(image).empty(image.shape, dtype=bool)
    if image.dtype == np.float16:
        image = image.astype(np.float32)
    _core.seeded_components(image, float(low), float(high), out, stream=stream_ptr(out))
    return out


def seeded_roots(image, *, low, high):
    """seeded_components of ``image`` (a new bool array) and each element's component, as an int64 array
    (C-contiguous): -1 for the elements at or below ``low``, else the C-order index of the first element of
    its component (the same on both engines). For merging the components of blocks across their faces."""
    xp = xp_of(image)
    out, roots = xp.empty(image.shape, dtype=bool), xp.empty(image.shape, dtype=np.int64)
    if image.dtype == np.float16:
        image = image.astype(np.float32)
    _core.seeded_roots(image, float(low), float(high), out, roots, stream=stream_ptr(out))
    return out, roots
