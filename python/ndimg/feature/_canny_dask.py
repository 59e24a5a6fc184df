"""canny over Dask arrays, chunk-correct and lazy: the smoothing (and the mask's bleed-over correction and
erosion) by ndimg's Dask filters, which keep the mode at the image's true border; the Sobel gradients and the
non-maximum suppression blockwise with a two-pixel halo (the Sobel taps reflect at the true border, as
scipy's default mode does there); the true image frame cleared as scikit-image's eroded mask clears it; and
the hysteresis keeps the 8-connected components of the candidates (ndimg's Dask labelling, joined across
chunk borders) that hold a strong pixel anywhere in the image.
"""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from .._rules import supported_float_type
from ..filters._thresholding_dask import blocks, delayed, tree
from ..ndimage._footprint import to_host
from . import _canny as _mem


def _strong_labels(labels, classes):
    """The labels of a chunk's strong pixels, on the host."""
    ids = labels[classes == 2]
    return np.unique(to_host(ids))


def _merge(parts):
    return np.unique(np.concatenate(parts))


def _keep(labels, strong):
    xp = xp_of(labels)
    return (labels > 0) & xp.isin(labels, xp.asarray(strong))


def canny(image, sigma=1.0, low_threshold=None, high_threshold=None, mask=None, use_quantiles=False, *,
          mode="constant", cval=0.0):
    import dask.array as da

    from .. import _dask
    from ..filters import gaussian
    from ..ndimage import binary_erosion, label

    if use_quantiles:
        raise NotImplementedError("ndimg.feature.canny does not take Dask arrays with use_quantiles=True: the "
                                  "thresholds are quantiles of the whole image's gradient magnitude; compute() "
                                  "the array first")
    low, high = _mem.thresholds(image, low_threshold, high_threshold, use_quantiles)
    kw = dict(sigma=sigma, mode=mode, cval=cval, preserve_range=False)
    float_type = supported_float_type(image.dtype)
    eroded = None
    if mask is not None:
        _mem.check_mask_shape(image.shape, np.shape(mask))
        if not _dask.is_dask(mask):   # an in-memory mask in the chunks' array library (NumPy or CuPy)
            mask = da.from_array(xp_of(image._meta).asarray(mask), chunks=image.chunks)
        mask = mask.astype(bool).rechunk(image.chunks)
        # a NumPy scalar zero: CuPy refuses a NumPy 0-d array beside CuPy chunks, and dask then falls back to a
        # NumPy meta for the result (its later blockwise samples mixing NumPy and CuPy)
        image = da.where(mask, image, image.dtype.type(0))
        eroded = binary_erosion(mask, _mem._EIGHT, border_value=0)
    smoothed = gaussian(image, **kw)
    if mode == "constant" or mask is not None:
        weights = da.ones_like(image, dtype=float_type) if mask is None else mask.astype(float_type)
        smoothed = smoothed / (gaussian(weights, **kw) + np.finfo(float_type).eps)
    fn = _mem.smoothed_classes.__wrapped_impl__
    classes = _dask._blockwise(_mem.smoothed_classes, fn, lambda ndim, **_: 2, "ndimg.feature.canny",
                               ("smoothed", "eroded"), (smoothed, low, high, eroded), {})
    # the true frame: scikit-image's eroded mask is clear there
    classes[0, :] = 0
    classes[-1, :] = 0
    classes[:, 0] = 0
    classes[:, -1] = 0
    labels, _ = label(classes > 0, structure=_mem._EIGHT)
    strong = tree((delayed(_strong_labels)(lab, cls) for lab, cls in blocks(labels, classes)), _merge)
    meta = da.utils.meta_from_array(image._meta, ndim=2, dtype=bool)
    parts = labels.to_delayed(optimize_graph=False)
    out = np.empty(parts.shape, dtype=object)
    for idx in np.ndindex(*parts.shape):
        shape = tuple(c[j] for c, j in zip(labels.chunks, idx))
        out[idx] = da.from_delayed(delayed(_keep)(parts[idx], strong), shape=shape, dtype=bool, meta=meta)
    return da.block(out.tolist())
