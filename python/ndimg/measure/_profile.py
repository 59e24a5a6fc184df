"""profile_line (skimage.measure.profile): intensities along a scan line, sampled by ndimg's
map_coordinates (both engines)."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import interpolation_order
from ..ndimage import map_coordinates

_GRID_MODES = {"constant": "grid-constant", "wrap": "grid-wrap"}   # scikit-image's _fix_ndimage_mode


def _line_coordinates(src, dst, linewidth=1):
    """(2, length, linewidth) sample coordinates: `length` points from src to dst (both included, one pixel
    apart or less), each spread over `linewidth` points across the line."""
    src = np.asarray(src, dtype=float)
    dst = np.asarray(dst, dtype=float)
    (src_row, src_col), (dst_row, dst_col) = src, dst
    d_row, d_col = dst - src
    theta = np.arctan2(d_row, d_col)
    length = int(np.ceil(np.hypot(d_row, d_col) + 1))
    line_col = np.linspace(src_col, dst_col, length)
    line_row = np.linspace(src_row, dst_row, length)
    col_width = (linewidth - 1) * np.sin(-theta) / 2
    row_width = (linewidth - 1) * np.cos(theta) / 2
    rows = np.stack([np.linspace(r - row_width, r + row_width, linewidth) for r in line_row])
    cols = np.stack([np.linspace(c - col_width, c + col_width, linewidth) for c in line_col])
    return np.stack([rows, cols])


@engine_aware("image")
def profile_line(image, src, dst, linewidth=1, order=None, mode="reflect", cval=0.0, *, reduce_func=np.mean):
    """Intensities of `image` (2-D, or 3-D with channels last) along the line src -> dst, `linewidth` wide,
    interpolated with splines of `order`; the samples across the line reduced by `reduce_func` (None: kept)."""
    xp = xp_of(image)
    order = interpolation_order(image.dtype, order)
    mode = _GRID_MODES.get(mode, mode)
    coords = _line_coordinates(src, dst, linewidth=linewidth)
    if xp is not np:
        coords = xp.asarray(coords)
    sample = dict(prefilter=order > 1, order=order, mode=mode, cval=cval)
    if image.ndim == 3:
        pixels = xp.stack([map_coordinates(image[..., i], coords, **sample) for i in range(image.shape[2])])
        pixels = xp.transpose(pixels, (1, 2, 0))
    else:
        pixels = map_coordinates(image, coords, **sample)
    pixels = xp.flip(pixels, axis=1)
    if reduce_func is None:
        return pixels
    try:
        return reduce_func(pixels, axis=1)
    except TypeError:   # a function of one 1-D array
        return xp.apply_along_axis(reduce_func, arr=pixels, axis=1)
