"""scipy.ndimage's measurements over Dask arrays, chunk-correct and lazy.

Each chunk (with its labels' chunk) is reduced to per-slot tables by the in-memory primitives on its own
engine: counts and sums, squared deviations from the merged means (a variance's second pass), extremes with
their positions, value-weighted coordinates, histograms. Positions and coordinates are moved by the chunk's
origin; tables are merged in a tree (an extreme tied between chunks keeps the first position in the
image's C order), and the in-memory code's scipy rules (_measurements.finish_*) make the result. Scalars
come back as 0-d Dask arrays, per-index results as Dask arrays of the index's shape, positions and centres
of mass as scipy's tuples (lists of tuples) of 0-d Dask arrays. median and labeled_comprehension take no
Dask arrays (their per-label values do not reduce to partials).
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from ..filters._thresholding_dask import blocks, delayed, scalar, tree
from . import _measurements as m


def _origins(array):
    """The index of each chunk's first element, in the order of blocks()."""
    starts = [np.concatenate(([0], np.cumsum(c)[:-1])).astype(np.int64) for c in array.chunks]
    return list(itertools.product(*starts))


class _Call:
    """A Dask call's arrays (labels broadcast and chunked like the input) and its in-memory Groups without
    data: the slots of the index, scipy's path, the dtype, the shape and the chunks' array library."""

    def __init__(self, input, labels, index):
        import dask.array as da

        from .._engine import xp_of

        self.index = index
        dtype = np.dtype(input.dtype)
        if dtype.kind not in "biuf":
            raise TypeError(f"ndimg.ndimage measurements take real input, not {dtype}")
        if labels is not None:
            labels = da.asarray(labels)
            ldtype = m.labels_dtype(labels)
            input, labels = da.broadcast_arrays(input, labels)
        self.input, self.labels = input, labels
        xp = xp_of(input._meta)
        if labels is None or index is None:
            self.g = m.Groups(None, None, 1, np.zeros((), np.int64), True, dtype, input.shape, xp)
        else:
            _, _, _, pick, nslots, single = m.plan(index, ldtype)
            self.g = m.Groups(None, None, nslots, pick, single, dtype, input.shape, xp)

    def reduce(self, fn, merge, **kw):
        """The delayed merge of fn(groups of a chunk, origin, **kw) over the chunks."""
        shape, index = self.input.shape, self.index
        arrays = (self.input,) if self.labels is None else (self.input, self.labels)
        # kw (delayed values among them) as arguments of the call, so that Dask computes them first
        parts = (delayed(functools.partial(_on_chunk, fn, shape, index, origin))(*bs, **kw)
                 for bs, origin in zip(blocks(*arrays), _origins(self.input)))
        return tree(parts, merge)

    def result(self, value, dtype):
        """A delayed result of _measurements as a Dask array (0-d for one region, else the index's shape)."""
        import dask.array as da

        if self.g.pick.ndim == 0:
            return scalar(value, dtype, like=self.input)
        meta = da.utils.meta_from_array(self.input._meta, ndim=self.g.pick.ndim, dtype=dtype)
        return da.from_delayed(value, shape=self.g.pick.shape, dtype=dtype, meta=meta)

    def points(self, value, n):
        """A delayed tuple of n int64 scalars (a list of them per index value) as scipy's tuples of 0-d Dask
        arrays; n None: a centre of mass (float64, ndim of them), whose list for an index of two or more
        dimensions is scipy's transposed nesting (see _measurements.finish_center)."""
        import dask.array as da

        def one(v):   # positions are host integers, centres of mass on the chunks' device
            if n is None:
                return tuple(scalar(v[d], np.float64, like=self.input) for d in range(self.ndim))
            return tuple(scalar(v[d], np.int64) for d in range(n))

        pick = self.g.pick
        if pick.ndim == 0:
            return one(value)
        if n is not None or pick.ndim == 1:
            return [one(value[i]) for i in range(pick.size)]
        rev = pick.shape[::-1] + (self.ndim,)
        meta = da.utils.meta_from_array(self.input._meta, ndim=len(rev) - 2, dtype=np.float64)
        return [tuple(da.from_delayed(value[j][k], shape=rev[2:], dtype=np.float64, meta=meta)
                      for k in range(rev[1])) for j in range(rev[0])]

    @property
    def ndim(self):
        return len(self.input.shape)


def _on_chunk(fn, shape, index, origin, chunk, labels=None, **kw):
    g = m.groups(chunk, labels, None if labels is None else index)
    return fn(g, shape, origin, **kw)


# ---- per-chunk tables and their merges ----

def _moments(g, shape, origin):
    return m.moments(g)


def _add(parts):
    return tuple(functools.reduce(lambda a, b: a + b, col) for col in zip(*parts))


def _centered(g, shape, origin, means):
    return (m.centered(g, g.xp.asarray(means)),)


def _global(g, pos, shape, origin):
    """Flat positions in a chunk (-1: none) as flat positions in the whole image."""
    xp = g.xp
    if not shape:
        return pos
    local = xp.unravel_index(xp.maximum(pos, 0), g.shape)
    glob = xp.ravel_multi_index(tuple(i + o for i, o in zip(local, origin)), shape)
    return xp.where(pos >= 0, glob, -1)


def _extrema(g, shape, origin):
    mins, maxs, minpos, maxpos, nans, nanpos = m.extrema_tables(g)
    return [mins, maxs] + [_global(g, p, shape, origin) for p in (minpos, maxpos)] + [nans, _global(g, nanpos, shape, origin)]


