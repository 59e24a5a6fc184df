"""find_contours (skimage.measure._find_contours): marching squares; a CuPy image's cells are classified on the
GPU, the contours joined on the host and returned as CuPy arrays."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of

_PARAM_OPTIONS = ("high", "low")


def _mid_level(image, xp):
    """(nanmin + nanmax) / 2 in the image's dtype, as scikit-image computes it (the extremes of a CuPy image
    taken on the device, the sum made on the host in NumPy's scalar arithmetic)."""
    if xp is np:
        return (np.nanmin(image) + np.nanmax(image)) / 2.0
    lo, hi = (xp.nanmin, xp.nanmax) if image.dtype.kind == "f" else (xp.min, xp.max)
    return (lo(image).get()[()] + hi(image).get()[()]) / 2.0


@engine_aware("image", "mask")
def find_contours(image, level=None, fully_connected="low", positive_orientation="low", *, mask=None):
    """Iso-valued contours of a 2-D array at `level` (default: the middle of its finite range), as a list of
    (K, 2) float64 arrays of (row, column) points, in scikit-image's order and orientation.

    fully_connected: 'low' or 'high', the values joined across the diagonal of a saddle cell;
    positive_orientation: 'low' or 'high', the values on the left of each contour; mask: cells with a False
    (or NaN) corner are left out.
    """
    xp = xp_of(image, mask)
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
        mask = xp.ascontiguousarray(mask, dtype=np.uint8)
    if level is None:
        level = _mid_level(image, xp)
    image = xp.ascontiguousarray(image, dtype=np.float64)
    points, offsets = _core.find_contours(image, mask, float(level), fully_connected == "high",
                                          stream=stream_ptr(image))
    contours = xp.split(xp.asarray(points), offsets[1:-1].tolist()) if len(offsets) > 1 else []
    if positive_orientation == "high":
        contours = [c[::-1] for c in contours]
    return contours
