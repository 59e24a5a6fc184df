"""skimage.util.montage over NumPy and CuPy."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of


@engine_aware("arr_in", native=False)
def montage(arr_in, fill="mean", rescale_intensity=False, grid_shape=None, padding_width=0, *, channel_axis=None):
    """The images of arr_in (K, M, N[, C]) tiled row by row on a grid (square by default), `padding_width`
    apart, the rest filled with `fill` (the mean of all images by default); rescale_intensity stretches each
    image to its dtype's range first."""
    if channel_axis is not None:
        if not hasattr(arr_in, "__cuda_array_interface__"):
            arr_in = np.asarray(arr_in)
        axes = (channel_axis,) if np.isscalar(channel_axis) else tuple(channel_axis)
        if len(axes) > 1:
            raise ValueError("only a single channel axis is currently supported")
        if axes[0] != -1:
            arr_in = xp_of(arr_in).moveaxis(arr_in, axes[0], -1)
    else:
        arr_in = (arr_in if hasattr(arr_in, "__cuda_array_interface__") else np.asarray(arr_in))[..., None]
    if arr_in.ndim != 4:
        raise ValueError("Input array has to be 3-dimensional for grayscale images, or 4-dimensional with a "
                         "`channel_axis` specified.")
    xp = xp_of(arr_in)
    n_images, n_rows, n_cols, n_chan = arr_in.shape
    if grid_shape:
        ntiles_row, ntiles_col = (int(s) for s in grid_shape)
    else:
        ntiles_row = ntiles_col = int(np.ceil(np.sqrt(n_images)))
    if rescale_intensity:
        from ..exposure._exposure import rescale_intensity as rescale

        # scikit-image rescales the caller's images in place; ndimg rescales a copy
        arr_in = arr_in.copy()
        for k in range(n_images):
            arr_in[k] = rescale(arr_in[k])
    if isinstance(fill, str) and fill == "mean":
        fill = arr_in.mean(axis=(0, 1, 2))
    fill = xp.atleast_1d(xp.asarray(fill)).astype(arr_in.dtype)
    pad = padding_width
    out = xp.empty(((n_rows + pad) * ntiles_row + pad, (n_cols + pad) * ntiles_col + pad, n_chan), dtype=arr_in.dtype)
    if fill.size < n_chan:   # scikit-image indexes one fill value per channel
        raise IndexError(f"index {fill.size} is out of bounds for axis 0 with size {fill.size}")
    out[...] = fill[:n_chan]
    for k in range(n_images):
        r, c = divmod(k, ntiles_col)
        top, left = pad + (n_rows + pad) * r, pad + (n_cols + pad) * c
        out[top:top + n_rows, left:left + n_cols] = arr_in[k]
    return out if channel_axis is not None else out[..., 0]
