"""skimage.draw.polygon2mask: the polygon filled straight into the mask (its box), on the polygon's engine."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import check_allocation
from ._draw import _polygon_mask


@engine_aware("polygon")
def polygon2mask(image_shape, polygon):
    """A bool mask of `image_shape` set where skimage.draw.polygon(polygon[:, 0], polygon[:, 1],
    image_shape) draws (vertices (row, column); parts outside the shape are not drawn)."""
    xp = xp_of(polygon)
    host = np.asarray(polygon if xp is np else polygon.get())
    vertex_row_coords, vertex_col_coords = host.T
    (minr, minc), inside = _polygon_mask(vertex_row_coords, vertex_col_coords, image_shape, xp)
    check_allocation(image_shape, bool)
    mask = xp.zeros(image_shape, dtype=bool)
    if inside.size == 0:
        return mask
    box = mask[minr:minr + inside.shape[0], minc:minc + inside.shape[1]]
    if box.ndim == 2:
        box[...] = inside.view(bool)
    else:  # extra axes: whole along them, as indexing with (rows, columns) sets
        box[inside.view(bool)] = True
    return mask
