"""skimage.feature.draw_multiblock_lbp (0.26) over xp: the 8 neighbour blocks of a multi-block LBP code
blended into an RGB float copy of the image, on the image's engine."""
from __future__ import annotations

import operator

import numpy as np

from .._engine import engine_aware, xp_of
from ._haar import _rgb_float_copy

# neighbour blocks relative to the central one, clockwise from the top left (bit 7 first)
_NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))


@engine_aware("image")
def draw_multiblock_lbp(image, r, c, width, height, lbp_code=0, color_greater_block=(1, 1, 1),
                        color_less_block=(0, 0.69, 0.96), alpha=0.5):
    """The image (as RGB floats) with the neighbour blocks of the multi-block LBP window at (r, c) tinted:
    `color_greater_block` where the code's bit says the block is brighter than the centre, else
    `color_less_block` (skimage.feature.draw_multiblock_lbp)."""
    xp = xp_of(image)
    # NumPy's TypeError for a non-integer position or size (CuPy's slices would truncate it)
    r, c, width, height = (operator.index(v) for v in (r, c, width, height))
    greater = xp.asarray(np.asarray(color_greater_block, dtype=np.float64))
    less = xp.asarray(np.asarray(color_less_block, dtype=np.float64))
    output = _rgb_float_copy(image, xp)
    offsets = np.array(_NEIGHBOURS)
    offsets[:, 0] *= height
    offsets[:, 1] *= width
    for k, (dr, dc) in enumerate(offsets):
        top, left = r + height + dr, c + width + dc
        block = (slice(top, top + height), slice(left, left + width))
        color = greater if lbp_code & (1 << (7 - k)) else less
        output[block] = (1 - alpha) * output[block] + alpha * color
    return output
