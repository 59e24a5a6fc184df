"""isotropic_erosion/dilation/opening/closing of Dask arrays, lazy and equal to the in-memory result.

A threshold of the exact distance transform at `radius` is local: a pixel's result depends only on the
features (False pixels for an erosion, True ones for a dilation) within `radius`, that is within
floor(radius / spacing) + 1 elements along each axis. Each chunk runs the in-memory function with that halo
(opening and closing: one such pass per step). A chunk whose extended block holds no feature has none
within reach: all True (erosion) or all False (dilation). An image with no feature at all is the one case
where the in-memory result is not local: scipy's transform (and ndimg's, which follows it) then measures
from the element before the first along axis 0, and so does this path (a lazy test of the whole image
picks it).
"""
from __future__ import annotations

import math

import numpy as np

from .._engine import xp_of
from . import _isotropic as iso


def _spacing(spacing, ndim):
    return np.ones(ndim) if spacing is None else np.broadcast_to(np.asarray(spacing, np.float64), (ndim,))


def _block(block, radius, spacing, erode):
    xp = xp_of(block)
    if not bool(xp.any(block == 0) if erode else xp.any(block != 0)):
        return xp.full(block.shape, erode)
    return (iso._erode if erode else iso._dilate)(block, radius, None, spacing)


def _featureless(block, radius, spacing, erode, block_info=None):
    """The in-memory result where the whole image has no feature: the distance from the element before
    the first along axis 0 (scipy's transform with nothing to measure from), thresholded."""
    xp = xp_of(block)
    where = block_info[0]["array-location"]
    sq = 0
    for d, (start, stop) in enumerate(where):
        coord = (xp.arange(start, stop, dtype=np.float64) + (d == 0)) * float(spacing[d])
        sq = sq + (coord * coord).reshape((-1,) + (1,) * (block.ndim - 1 - d))
    dist = xp.sqrt(xp.broadcast_to(sq, block.shape))
    return dist > radius if erode else dist <= radius


def _step(image, radius, spacing, erode):
    """One erosion or dilation of a Dask image, with the input's chunks."""
    import dask.array as da
    from dask.array.overlap import ensure_minimum_chunksize

    ndim = image.ndim
    scale = _spacing(spacing, ndim)
    finite = isinstance(radius, (int, float, np.integer, np.floating)) and math.isfinite(radius)
    reach = [max(0, int(radius // s) + 1) if finite else n for s, n in zip(scale, image.shape)]
    chunks = tuple(c if len(c) == 1 or not r else (n,) if r >= n else ensure_minimum_chunksize(r, c)
                   for c, n, r in zip(image.chunks, image.shape, reach))
    depth = {d: (0 if len(c) == 1 else r) for d, (c, r) in enumerate(zip(chunks, reach))}
    meta = da.utils.meta_from_array(image._meta, ndim=ndim, dtype=bool)
    local = image.rechunk(chunks).map_overlap(_block, depth=depth, boundary="none", dtype=bool, meta=meta,
                                              radius=radius, spacing=spacing, erode=erode).rechunk(image.chunks)
    featureless = image.map_blocks(_featureless, radius, scale, erode, dtype=bool, meta=meta)
    has_feature = da.any(image == 0) if erode else da.any(image != 0)
    return da.where(has_feature, local, featureless)


def _check(fn, image, radius, out, spacing):
    if out is not None:
        raise NotImplementedError(f"ndimg.morphology.{fn.__name__}: out= arrays cannot take a lazy Dask result; "
                                  f"drop the out= argument")
    fn(np.zeros((1,) * image.ndim, image.dtype), radius, spacing=spacing)   # argument errors, at once


def isotropic_erosion(image, radius, out=None, spacing=None):
    _check(iso.isotropic_erosion, image, radius, out, spacing)
    return _step(image, radius, spacing, True)


def isotropic_dilation(image, radius, out=None, spacing=None):
    _check(iso.isotropic_dilation, image, radius, out, spacing)
    return _step(image, radius, spacing, False)


def isotropic_opening(image, radius, out=None, spacing=None):
    _check(iso.isotropic_opening, image, radius, out, spacing)
    return _step(_step(image, radius, spacing, True), radius, spacing, False)


def isotropic_closing(image, radius, out=None, spacing=None):
    _check(iso.isotropic_closing, image, radius, out, spacing)
    return _step(_step(image, radius, spacing, False), radius, spacing, True)
