"""scipy.ndimage.label over Dask arrays, chunk-correct and lazy.

Each chunk is labelled on its own engine (the same primitive as in memory); only its faces (its labels on
its first and last slice along each axis) and the global C index of each label's first element travel. The
pieces that meet across chunk borders through the structure (diagonal taps included, so across edges and
corners as well) are joined as a graph; each component is numbered by its first element in the whole image,
which is the smallest of its pieces' first elements: the result equals the in-memory labelling.
"""
from __future__ import annotations

import operator

import numpy as np

from .._engine import xp_of
from .._prim import label as _lab
from ..filters._thresholding import _to_host
from ..filters._thresholding_dask import delayed, known, pair_components, scalar
from . import _label as _mem


def _chunk_labels(chunk, structure):
    xp = xp_of(chunk)
    out = xp.empty(chunk.shape, np.int64)
    count = _lab.label(chunk, structure=structure, out=out)
    return out, count


def _pieces(chunk, structure, origin, shape):
    """A chunk's pieces: their count, the global C index of each one's first element (labels number them in
    C order of it: where the running maximum of the labels grows), and the labels on the chunk's faces."""
    labels, count = _chunk_labels(chunk, structure)
    flat = _to_host(labels).reshape(-1)
    starts = np.flatnonzero(np.diff(np.maximum.accumulate(flat), prepend=0))
    coords = np.unravel_index(starts, chunk.shape)
    firsts = np.ravel_multi_index(tuple(c + o for c, o in zip(coords, origin)), shape).astype(np.int64)
    faces = [tuple(_to_host(labels[(slice(None),) * ax + (i,)]) for i in (0, -1)) for ax in range(chunk.ndim)]
    return count, firsts, faces


def _plane(blocks, offsets, shape):
    """A whole hyperplane from the faces of the chunks along it (piece ids, -1 for background)."""
    plane = np.full(shape, -1, np.int64)
    for face, off in zip(blocks, offsets):
        plane[tuple(slice(o, o + s) for o, s in zip(off, face.shape))] = face
    return plane


def _pairs(before, after, offsets, plane_shape, shifts):
    """The (piece, piece) pairs that meet across one chunk border: the structure's taps that step forward
    along the border's axis, from the hyperplane before it to the one after it."""
    a, b = _plane(before, offsets, plane_shape), _plane(after, offsets, plane_shape)
    found = []
    for s in shifts:
        sa = tuple(slice(0, n - 1) if d == 1 else slice(1, n) if d == -1 else slice(None) for d, n in zip(s, plane_shape))
        sb = tuple(slice(1, n) if d == 1 else slice(0, n - 1) if d == -1 else slice(None) for d, n in zip(s, plane_shape))
        x, y = a[sa].ravel(), b[sb].ravel()
        both = (x >= 0) & (y >= 0)
        found.append(np.stack([x[both], y[both]], axis=1))
    return np.unique(np.concatenate(found), axis=0) if found else np.empty((0, 2), np.int64)


def _ids(faces, base):
    """A chunk's face labels as piece ids: base + label - 1 (its pieces numbered after the earlier chunks')."""
    return [tuple(np.where(f > 0, base + f - 1, -1) for f in pair) for pair in faces]


