"""morphology.reconstruction over Dask arrays: exact (the in-memory result), lazy, and each task holds one
chunk (or only the chunks' border summaries). Each input chunk is made once and read by stages 1 and 3, so
Dask keeps the inputs' chunks between them (cheap for stored or in-memory inputs; a costly lazy input can be
persisted or stored first).

Reconstruction by dilation (erosion: the same on negated images) gives each element the largest, over seed
elements s, of min(seed(s), the bottleneck from s): the largest, over paths, of the smallest mask value on
the path. A path may cross chunk borders any number of times, so no fixed halo is exact. Instead, with a
symmetric neighbourhood (an undirected graph) of reach r per axis:

1. each chunk (one task each) is reconstructed alone and reduced to a summary of its border elements
   (those within r of a face shared with another chunk): their values and mask values, and a maximum
   spanning forest of them under the chunk's bottleneck metric (``_core.bottleneck_forest``), which keeps
   every bottleneck between two border elements in fewer edges than border elements;
2. one task joins the forests with the neighbour pairs across chunk borders (weight: the smaller mask value)
   and finds every border element's global value by widest paths from the chunks' values
   (``_core.widest_paths``): every path between chunks is a chain of such edges and in-chunk stretches;
3. each chunk is reconstructed (one task each) with its border elements raised to their global values.

The in-memory CPU engine joins tiles of one image the same way, with the same C++ cores (bottleneck_impl.hpp,
called from reconstruct_cpu.cpp).

A neighbourhood that is not symmetric (a value flows along a step but not back) has no such summary: the
image is then reconstructed as one chunk (lazy and exact, but one task holds the whole image).
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import xp_of
from .._rules import supported_float_type
from ..filters._thresholding_dask import delayed
from ..ndimage._footprint import to_host
from . import _reconstruction as _mem


_SERIAL = -1   # chunks reconstructed without tiles: Dask runs them side by side, tiles would only add work


def _halves(steps):
    """One of each pair of opposite steps (the one whose first nonzero coordinate is positive)."""
    return [s for s in steps if next(int(v) for v in s if v) > 0]


def _border(shape, sides, reach):
    """The C-order flat indices of a chunk's border elements: those within `reach` of a side (lo, hi) per
    axis that another chunk lies beyond."""
    on = np.zeros(shape, bool)
    for a, ((lo, hi), r) in enumerate(zip(sides, reach)):
        if r:
            if lo:
                on[(slice(None),) * a + (slice(0, r),)] = True
            if hi:
                on[(slice(None),) * a + (slice(max(shape[a] - r, 0), None),)] = True
    return np.flatnonzero(on)


def _forest(I, joined, border, halves, reach):
    """A maximum spanning forest of the chunk's border elements under its bottleneck metric through the
    `joined` elements (I and joined on the host): edges between border ordinals, their weights."""
    pad = [(r, r) for r in reach]
    padded = np.ascontiguousarray(np.pad(I, pad))
    ids = np.full(padded.shape, -2, np.int32)   # padding and elements left out: never joined
    inner = tuple(slice(r, r + s) for r, s in zip(reach, I.shape))
    ids[inner][joined] = -1
    at = tuple(c + r for c, r in zip(np.unravel_index(border, I.shape), reach))
    ids[at] = np.where(ids[at] == -1, np.arange(border.size, dtype=np.int32), -2)
    strides = np.array(padded.strides) // padded.itemsize
    offsets = [int(np.dot(s, strides)) for s in halves]
    m = max(border.size - 1, 0)
    edges, weights = np.empty((m, 2), np.int64), np.empty(m, np.float64)
    k = _core.bottleneck_forest(padded, ids, offsets, edges, weights)
    return edges[:k], weights[:k]


def _summary(seed, mask, method, steps, pad, halves, reach, sides):
    """Stage 1: a chunk's border elements' values in its own reconstruction and their mask values, and its
    forest over them. Elements the chunk's reconstruction already raises to the mask are left out of the
    forest: a value carried through one is at most what that element's own value carries (it stays a
    source of the same paths), so only the paths through the others change the result."""
    _mem._check_order(seed, mask, method)
    J, I = _mem._signed(seed, mask, 1 if method == "dilation" else -1)
    border = _border(J.shape, sides, reach)
    if border.size == 0:
        empty = np.empty(0, np.float64)
        return empty, empty, np.empty((0, 2), np.int64), empty
    rec = _mem._dilate(J, I, steps, pad, _SERIAL)
    xp = xp_of(rec)
    joined = np.asarray(to_host(rec < I))   # NaN seeds carry nothing (as in memory): left out
    at = np.unravel_index(border, J.shape)
    values = to_host(rec[tuple(xp.asarray(a) for a in at)]).astype(np.float64)
    I = np.asarray(to_host(I))
    return (np.where(np.isnan(values), -np.inf, values), I[at].astype(np.float64),
            *_forest(I, joined, border, halves, reach))


def _solve(summaries, chunks, halves, reach):
    """Stage 2: the global values of every chunk's border elements (one array per chunk, C order of chunks)."""
    shape = tuple(sum(c) for c in chunks)
    starts = [np.concatenate([[0], np.cumsum(c)]) for c in chunks]
    grid = tuple(len(c) for c in chunks)
    coords, bases = [], [0]
    for idx in np.ndindex(*grid):
        cshape = tuple(c[i] for c, i in zip(chunks, idx))
        border = _border(cshape, _sides(idx, grid), reach)
        coords.append(np.stack(np.unravel_index(border, cshape), axis=1) + [s[i] for s, i in zip(starts, idx)])
        bases.append(bases[-1] + border.size)
    coords = np.concatenate(coords).reshape(-1, len(shape)).astype(np.int64)
    values = np.concatenate([s[0] for s in summaries])
    level = np.concatenate([s[1] for s in summaries])
    chunk_of = np.repeat(np.arange(len(summaries)), np.diff(bases))
    edges = [s[2] + b for s, b in zip(summaries, bases)]
    weights = [s[3] for s in summaries]
    # neighbours across chunk borders: both ends are border elements
    flat = np.ravel_multi_index(tuple(coords.T), shape) if coords.size else np.empty(0, np.int64)
    order = np.argsort(flat)
    ranked = flat[order]
    # an element its chunk raised to the mask rises no further: across a pair it gives the other end their
    # weight directly (through it a path carries no more), and only pairs of elements below it are edges
    below = values < level
    for step in halves:
        there = coords + step
        inside = np.flatnonzero(np.all((there >= 0) & (there < shape), axis=1))
        if not inside.size:
            continue
        target = np.ravel_multi_index(tuple(there[inside].T), shape)
        pos = np.minimum(np.searchsorted(ranked, target), ranked.size - 1)
        hit = ranked[pos] == target
        u, v = inside[hit], order[pos[hit]]
        across = chunk_of[u] != chunk_of[v]
        u, v = u[across], v[across]
        w = np.minimum(level[u], level[v])
        both = below[u] & below[v]
        edges.append(np.stack([u[both], v[both]], axis=1))
        weights.append(w[both])
        for x, y in ((u, v), (v, u)):
            given = below[x] & ~below[y]
            np.maximum.at(values, x[given], w[given])
    values = np.ascontiguousarray(values)
    edges = np.ascontiguousarray(np.concatenate(edges).reshape(-1, 2))
    if edges.size:
        _core.widest_paths(values, edges, np.ascontiguousarray(np.concatenate(weights)))
    return tuple(values[a:b] for a, b in zip(bases, bases[1:]))


