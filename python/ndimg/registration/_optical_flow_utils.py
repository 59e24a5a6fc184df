"""The coarse-to-fine frame of scikit-image's optical flow estimators (0.26) over xp: image pyramids by
ndimg.transform.pyramid_reduce, flows carried to the next level by ndimg.ndimage.zoom."""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from ..ndimage import zoom
from ..transform._pyramids import pyramid_reduce
from ..util._dtype import convert


def _get_warp_points(grid, flow):
    """The coordinates each pixel samples: its own (the sparse `grid`) plus the flow."""
    out = flow.copy()
    for idx, g in enumerate(grid):
        out[idx, ...] += g
    return out


def _resize_flow(flow, shape):
    """`flow` at `shape` (nearest neighbour) with its vectors scaled by the change of resolution."""
    xp = xp_of(flow)
    scale = [n / o for n, o in zip(shape, flow.shape[1:])]
    scale_factor = xp.asarray(np.array(scale, dtype=flow.dtype).reshape((-1,) + (1,) * len(shape)))
    return scale_factor * zoom(flow, [1] + scale, order=0, mode="nearest", prefilter=False)


def _get_pyramid(image, downscale=2.0, nlevel=10, min_size=16):
    """The image and its reductions by `downscale` while its smallest side exceeds downscale * min_size
    (at most `nlevel` levels), coarsest first."""
    pyramid = [image]
    size = min(image.shape)
    count = 1
    while count < nlevel and size > downscale * min_size:
        level = pyramid_reduce(pyramid[-1], downscale, channel_axis=None)
        pyramid.append(level)
        size = min(level.shape)
        count += 1
    return pyramid[::-1]


def _coarse_to_fine(image0, image1, solver, downscale=2, nlevel=10, min_size=16, dtype=np.float32):
    """`solver(level0, level1, flow0)` from the coarsest pyramid level (zero flow) to the finest, each
    level starting from the previous one's flow."""
    if image0.shape != image1.shape:
        raise ValueError("Input images should have the same shape")
    if np.dtype(dtype).char not in "efdg":
        raise ValueError("Only floating point data type are valid for optical flow")
    xp = xp_of(image0, image1)
    pyramid = list(zip(_get_pyramid(convert(image0, dtype), downscale, nlevel, min_size),
                       _get_pyramid(convert(image1, dtype), downscale, nlevel, min_size)))
    flow = xp.zeros((pyramid[0][0].ndim,) + pyramid[0][0].shape, dtype=dtype)
    flow = solver(pyramid[0][0], pyramid[0][1], flow)
    for level0, level1 in pyramid[1:]:
        flow = solver(level0, level1, _resize_flow(flow, level0.shape))
    return flow
