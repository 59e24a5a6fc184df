"""find_contours (skimage.measure._find_contours): marching squares on the CPU engine."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, host_only

_PARAM_OPTIONS = ("high", "low")




@engine_aware("image", "mask")
def find_contours(image, level=None, fully_connected="low", positive_orientation="low", *, mask=None):
    """Iso-valued contours of a 2-D array at `level` (default: the middle of its finite range), as a list of
    (K, 2) float64 arrays of (row, column) points, in scikit-image's order and orientation.

    fully_connected: 'low' or 'high', the values joined across the diagonal of a saddle cell;
    positive_orientation: 'low' or 'high', the values on the left of each contour; mask: cells with a False
    (or NaN) corner are left out.
    """
    host_only("find_contours", image, mask)
    if fully_connected not in _PARAM_OPTIONS:
        raise ValueError('Parameters "fully_connected" must be either "high" or "low".')
    if positive_orientation not in _PARAM_OPTIONS:
        raise ValueError('Parameters "positive_orientation" must be either "high" or "low".')
    if image.shape[0] < 2 or image.shape[1] < 2:
        raise ValueError("Input array must be at least 2x2.")
    if image.ndim != 2:
        raise ValueError("Only 2D arrays are supported.")
    if mask is not None:
        if mask.shape != image.shape:
            raise ValueError('Parameters "array" and "mask" must have same shape.')
        if not np.can_cast(mask.dtype, bool, casting="safe"):
            raise TypeError('Parameter "mask" must be a binary array.')
        mask = np.ascontiguousarray(mask, dtype=np.uint8)
    if level is None:
        level = (np.nanmin(image) + np.nanmax(image)) / 2.0
    points, offsets = _core.find_contours(np.ascontiguousarray(image, dtype=np.float64), mask, float(level),
                                          fully_connected == "high")
    contours = np.split(points, offsets[1:-1]) if len(offsets) > 1 else []
    if positive_orientation == "high":
        contours = [c[::-1] for c in contours]
    return contours