def _finish(seed, mask, method, values, steps, pad, reach, sides):
    """Stage 3: the chunk's reconstruction with its border elements raised to their global values."""
    sign = 1 if method == "dilation" else -1
    J, I = _mem._signed(seed, mask, sign)
    border = _border(J.shape, sides, reach)
    if border.size:
        xp = xp_of(J)
        at = tuple(xp.asarray(a) for a in np.unravel_index(border, J.shape))
        J[at] = xp.maximum(J[at], xp.asarray(values.astype(J.dtype)))
    rec = _mem._dilate(J, I, steps, pad, _SERIAL) if J.size else J
    return -rec if sign < 0 else rec


def _sides(idx, grid):
    return tuple((i > 0, i < n - 1) for i, n in zip(idx, grid))


def _whole(seed, mask, **kw):
    return _mem.reconstruction(seed, mask, **kw)


def reconstruction(seed, mask, method="dilation", footprint=None, offset=None):
    """morphology.reconstruction of Dask arrays (either may be in memory): a Dask array chunked like the
    seed (like the mask where only it is a Dask array). Argument errors come when the call is built, a seed
    on the wrong side of the mask when it is computed."""
    import dask.array as da

    from .._dask import is_dask

    assert tuple(seed.shape) == tuple(mask.shape)
    like = seed if is_dask(seed) else mask
    seed, mask = (x if is_dask(x) else da.from_array(x, chunks=like.chunks, asarray=False) for x in (seed, mask))
    mask = mask.rechunk(like.chunks)
    seed = seed.rechunk(like.chunks)
    if seed.size == 0:   # the in-memory errors of an empty image (no data to wait for)
        _mem.reconstruction(np.zeros(seed.shape, seed.dtype), np.zeros(mask.shape, mask.dtype), method, footprint,
                            offset)
    steps, pad = _mem._neighbourhood(footprint, offset, seed.ndim)
    if method not in ("dilation", "erosion"):
        raise ValueError(f"Reconstruction method can be one of 'erosion' or 'dilation'. Got '{method}'.")
    dtype = supported_float_type(mask.dtype)
    meta = da.utils.meta_from_array(like._meta, ndim=seed.ndim, dtype=dtype)
    symmetric = set(map(tuple, steps.tolist())) == set(map(tuple, (-steps).tolist()))
    if seed.ndim == 0 or not symmetric:
        # values flow one way along some step: no symmetric summary; one chunk, as in memory
        whole = da.map_blocks(_whole, seed.rechunk(seed.shape), mask.rechunk(seed.shape), dtype=dtype, meta=meta,
                              method=method, footprint=footprint, offset=offset)
        return whole.rechunk(like.chunks)
    reach = tuple(int(r) for r in np.abs(steps).max(axis=0)) if len(steps) else (0,) * seed.ndim
    halves = _halves(steps)
    grid = seed.numblocks
    # the chunks' own keys: each made once (and kept by Dask from stage 1 to stage 3); a task holds one chunk
    seeds, masks = seed.to_delayed(optimize_graph=False), mask.to_delayed(optimize_graph=False)
    summaries = [delayed(_summary)(seeds[idx], masks[idx], method, steps, pad, halves, reach, _sides(idx, grid))
                 for idx in np.ndindex(*grid)]
    solved = delayed(_solve, nout=len(summaries))(summaries, seed.chunks, halves, reach)
    out = np.empty(grid, dtype=object)
    for i, idx in enumerate(np.ndindex(*grid)):
        shape = tuple(c[j] for c, j in zip(seed.chunks, idx))
        out[idx] = da.from_delayed(delayed(_finish)(seeds[idx], masks[idx], method, solved[i], steps, pad, reach,
                                                    _sides(idx, grid)), shape=shape, dtype=dtype, meta=meta)
    return da.block(out.tolist())
