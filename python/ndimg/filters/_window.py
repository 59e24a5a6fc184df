"""skimage.filters.window: an n-D window, a 1-D scipy.signal window resampled along the distance from
the centre (CPU only: it builds a small array from a formula, no input image). The resampling is ndimg's
B-spline map_coordinates at any order 0-5 (scikit-image's default: linear)."""
from __future__ import annotations

import numpy as np
from scipy.signal import get_window


def _as_int(val, atol=1e-3):
    """Values within `atol` of integers as int64 (scikit-image's safe_as_int), else ValueError."""
    frac = np.asarray(val) % 1
    if not np.allclose(np.minimum(frac, 1 - frac), 0, atol=atol):
        raise ValueError(f"Integer argument required but received {val}, check inputs.")
    return np.round(val).astype(np.int64)


def _resampling(map_args=None, output_shape=None, order=None, clip=True, preserve_range=False):
    """The options of skimage.transform.warp that `warp_kwargs` may set (mode and cval are fixed): the
    spline order and whether to clip. The others do not change a float64 resampling at given coordinates."""
    if output_shape is not None:
        _as_int(output_shape)
    order = 1 if order is None else order
    if not 0 <= order <= 5:
        raise ValueError("Spline interpolation order has to be in the range 0-5.")
    return order, clip


def _resample(w, coord, order):
    """w (samples at 0 .. n-1) at the coordinates, as scikit-image's warp samples it: ndimg's B-spline
    map_coordinates, zero beyond the samples (scipy's 'grid-constant'), prefiltered for orders above 1."""
    from ..ndimage import map_coordinates

    return map_coordinates(w, coord[None], order=order, mode="grid-constant", cval=0.0, prefilter=order > 1)


def window(window_type, shape, warp_kwargs=None):
    """An n-D window of `shape` made from ``scipy.signal.get_window(window_type)`` (skimage 0.26)."""
    shape = (_as_int(shape),) if np.isscalar(shape) else tuple(_as_int(shape))
    if any(s < 0 for s in shape):
        raise ValueError("invalid shape")
    if len(shape) == 0:
        raise ValueError("Number of dimensions must be greater than zero")
    size = max(shape)
    w = get_window(window_type, size, fftbins=False)
    order, clip = _resampling(**(warp_kwargs or {}))

    # distance of every pixel from the centre on the scale of the longest axis; the reference's sampling
    # position of w is that distance + centre rounded to float32
    center = size / 2 - 0.5
    dist = 0
    for g in np.meshgrid(*[np.arange(s, dtype=np.float32) * (size / s) for s in shape], sparse=True, indexing="ij"):
        g -= center
        dist = dist + g * g
    coord = (np.sqrt(dist) + center).astype(np.float32)

    # The reference interpolates w, as an (size, 1, ..., 1) image, at (coord, 0, ..., 0): the 1-D spline of w
    # at coord (the unit axes' taps at their own sample: weight 1, or reproduced by their prefilter)
    out = _resample(w, coord, order)
    if clip:  # to the range of w, widened to the fill value 0 where the output reaches it
        lo, hi = np.nanmin(w), np.nanmax(w)
        if not lo <= 0 <= hi and np.nanmin(out) <= 0 <= np.nanmax(out):
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        np.clip(out, lo, hi, out=out)
    return out
