"""skimage.util.crop: a view of the caller's array (a copy with copy=True)."""
from __future__ import annotations

from numbers import Integral

import numpy as np

from .._engine import engine_aware


def _invalid(n):
    return ValueError(f"crop_width has an invalid length: {n}\ncrop_width should be a sequence of N pairs, a single "
                      f"pair, or a single integer")


@engine_aware("ar", native=False)
def crop(ar, crop_width, copy=False, order="K"):
    """`ar` without crop_width[i] = (before, after) elements at the ends of each axis i (one int or one pair
    for every axis)."""
    if not hasattr(ar, "__cuda_array_interface__"):
        ar = np.array(ar, copy=False)   # as scikit-image: NumPy refuses input it would have to copy (a list)
    if isinstance(crop_width, Integral):
        crops = [[crop_width, crop_width]] * ar.ndim
    elif isinstance(crop_width[0], Integral):
        if len(crop_width) == 1:
            crops = [[crop_width[0], crop_width[0]]] * ar.ndim
        elif len(crop_width) == 2:
            crops = [crop_width] * ar.ndim
        else:
            raise _invalid(len(crop_width))
    elif len(crop_width) == 1:
        crops = [crop_width[0]] * ar.ndim
    elif len(crop_width) == ar.ndim:
        crops = crop_width
    else:
        raise _invalid(len(crop_width))
    cropped = ar[tuple(slice(a, ar.shape[i] - b) for i, (a, b) in enumerate(crops))]
    if copy:
        return cropped.copy(order=order)
    return cropped
