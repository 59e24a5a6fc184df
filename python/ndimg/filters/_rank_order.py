"""skimage.filters.rank_order, sort-based on both engines."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import array_argument


@engine_aware("image", native=False)  # the values keep the input's byte order
def rank_order(image):
    """Each pixel's index among the sorted distinct values of `image` (labels of dtype
    np.min_scalar_type(image.size)), and those distinct values."""
    image = array_argument(image, "reshape")
    xp = xp_of(image)
    if image.size == 0:  # scikit-image indexes the last sorted value
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    flat = image.reshape(-1)
    label_dtype = np.min_scalar_type(flat.size)
    order = xp.argsort(flat)
    ordered = flat[order]
    if xp is not np and flat.dtype.kind in "fc" and bool(xp.isnan(ordered[-1])):
        # each NaN ranks apart, in the order NumPy's unstable argsort leaves them (which scikit-image's labels
        # follow; CuPy's sort is stable): that order from the host, only for images holding NaN
        order = xp.asarray(np.argsort(flat.get()))
        ordered = flat[order]
    step = ordered[:-1] != ordered[1:]  # NaNs differ from everything, as in skimage
    ranks = xp.zeros(flat.size, dtype=label_dtype)
    ranks[1:] = xp.cumsum(step, dtype=label_dtype)
    labels = xp.empty_like(ranks)
    labels[order] = ranks
    values = xp.concatenate([ordered[:1], ordered[1:][step]]).astype(image.dtype, copy=False)
    return labels.reshape(image.shape), values
