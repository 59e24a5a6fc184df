"""scikit-image's morphology/_util.py helpers that several ndimg modules share."""
from __future__ import annotations

import numpy as np

from ..ndimage._binary import generate_binary_structure


def validate_connectivity(ndim, connectivity, offset):
    """scikit-image's _validate_connectivity: the footprint (`connectivity` hops, default 1, or an array of
    the image's dimensionality) and its centre (`offset`, default the middle of an odd-sized footprint)."""
    if connectivity is None:
        connectivity = 1
    if np.isscalar(connectivity):
        footprint = generate_binary_structure(ndim, connectivity)
    else:
        footprint = np.array(connectivity, bool)
        if footprint.ndim != ndim:
            raise ValueError("Connectivity dimension must be same as image")
    if offset is None:
        if any(s % 2 == 0 for s in footprint.shape):
            raise ValueError("Connectivity array must have an unambiguous center")
        offset = np.array(footprint.shape) // 2
    return footprint, offset
