"""skimage.draw.polygon2mask: the polygon filled straight into the mask (its box), on the polygon's engine."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import check_allocation
from ._draw import _polygon_box, _polygon_fill


@engine_aware("polygon")
def polygon2mask(image_shape, polygon):
    """A bool mask of `image_shape` set where skimage.draw.polygon(polygon[:, 0], polygon[:, 1],
    image_shape) draws (vertices (row, column); parts outside the shape are not drawn)."""
    xp = xp_of(polygon)
    host = np.asarray(polygon if xp is np else polygon.get())
    vertex_row_coords, vertex_col_coords = host.T
    r = np.atleast_1d(vertex_row_coords)
    c = np.atleast_1d(vertex_col_coords)
    minr, maxr, minc, maxc = _polygon_box(r, c, image_shape)
    check_allocation(image_shape, bool)
    mask = xp.zeros(image_shape, dtype=bool)
    rows, cols = maxr - minr + 1, maxc - minc + 1
    if rows <= 0 or cols <= 0:
        return mask
    inside = xp.zeros((rows, cols), np.uint8)
    _polygon_fill(np.ascontiguousarray(r, "float64"), np.ascontiguousarray(c, "float64"), minr, minc, inside)
    box = mask[minr:maxr + 1, minc:maxc + 1]
    if box.ndim == 2:
        box[...] = inside.view(bool)
    else:  # extra axes: whole along them, as indexing with (rows, columns) sets
        box[inside.view(bool)] = True
    return mask