def _number(infos, borders, grid, plane_offsets):
    """The global number of every chunk's pieces: (a table per chunk, local label -> label), the count."""
    counts = np.array([c for c, _, _ in infos], np.int64)
    bases = np.concatenate([[0], np.cumsum(counts)])
    faces = [_ids(f, bases[i]) for i, (_, _, f) in enumerate(infos)]
    pairs = [np.empty((0, 2), np.int64)]
    for ax, edge, shifts, plane_shape in borders:
        cells = [idx for idx in np.ndindex(*grid) if idx[ax] == edge]
        before = [faces[int(np.ravel_multi_index(idx, grid))][ax][1] for idx in cells]
        after = [faces[int(np.ravel_multi_index(idx[:ax] + (edge + 1,) + idx[ax + 1:], grid))][ax][0] for idx in cells]
        offsets = [plane_offsets[ax][i] for i in range(len(cells))]
        pairs.append(_pairs(before, after, offsets, plane_shape, shifts))
    pairs = np.concatenate(pairs)
    total = int(bases[-1])
    ncomp, comp = pair_components(pairs, total)
    firsts = np.concatenate([f for _, f, _ in infos]) if total else np.empty(0, np.int64)
    lowest = np.full(ncomp, np.iinfo(np.int64).max)
    np.minimum.at(lowest, comp, firsts)
    rank = np.empty(ncomp, np.int64)
    rank[np.argsort(lowest)] = np.arange(1, ncomp + 1)
    number = rank[comp]
    tables = tuple(np.concatenate([[0], number[bases[i]:bases[i + 1]]]) for i in range(len(infos)))
    return tables, ncomp


def _finish(chunk, structure, table, dtype):
    labels, _ = _chunk_labels(chunk, structure)
    xp = xp_of(labels)
    return xp.asarray(table)[labels].astype(dtype)


def _count(numbered, dtype):
    top = np.iinfo(dtype).max if np.dtype(dtype).kind in "iu" else None
    if top is not None and numbered[1] > top:
        raise RuntimeError("insufficient bit-depth in requested output type")
    return numbered[1]


def label(input, structure=None, output=None):
    import dask.array as da

    if hasattr(output, "shape") and not isinstance(output, type):
        raise NotImplementedError("ndimg.ndimage.label: output= arrays cannot take a lazy Dask result; pass a "
                                  "dtype or nothing")
    # the in-memory call on a small sample raises what the whole call would (structure, dtypes)
    sample = np.zeros((1,) * input.ndim, input.dtype)
    _mem.label(sample, structure, output)
    if input.ndim == 0 or input.size == 0:
        return tuple(known(v) for v in _mem.label(np.asarray(input.compute()), structure, output))
    structure = _mem._structure(structure, input.ndim, ValueError)
    dtype = np.dtype(np.intp if input.size >= 2**31 - 2 else np.int32) if output is None else np.dtype(output)
    parts = input.to_delayed(optimize_graph=False)
    grid = parts.shape
    starts = [np.concatenate([[0], np.cumsum(c)]) for c in input.chunks]
    infos = []
    for idx in np.ndindex(*grid):
        origin = tuple(int(starts[d][i]) for d, i in enumerate(idx))
        infos.append(delayed(_pieces)(parts[idx], structure, origin, input.shape))
    # per axis: the taps stepping forward along it (their steps along the other axes), the hyperplane's
    # shape and each chunk's offset in it (the chunks along the border, in C order)
    taps = [t for t in np.argwhere(structure) - 1]
    borders, plane_offsets = [], []
    for ax in range(input.ndim):
        others = [d for d in range(input.ndim) if d != ax]
        shifts = sorted({tuple(int(t[d]) for d in others) for t in taps if t[ax] == 1})
        plane_shape = tuple(input.shape[d] for d in others)
        plane_offsets.append([tuple(int(starts[d][idx[d]]) for d in others)
                              for idx in np.ndindex(*grid) if idx[ax] == 0])
        if shifts:
            borders += [(ax, edge, shifts, plane_shape) for edge in range(grid[ax] - 1)]
    numbered = delayed(_number)(infos, borders, grid, plane_offsets)
    tables = delayed(operator.itemgetter(0), nout=len(infos))(numbered)
    out = np.empty(grid, dtype=object)
    meta = da.utils.meta_from_array(input._meta, ndim=input.ndim, dtype=dtype)
    for i, idx in enumerate(np.ndindex(*grid)):
        shape = tuple(c[j] for c, j in zip(input.chunks, idx))
        out[idx] = da.from_delayed(delayed(_finish)(parts[idx], structure, tables[i], dtype), shape=shape,
                                   dtype=dtype, meta=meta)
    labels = da.block(out.tolist())
    return labels, scalar(delayed(_count)(numbered, dtype), np.dtype(np.int64))
