"""peak_local_max and corner_peaks of a Dask array, correct across chunks.

The peak mask is local: each pixel against the maximum of its footprint (a halo of half the footprint,
scipy's 'nearest' edge at the image border), above a threshold from two global reductions (min, max), away
from the border. Each block sends its candidates (global coordinates, values) to one final task, which orders
them as scikit-image does (decreasing value, ties in C order) and applies the global steps: the flat-image
rule, the min_distance selection and num_peaks. Only the candidates, never the image, meet in that task.
Labels need each label's own flat-region rule and selection over the label's whole extent: refused.
"""
from __future__ import annotations

import itertools
import warnings

import dask
import dask.array as da
import numpy as np
from dask.array.overlap import ensure_minimum_chunksize

from ..ndimage._footprint import to_host
from ..ndimage._rank import maximum_filter
from ._peak import _border_width, _select, _suppress_connected, _threshold


def _local_max(block, footprint):
    return maximum_filter.__wrapped_impl__(block, footprint=footprint, mode='nearest')


def _block_candidates(block, block_max, threshold, offset, shape, border_width):
    """(global coordinates in C order, values) of a block's pixels that are peaks if the image is not flat."""
    mask = block > threshold if block_max is None else (block == block_max) & (block > threshold)
    coord = np.stack(np.nonzero(to_host(mask)), axis=-1).astype(np.intp).reshape(-1, block.ndim)
    values = to_host(block)[tuple(coord.T)]
    coord += np.asarray(offset, dtype=np.intp)
    inside = np.ones(len(coord), dtype=bool)
    for a, w in enumerate(border_width):
        if w:
            inside &= (coord[:, a] >= w) & (coord[:, a] < shape[a] - w)
    return coord[inside], values[inside]


def _final(parts, flat, shape, num_peaks, min_distance, p_norm, like):
    if flat is not None and bool(to_host(flat)):
        coord = np.empty((0, len(shape)), dtype=np.intp)
        values = np.empty(0)
    else:
        coord = np.concatenate([p[0] for p in parts]) if parts else np.empty((0, len(shape)), np.intp)
        values = np.concatenate([p[1] for p in parts]) if parts else np.empty(0)
        order = np.argsort(np.ravel_multi_index(tuple(coord.T), shape), kind="stable") if len(coord) else []
        coord, values = coord[order], values[order]
    out = _select(coord.reshape(-1, len(shape)), values, num_peaks, min_distance, p_norm)
    return _as_like(out, like)


def _as_like(x, like):
    """A host result as an array of the chunks' library (NumPy or CuPy)."""
    if isinstance(like, np.ndarray):
        return x
    import cupy

    return cupy.asarray(x)


