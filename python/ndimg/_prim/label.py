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
