"""skimage.draw.line_nd: the n-D line's coordinates (a small coordinate generator, NumPy)."""
from __future__ import annotations

import numpy as np


def _round_safe(coords):
    """Round coordinates keeping successive ones less than 1 apart: NumPy rounds halves to even, so a run
    starting on .5 with steps of 1 is floored instead."""
    if len(coords) > 1 and coords[0] % 1 == 0.5 and coords[1] - coords[0] == 1:
        _round_function = np.floor
    else:
        _round_function = np.round
    return _round_function(coords).astype(int)


def line_nd(start, stop, *, endpoint=False, integer=True):
    """Coordinates of the ndim-connected line from `start` to `stop` (`stop` itself with `endpoint`), rounded
    to integers unless `integer` is False."""
    start = np.asarray(start)
    stop = np.asarray(stop)
    npoints = int(np.ceil(np.max(np.abs(stop - start))))
    if endpoint:
        npoints += 1
    coords = np.linspace(start, stop, num=npoints, endpoint=endpoint).T
    if integer:
        for dim in range(len(start)):
            coords[dim, :] = _round_safe(coords[dim, :])
        coords = coords.astype(int)
    return tuple(coords)