def _first(xp, pos_a, pos_b):
    """The first of two positions (-1: none)."""
    return xp.where((pos_a < 0) | ((pos_b >= 0) & (pos_b < pos_a)), pos_b, pos_a)


def _merge_extrema(parts):
    mins, maxs, minpos, maxpos, nans, nanpos = parts[0]
    from .._engine import xp_of

    xp = xp_of(mins)
    for mn, mx, mnp, mxp, nn, nnp in parts[1:]:
        # an extreme from the other part where it is better, or equal at an earlier position
        take = (mnp >= 0) & ((minpos < 0) | (mn < mins) | ((mn == mins) & (mnp < minpos)))
        mins, minpos = xp.where(take, mn, mins), xp.where(take, mnp, minpos)
        take = (mxp >= 0) & ((maxpos < 0) | (mx > maxs) | ((mx == maxs) & (mxp < maxpos)))
        maxs, maxpos = xp.where(take, mx, maxs), xp.where(take, mxp, maxpos)
        nans, nanpos = nans + nn, _first(xp, nanpos, nnp)
    return [mins, maxs, minpos, maxpos, nans, nanpos]


def _coords(g, shape, origin):
    """Weighted coordinates in the whole image's axes: the chunk's plus its origin times its sums."""
    counts, sums, isums = m.moments(g)
    coords = m.weighted_coords(g) + sums[:, None] * g.xp.asarray(np.array(origin, np.float64))[None, :]
    return counts, sums, isums, coords


def _hist(g, shape, origin, edges):
    return (m.hist_table(g, edges),)


# ---- the public functions ----

def _sum_like(finish, dtype_of, input, labels, index):
    c = _Call(input, labels, index)
    tables = c.reduce(_moments, _add)
    return c.result(delayed(finish)(c.g, *_unpack(tables, 3)), dtype_of(c.g))


def _unpack(value, n):
    return [value[i] for i in range(n)]


def sum_labels(input, labels=None, index=None):
    return _sum_like(m.finish_sum, m.sum_dtype, input, labels, index)


def sum(input, labels=None, index=None):  # noqa: A001 - scipy's name
    return sum_labels(input, labels, index)


def mean(input, labels=None, index=None):
    return _sum_like(m.finish_mean, lambda g: np.dtype(np.float64), input, labels, index)


def _variance(input, labels, index, sqrt):
    c = _Call(input, labels, index)
    counts, sums, _ = _unpack(c.reduce(_moments, _add), 3)
    sq = c.reduce(_centered, _add, means=delayed(m.means_of)(counts, sums))[0]
    return c.result(delayed(m.finish_variance)(c.g, counts, sq, sqrt), np.float64)


def variance(input, labels=None, index=None):
    return _variance(input, labels, index, False)


def standard_deviation(input, labels=None, index=None):
    return _variance(input, labels, index, True)


def _extreme(c, which):
    """(delayed values, delayed positions) of finish_extreme over the merged tables."""
    tables = c.reduce(_extrema, _merge_extrema)
    both = delayed(m.finish_extreme, nout=2)(c.g, tables, which)
    return both[0], both[1]


def minimum(input, labels=None, index=None):
    c = _Call(input, labels, index)
    return c.result(_extreme(c, "minimum")[0], c.g.dtype)


def maximum(input, labels=None, index=None):
    c = _Call(input, labels, index)
    return c.result(_extreme(c, "maximum")[0], c.g.dtype)


def _position(input, labels, index, which):
    c = _Call(input, labels, index)
    return c.points(delayed(m.coordinates)(c.g, _extreme(c, which)[1], which), c.ndim)


def minimum_position(input, labels=None, index=None):
    return _position(input, labels, index, "minimum")


def maximum_position(input, labels=None, index=None):
    return _position(input, labels, index, "maximum")


def extrema(input, labels=None, index=None):
    c = _Call(input, labels, index)
    (mn, mnp), (mx, mxp) = _extreme(c, "minimum"), _extreme(c, "maximum")
    return (c.result(mn, c.g.dtype), c.result(mx, c.g.dtype),
            c.points(delayed(m.coordinates)(c.g, mnp, "minimum"), c.ndim),
            c.points(delayed(m.coordinates)(c.g, mxp, "maximum"), c.ndim))


def center_of_mass(input, labels=None, index=None):
    c = _Call(input, labels, index)
    if not c.ndim:
        raise IndexError("list index out of range (a 0-d input has no axes)")   # scipy's error
    tables = c.reduce(_coords, _add)
    return c.points(delayed(m.finish_center)(c.g, *_unpack(tables, 4)), None)


def histogram(input, min, max, bins, labels=None, index=None):  # noqa: A002 - scipy's names
    import dask.array as da

    edges = m.histogram_edges(min, max, bins)
    if labels is None and index is not None:
        raise ValueError("index without defined labels")
    if index is not None:
        raise NotImplementedError("ndimg.ndimage.histogram does not take Dask arrays with an index (its result, "
                                  "an object array with None for absent labels, is not known before it is "
                                  "computed); compute() the arrays first")
    c = _Call(input, labels, None)
    hist = c.reduce(_hist, _add, edges=edges)[0]
    meta = da.utils.meta_from_array(c.input._meta, ndim=1, dtype=np.int64)
    return da.from_delayed(hist[0], shape=(len(edges) - 1,), dtype=np.int64, meta=meta)
