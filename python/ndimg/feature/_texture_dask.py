"""graycomatrix over Dask arrays, chunk-correct and lazy: each chunk, with its neighbours' pixels out to the
largest offset, counts the pairs whose first pixel is its own (ndimg's joint histogram on the chunk's
engine); the counts are summed over chunks and finished (symmetric, normed) as in memory. The checks of the
values (no negative ones, all below `levels`) run with the chunks and raise when the result is computed.
"""
from __future__ import annotations

import math

import numpy as np

from .._engine import xp_of
from .._prim import histogram as _histogram
from .._rules import check_nD
from ..filters._thresholding_dask import add, delayed, tree
from ..ndimage._footprint import to_host
from . import _texture as _mem


def _chunk_counts(block, core, offsets, levels):
    """(levels, levels, len(offsets)) int64 counts of the pairs (p, p + offset) of `block` (a chunk with its
    neighbours' pixels) whose first pixel lies in the chunk's own rows and columns `core` (slices)."""
    xp = xp_of(block)
    if xp.any(block < 0):
        raise ValueError("Negative-valued images are not supported.")
    if block.size and block.max() >= levels:
        raise ValueError("The maximum grayscale value in the image should be smaller than the number of levels.")
    if block.dtype == bool:
        block = block.view(np.uint8)
    counts = np.zeros((levels, levels, len(offsets)), np.int64)
    rows, cols = block.shape
    for k, (dr, dc) in enumerate(offsets):
        r0, r1 = max(core[0].start, -dr), min(core[0].stop, rows - dr)
        c0, c1 = max(core[1].start, -dc), min(core[1].stop, cols - dc)
        if r0 >= r1 or c0 >= c1:
            continue
        pair = _histogram.joint_integer_counts(block[r0:r1, c0:c1], block[r0 + dr:r1 + dr, c0 + dc:c1 + dc],
                                               lo0=0, lo1=0, shape=(levels, levels))
        counts[:, :, k] = to_host(pair)
    return counts


def _finish(counts, levels, n_angles, n_distances, symmetric, normed, gpu):
    """The summed counts (angle-major offsets) as graycomatrix's (levels, levels, distances, angles) result,
    made symmetric and normed as in memory; a CuPy array for CuPy chunks."""
    P = counts.reshape(levels, levels, n_angles, n_distances).transpose(0, 1, 3, 2).astype(np.uint32)
    P = _mem._symmetric_normed(P, symmetric, normed, np)
    if gpu:
        import cupy

        return cupy.asarray(P)
    return P


def graycomatrix(image, distances, angles, levels=None, symmetric=False, normed=False):
    import dask.array as da
    from dask.array.overlap import ensure_minimum_chunksize

    check_nD(image, 2)
    check_nD(distances, 1, "distances")
    check_nD(angles, 1, "angles")
    _mem._check_dtype_levels(image.dtype, levels)
    levels = 256 if levels is None else int(levels)
    distances = np.ascontiguousarray(distances, dtype=np.float64)
    angles = np.ascontiguousarray(angles, dtype=np.float64)
    offsets = [(_mem._offset(math.sin(a) * d), _mem._offset(math.cos(a) * d)) for a in angles for d in distances]
    # an offset at least the image's extent pairs no pixels: no halo for it
    depth = [max([abs(o[ax]) for o in offsets if abs(o[ax]) < image.shape[ax]] + [0]) for ax in (0, 1)]
    chunks = [ensure_minimum_chunksize(d, c) if d and len(c) > 1 else c for d, c in zip(depth, image.chunks)]
    image = image.rechunk(tuple(chunks))
    grown = da.overlap.overlap(image, depth={0: depth[0], 1: depth[1]}, boundary="none", allow_rechunk=False)
    starts = [np.concatenate([[0], np.cumsum(c)]) for c in image.chunks]
    parts = grown.to_delayed(optimize_graph=False)
    partials = []
    for idx in np.ndindex(*parts.shape):
        # where the chunk's own pixels sit in its grown block: after the neighbours' rows (none at the image's edge)
        core = tuple(slice(min(depth[ax], int(starts[ax][i])), min(depth[ax], int(starts[ax][i])) + image.chunks[ax][i])
                     for ax, i in enumerate(idx))
        partials.append(delayed(_chunk_counts)(parts[idx], core, offsets, levels))
    total = tree(partials, add)
    dtype = np.float64 if normed else np.uint32
    meta = da.utils.meta_from_array(image._meta, ndim=4, dtype=dtype)
    gpu = type(meta).__module__.startswith("cupy")
    P = delayed(_finish)(total, levels, len(angles), len(distances), symmetric, normed, gpu)
    return da.from_delayed(P, shape=(levels, levels, len(distances), len(angles)), dtype=dtype, meta=meta)
