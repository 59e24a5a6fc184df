"""skimage.feature.hog (0.26): the cell histograms and the block normalisation on the input's engine
(cpp/src/feature/hog.*); the optional visualisation drawn on the host."""
from __future__ import annotations

import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import channel_as_last_axis, supported_float_type

_NORMS = {"L1": _core.HogNorm.L1, "L1-sqrt": _core.HogNorm.L1_sqrt, "L2": _core.HogNorm.L2,
          "L2-Hys": _core.HogNorm.L2_Hys}


def _hog_image(hist, shape, cell, float_dtype):
    """scikit-image's HOG picture: per cell and orientation bin, a line through the cell centre perpendicular
    to the bin's middle angle, of the bin's value. A cell's line is a translate of its neighbours' wherever
    int() of the end points (toward zero) moves with the centre, so each distinct offset is drawn once."""
    from ..draw import line

    (c_row, c_col), (n_r, n_c, n_o) = cell, hist.shape
    radius = min(c_row, c_col) // 2 - 1
    mid = np.pi * (np.arange(n_o) + 0.5) / n_o
    dr_arr, dc_arr = radius * np.sin(mid), radius * np.cos(mid)
    out = np.zeros(shape, dtype=float_dtype)
    rows = np.arange(n_r) * c_row + c_row // 2
    cols = np.arange(n_c) * c_col + c_col // 2
    for o in range(n_o):
        dr, dc = dr_arr[o], dc_arr[o]
        # end points relative to the centres (int() as scikit-image's), grouped by offset
        r_off = np.stack([np.trunc(rows - dc), np.trunc(rows + dc)], 1).astype(np.intp) - rows[:, None]
        c_off = np.stack([np.trunc(cols + dr), np.trunc(cols - dr)], 1).astype(np.intp) - cols[:, None]
        for ro in np.unique(r_off, axis=0):
            sel_r = np.flatnonzero((r_off == ro).all(1))
            for co in np.unique(c_off, axis=0):
                sel_c = np.flatnonzero((c_off == co).all(1))
                rr, cc = line(int(ro[0]), int(co[0]), int(ro[1]), int(co[1]))
                R = rows[sel_r][:, None, None] + rr
                C = cols[sel_c][None, :, None] + cc
                vals = hist[np.ix_(sel_r, sel_c, [o])]
                np.add.at(out, (np.broadcast_to(R, np.broadcast_shapes(R.shape, C.shape)),
                                np.broadcast_to(C, np.broadcast_shapes(R.shape, C.shape))),
                          np.broadcast_to(vals, np.broadcast_shapes(R.shape, C.shape)))
    return out


@engine_aware("image")
def hog(image, orientations=9, pixels_per_cell=(8, 8), cells_per_block=(3, 3), block_norm='L2-Hys',
        visualize=False, transform_sqrt=False, feature_vector=True, *, channel_axis=None):
    """Histogram of Oriented Gradients (skimage.feature.hog): central-difference gradients, per-cell
    orientation histograms of the gradient magnitudes, normalised over overlapping blocks of cells. Float
    results within rounding of scikit-image's (its arctan2/hypot are NumPy's vector routines)."""
    image, _ = channel_as_last_axis(image, channel_axis)
    xp = xp_of(image)
    image = xp.atleast_2d(xp.asarray(image))
    float_dtype = supported_float_type(image.dtype)
    image = image.astype(float_dtype, copy=False)
    multichannel = channel_axis is not None
    ndim_spatial = image.ndim - 1 if multichannel else image.ndim
    if ndim_spatial != 2:
        raise ValueError('Only images with two spatial dimensions are supported. If using with color/multichannel '
                         'images, specify `channel_axis`.')
    if transform_sqrt:
        image = xp.sqrt(image)
    s_row, s_col = image.shape[:2]
    c_row, c_col = pixels_per_cell
    b_row, b_col = cells_per_block
    n_cells_row = int(s_row // c_row)
    n_cells_col = int(s_col // c_col)
    hist = xp.zeros((n_cells_row, n_cells_col, orientations), dtype=float)
    c_row, c_col = operator.index(c_row), operator.index(c_col)  # scikit-image's Cython takes C ints
    if hist.size:
        pixels = xp.ascontiguousarray(image if multichannel else image[:, :, None])
        _core.hog_histograms(pixels, c_row, c_col, hist, stream=stream_ptr(pixels))
    hog_image = None
    if visualize:
        host = hist if xp is np else hist.get()
        hog_image = xp.asarray(_hog_image(host, (s_row, s_col), (c_row, c_col), float_dtype))
    n_blocks_row = (n_cells_row - b_row) + 1
    n_blocks_col = (n_cells_col - b_col) + 1
    if n_blocks_col <= 0 or n_blocks_row <= 0:
        raise ValueError('The input image is too small given the values of pixels_per_cell and cells_per_block. '
                         f'It should have at least: {b_row * c_row} rows and {b_col * c_col} cols.')
    blocks = xp.zeros((n_blocks_row, n_blocks_col, b_row, b_col, orientations), dtype=float_dtype)
    norm = _NORMS.get(block_norm) if isinstance(block_norm, str) else None
    if norm is None:
        raise ValueError('Selected block normalization method is invalid.')
    if blocks.size:
        _core.hog_normalize(hist, norm, blocks, stream=stream_ptr(hist))
    if feature_vector:
        blocks = blocks.ravel()
    if visualize:
        return blocks, hog_image
    return blocks