def _coordinates(name, image, min_distance, threshold_abs, threshold_rel, exclude_border, footprint, labels,
                 stacklevel):
    """The lazy (k, ndim) coordinates of peak_local_max: a Delayed and the chunks' meta."""
    if labels is not None:
        raise NotImplementedError(f"ndimg.feature.{name} does not take Dask arrays with labels: each label's peaks "
                                  "follow rules over the label's whole extent; compute() the arrays first")
    if (footprint is None or np.asarray(to_host(footprint)).size == 1) and min_distance < 1:
        warnings.warn("When min_distance < 1, peak_local_max acts as finding image > max(threshold_abs, "
                      "threshold_rel * max(image)).", RuntimeWarning, stacklevel=stacklevel)
    if image.dtype == bool:
        raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
                        "or the logical_not function instead.")
    border_width = _border_width(image, min_distance, exclude_border)
    if image.size == 0:
        raise ValueError("zero-size array to reduction operation minimum which has no identity")
    footprint = (np.ones((2 * min_distance + 1,) * image.ndim, dtype=bool) if footprint is None
                 else np.asarray(to_host(footprint)))
    lo = image.min() if threshold_abs is None else None
    hi = image.max() if threshold_rel is not None else None
    threshold = dask.delayed(_threshold, pure=True)(threshold_abs, threshold_rel, lo, hi)
    if footprint.size == 1 or image.size == 1:
        local, flat = None, None
    else:
        depth = tuple(s // 2 for s in footprint.shape) if footprint.ndim == image.ndim else None
        if depth is None:   # the footprint's own error, from an in-memory call
            maximum_filter(np.zeros((1,) * image.ndim, image.dtype), footprint=footprint, mode='nearest')
        # blocks at least the halo deep (a halo comes from the next block only), the maxima chunked alike
        image = image.rechunk(tuple(ensure_minimum_chunksize(d, c) if d and len(c) > 1 else c
                                    for d, c in zip(depth, image.chunks)))
        local = image.map_overlap(_local_max, depth=depth, boundary="nearest", footprint=footprint,
                                  dtype=image.dtype)
        flat = (image == local).all()
    starts = [np.cumsum((0,) + c[:-1]) for c in image.chunks]
    blocks = image.to_delayed().ravel()
    maxima = local.to_delayed().ravel() if local is not None else itertools.repeat(None)
    parts = [dask.delayed(_block_candidates, pure=True)(b, m, threshold, tuple(int(s[i]) for s, i in zip(starts, idx)),
                                                        image.shape, border_width)
             for b, m, idx in zip(blocks, maxima, np.ndindex(*image.numblocks))]
    return image, parts, flat


def peak_local_max(image, min_distance=1, threshold_abs=None, threshold_rel=None, exclude_border=True,
                   num_peaks=np.inf, footprint=None, labels=None, num_peaks_per_label=np.inf, p_norm=np.inf):
    """peak_local_max of a Dask array: a lazy (k, ndim) array (k unknown until computed)."""
    image, parts, flat = _coordinates("peak_local_max", image, min_distance, threshold_abs, threshold_rel,
                                      exclude_border, footprint, labels, 3)
    like = image._meta
    out = dask.delayed(_final, pure=True)(parts, flat, image.shape, num_peaks, min_distance, p_norm, like)
    return da.from_delayed(out, shape=(np.nan, image.ndim), dtype=np.intp,
                           meta=np.empty_like(like, shape=(0, image.ndim), dtype=np.intp))


def _mark(coords, lo, hi):
    """The block [lo, hi) of the boolean peak image."""
    out = np.zeros(tuple(h - l for l, h in zip(lo, hi)), dtype=bool)
    c = to_host(coords)
    inside = np.all((c >= lo) & (c < hi), axis=1) if len(c) else np.zeros(0, bool)
    out[tuple((c[inside] - np.asarray(lo)).T)] = True
    return out


def corner_peaks(image, min_distance=1, threshold_abs=None, threshold_rel=None, exclude_border=True, indices=True,
                 num_peaks=np.inf, footprint=None, labels=None, *, num_peaks_per_label=np.inf, p_norm=np.inf):
    """corner_peaks of a Dask array: lazy coordinates, or a lazy boolean image chunked as the input."""
    if np.isinf(num_peaks):
        num_peaks = None
    chunks = image.chunks
    image, parts, flat = _coordinates("corner_peaks", image, min_distance, threshold_abs, threshold_rel,
                                      exclude_border, footprint, labels, 3)
    like = image._meta
    coords = dask.delayed(_final, pure=True)(parts, flat, image.shape, np.inf, min_distance, np.inf, np.empty(0))
    coords = dask.delayed(_suppress_connected, pure=True)(coords, min_distance, p_norm, num_peaks)
    if indices:
        return da.from_delayed(dask.delayed(_as_like)(coords, like), shape=(np.nan, image.ndim), dtype=np.intp,
                               meta=np.empty_like(like, shape=(0, image.ndim), dtype=np.intp))
    starts = [np.cumsum((0,) + c[:-1]) for c in chunks]
    blocks = np.empty(tuple(len(c) for c in chunks), dtype=object)
    for idx in np.ndindex(*blocks.shape):
        lo = tuple(int(s[i]) for s, i in zip(starts, idx))
        hi = tuple(l + c[i] for l, c, i in zip(lo, chunks, idx))
        part = dask.delayed(_as_like)(dask.delayed(_mark, pure=True)(coords, lo, hi), like)
        blocks[idx] = da.from_delayed(part, shape=tuple(h - l for l, h in zip(lo, hi)), dtype=bool,
                                      meta=np.empty_like(like, shape=(0,) * image.ndim, dtype=bool))
    return da.block(blocks.tolist())
