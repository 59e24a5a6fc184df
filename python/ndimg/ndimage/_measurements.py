"""scipy.ndimage's measurements (statistics per label), on the array's engine.

Labels are first mapped to slots (one int32 per element: the result it counts towards, or -1) by the
measure primitives of ``cpp/src/measure``; every statistic is then one pass over the image for all labels at
once. scipy's rules kept here: ``labels=None`` is the whole image, ``index=None`` all labels > 0 as one
region, a scalar index one region, and both give numpy.sum/min/median's scalar types and errors (an empty
region raises for minimum and the positions, NaN propagates); an index sequence gives one result per index
value, float64 sums and means, zeros for labels that are absent, minima in the input's dtype.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of

_MAP = _core.SlotMap
_DENSE_SPAN = 1 << 16   # a dense label -> slot table up to this many entries (or 4 per index value)


class Groups:
    """An image's elements grouped by slot: ``input`` (native, real, float16 as float32; broadcast against
    the labels), ``slots`` (int32, C-contiguous), ``nslots``, ``pick`` (host int64: the slot of each index
    value, of the index's shape; 0-d for one region), ``single`` (scipy's one-region path: labels or index
    None, or a scalar index), ``dtype`` (the caller's input dtype), ``shape`` (the broadcast shape) and
    ``xp``. The Dask measurements make one without input and slots, to finish merged tables."""

    __slots__ = ("input", "slots", "nslots", "pick", "single", "dtype", "shape", "xp")

    def __init__(self, input, slots, nslots, pick, single, dtype, shape=None, xp=None):
        self.input, self.slots, self.nslots, self.pick, self.single, self.dtype = \
            input, slots, nslots, pick, single, np.dtype(dtype)
        self.shape = input.shape if shape is None else tuple(shape)
        self.xp = xp_of(input) if xp is None else xp

    def take(self, table):
        """The entries of a per-slot table for the index values (a NumPy scalar or 0-d CuPy array for one)."""
        xp = self.xp
        return table[int(self.pick)] if self.pick.ndim == 0 else table[xp.asarray(self.pick)]


def as_real(input):
    """input as an array scipy measures: native, float16 computed as float32, complex refused."""
    if not hasattr(input, "dtype") or not hasattr(input, "shape"):
        input = np.asarray(input)
    if input.dtype.kind == "c":
        raise TypeError("ndimg.ndimage measurements take real input (complex is not supported)")
    if input.dtype.kind not in "biuf":
        raise TypeError(f"array type {input.dtype} not supported")
    if input.dtype == np.float16:
        input = input.astype(np.float32)
    return input


def _keys(index, labels_dtype):
    """(map, lo, table, slot of each unique index value) for the distinct index values; the values no label
    of this dtype can equal (non-integral for integer labels) get the extra, always empty, last slot."""
    uniq, inverse = np.unique(index.ravel(), return_inverse=True)
    if uniq.dtype.kind == "f":
        ok = np.isfinite(uniq) & (uniq == np.floor(uniq)) & (np.abs(uniq) < 2.0**53)
    elif uniq.dtype.kind in "iub":
        ok = uniq <= np.iinfo(np.int64).max if uniq.dtype == np.uint64 else np.ones(len(uniq), bool)
    else:
        raise TypeError(f"index values of type {uniq.dtype} are not supported")
    if labels_dtype.kind == "f" and not ok.all():   # float labels, other values than integers: exact keys
        return _MAP.sorted, 0, uniq.astype(np.float64), inverse, len(uniq) + 1
    keys = uniq[ok].astype(np.int64)
    slot_of = np.where(ok, np.cumsum(ok) - 1, len(keys))
    if len(keys) and int(keys[-1]) - int(keys[0]) < max(_DENSE_SPAN, 4 * len(keys)):
        lo = int(keys[0])
        table = np.full(int(keys[-1]) - lo + 1, -1, np.int32)
        table[keys - lo] = np.arange(len(keys), dtype=np.int32)
        return _MAP.dense, lo, table, slot_of[inverse], len(keys) + 1
    # sorted keys in the labels' comparison type (float labels: the integral keys as float64, exactly)
    return _MAP.sorted, 0, keys.astype(np.float64) if labels_dtype.kind == "f" else keys, slot_of[inverse], \
        len(keys) + 1


def labels_dtype(labels):
    """The dtype labels are compared in (float16 as float32); TypeError for labels that are not numbers."""
    dt = np.dtype(labels.dtype)
    if dt.kind not in "biuf":
        raise TypeError(f"labels of type {dt} are not supported")
    return np.dtype(np.float32) if dt == np.float16 else dt


def plan(index, ldtype):
    """How labels of dtype `ldtype` map to the slots of `index` (not None): (map, lo, table, pick, nslots,
    single); see Groups."""
    single = np.isscalar(index)
    index = np.asarray(index.get() if hasattr(index, "get") else index)
    if index.size == 0:
        return _MAP.sorted, 0, np.zeros(0, np.int64), np.zeros(index.shape, np.int64), 0, single
    kind, lo, table, pick, nslots = _keys(index, ldtype)
    return kind, lo, table, pick.reshape(index.shape).astype(np.int64), nslots, single


def _as_scipy_counts(index, labels):
    """A sequence of fractional index values as scipy uses it: where it counts labels with numpy.bincount
    (integer labels of at most int64 / below uint64, all in [0, labels.size]) the values are truncated to
    integers (1.5 counts label 1); elsewhere they must equal a label."""
    if np.isscalar(index):
        return index
    idx = np.asarray(index.get() if hasattr(index, "get") else index)
    dt = labels.dtype
    safe = dt.kind == "i" or (dt.kind == "u" and dt.itemsize < 8)   # scipy's _safely_castable_to_int
    if idx.dtype.kind != "f" or np.all(idx == np.floor(idx)) or not safe:
        return index
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) > labels.size):
        return index
    return idx.astype(np.int64)


def groups(input, labels=None, index=None):
    """The Groups of a call (scipy's broadcasting of labels against input, its ValueError on mismatch)."""
    dtype = np.dtype(getattr(input, "dtype", None) or np.asarray(input).dtype)
    input = as_real(input)
    xp = xp_of(input)
    if labels is None:   # empty slots: every element in slot 0
        return Groups(input, xp.empty(0, np.int32), 1, np.zeros((), np.int64), True, dtype)
    labels = xp.asarray(labels)
    ldtype = labels_dtype(labels)
    labels = labels.astype(ldtype, copy=False)
    input, labels = xp.broadcast_arrays(input, labels)
    slots = xp.empty(input.shape, np.int32)
    if index is None:
        _core.measure_slots(labels, _MAP.positive, 0, xp.empty(0, np.int32), slots, stream=stream_ptr(slots))
        return Groups(input, slots, 1, np.zeros((), np.int64), True, dtype)
    index = _as_scipy_counts(index, labels)
    kind, lo, table, pick, nslots, single = plan(index, ldtype)
    if nslots:
        _core.measure_slots(labels, kind, lo, xp.asarray(table), slots, stream=stream_ptr(slots))
    return Groups(input, slots, nslots, pick, single, dtype)


# ---------------------------------------------------------------------------------------------------
# per-slot tables (the primitives)
# ---------------------------------------------------------------------------------------------------

def moments(g):
    """(counts int64, sums float64, integer sums int64) per slot."""
    xp = g.xp
    counts, sums, isums = xp.zeros(g.nslots, np.int64), xp.zeros(g.nslots, np.float64), xp.zeros(g.nslots, np.int64)
    _core.measure_moments(g.input, g.slots, counts, sums, isums, stream=stream_ptr(counts))
    return counts, sums, isums


def means_of(counts, sums):
    """The mean per slot (NaN for an empty one, quietly: the variance's first pass)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return sums / counts.astype(np.float64)


def centered(g, means):
    """The sum of squared deviations from `means` per slot (a variance's second pass)."""
    sq = g.xp.zeros(g.nslots, np.float64)
    _core.measure_centered(g.input, g.slots, means, sq, stream=stream_ptr(sq))
    return sq


def extrema_tables(g):
    """[mins, maxs, minpos, maxpos, nans, nanpos] per slot over the values that are not NaN (-1 positions:
    none), with the count and first position (-1: none) of the NaN."""
    xp = g.xp
    t = [xp.empty(g.nslots, g.input.dtype), xp.empty(g.nslots, g.input.dtype)] + \
        [xp.empty(g.nslots, np.int64) for _ in range(4)]
    _core.measure_extrema(g.input, g.slots, *t, stream=stream_ptr(t[0]))
    return t


def weighted_coords(g):
    """(nslots, ndim) float64: the sums of value times index along each axis."""
    coords = g.xp.zeros((g.nslots, len(g.shape)), np.float64)
    _core.measure_weighted_coords(g.input, g.slots, coords, stream=stream_ptr(coords))
    return coords


def hist_table(g, edges):
    """(nslots, len(edges) - 1) int64 counts of numpy.histogram with these edges per slot."""
    hist = g.xp.zeros((g.nslots, max(len(edges) - 1, 0)), np.int64)
    if len(edges) >= 2:
        _core.measure_histogram(g.input, g.slots, edges.tolist(), hist, stream=stream_ptr(hist))
    return hist


# ---------------------------------------------------------------------------------------------------
# results from the tables, by scipy's rules (shared with the Dask measurements)
# ---------------------------------------------------------------------------------------------------

def sum_dtype(g):
    """numpy.sum's dtype for one region (int64 for signed integers and bool, uint64 for unsigned, the float
    dtype for floats); float64 for an index sequence (scipy's bincount)."""
    if not g.single:
        return np.dtype(np.float64)
    kind = g.dtype.kind
    return np.dtype(np.int64 if kind in "bi" else np.uint64 if kind == "u" else g.dtype)


def sums_as(g, sums, isums):
    """The per-slot sums in sum_dtype (exact integer sums for one region of integers)."""
    dt = sum_dtype(g)
    if dt.kind in "iu":
        return isums.view(dt)
    return sums.astype(dt, copy=False)


def finish_sum(g, counts, sums, isums):
    return g.take(sums_as(g, sums, isums))


def finish_mean(g, counts, sums, isums):
    if g.single and g.dtype.kind in "biu":
        sums = sums_as(g, sums, isums).astype(np.float64)
    return g.take(sums / counts.astype(np.float64))   # NumPy's RuntimeWarning for an empty region, as scipy


def finish_variance(g, counts, sq, sqrt=False):
    v = sq / counts.astype(np.float64)
    return g.take(g.xp.sqrt(v) if sqrt else v)


def finish_extreme(g, tables, which):
    """minimum/maximum by scipy's rules from extrema_tables: (values, flat positions) for the index (one
    region: the position a host int, None where NaN made scipy's position look-up fail)."""
    mins, maxs, minpos, maxpos, nans, nanpos = tables
    xp = g.xp
    vals, pos = (mins, minpos) if which == "minimum" else (maxs, maxpos)
    if g.single:
        nan, p, n = (int(v) for v in (g.take(nans), g.take(pos), g.take(nanpos)))
        if p < 0 and n < 0:
            raise ValueError(f"zero-size array to reduction operation {which} which has no identity")
        if nan:   # numpy's min/max propagate NaN, and no element then equals it (scipy's IndexError)
            v = xp.asarray(np.nan, g.dtype)
            return (v[()] if xp is np else v), None
        return g.take(vals).astype(g.dtype, copy=False), p
    # scipy sorts NaN last: a minimum is NaN only where all values are, a maximum wherever one is
    nan_here = (nans > 0) & (pos < 0) if which == "minimum" else nans > 0
    if vals.dtype.kind == "f":
        vals = xp.where(nan_here, vals.dtype.type(np.nan), vals)
    pos = xp.where(nan_here, nanpos, xp.maximum(pos, 0))
    return g.take(vals).astype(g.dtype, copy=False), g.take(pos)


def _rows(a):
    """[tuple(row) for row in a] (NumPy scalars in the tuples), for a 2-D `a` by columns: 5x faster."""
    return list(zip(*a.T)) if a.ndim == 2 and a.shape[1] else [tuple(v) for v in a]


def coordinates(g, pos, which):
    """Flat C-order positions as scipy's tuples of np.int64 (a list of them for an index sequence)."""
    dims = np.array(g.shape, dtype=np.int64)
    prod = np.cumprod([1] + list(dims[:0:-1]))[::-1] if len(dims) else np.ones(1, np.int64)
    if g.single:
        if pos is None:
            raise IndexError(f"index 0 is out of bounds for axis 0 with size 0 ({which} is NaN)")
        return tuple((np.int64(pos) // prod) % dims)
    pos = np.asarray(pos.get() if hasattr(pos, "get") else pos)
    if pos.ndim == 0:
        return tuple((pos // prod) % dims)
    return _rows((pos.reshape(-1, 1) // prod) % dims)


def finish_center(g, counts, sums, isums, coords):
    normalizer = sums_as(g, sums, isums)
    if g.pick.ndim == 0:
        row, norm = coords[int(g.pick)], g.take(normalizer)
        return tuple(row[d] / norm for d in range(len(g.shape)))
    res = g.take(coords) / g.take(normalizer)[..., None]
    if g.pick.ndim > 1:   # scipy's rows are then arrays: of the input's library
        return [tuple(v) for v in g.xp.moveaxis(res, -1, 0).T]
    res = np.asarray(res.get() if hasattr(res, "get") else res)
    return _rows(res)


def histogram_edges(min, max, bins):  # noqa: A002 - scipy's names
    """scipy's bin edges, with numpy.histogram's error for decreasing ones."""
    edges = np.linspace(min, max, bins + 1)
    if len(edges) >= 2 and np.any(edges[:-1] > edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


# ---------------------------------------------------------------------------------------------------
# the public functions
# ---------------------------------------------------------------------------------------------------

@engine_aware("input", "labels")
def sum_labels(input, labels=None, index=None):
    g = groups(input, labels, index)
    return finish_sum(g, *moments(g))


@engine_aware("input", "labels")
def sum(input, labels=None, index=None):  # noqa: A001 - scipy's name
    return sum_labels(input, labels, index)


def _half_region(g):
    """A float16 image's one region (scipy's single path): its values as float16 on the host, in C order, which
    scipy sums with NumPy in float16 (its overflows and roundings included); None for other calls."""
    if not (g.single and g.dtype == np.float16):
        return None
    values = g.input.reshape(-1) if g.slots.size == 0 else g.input[g.slots == int(g.pick)]
    values = values.get() if hasattr(values, "get") else values
    return values.astype(np.float16)


@engine_aware("input", "labels")
def mean(input, labels=None, index=None):
    g = groups(input, labels, index)
    half = _half_region(g)
    if half is not None:
        return g.xp.asarray(half.sum() / np.asanyarray(half.size).astype(np.float64))[()]
    return finish_mean(g, *moments(g))


def _variance(input, labels, index, sqrt):
    g = groups(input, labels, index)
    half = _half_region(g)
    if half is not None:
        c = half - half.mean()
        v = (c * c).sum() / np.asanyarray(half.size).astype(np.float64)
        return g.xp.asarray(np.sqrt(v) if sqrt else v)[()]
    counts, sums, _ = moments(g)
    return finish_variance(g, counts, centered(g, means_of(counts, sums)), sqrt)


@engine_aware("input", "labels")
def variance(input, labels=None, index=None):
    return _variance(input, labels, index, False)


@engine_aware("input", "labels")
def standard_deviation(input, labels=None, index=None):
    return _variance(input, labels, index, True)


@engine_aware("input", "labels")
def minimum(input, labels=None, index=None):
    g = groups(input, labels, index)
    return finish_extreme(g, extrema_tables(g), "minimum")[0]


@engine_aware("input", "labels")
def maximum(input, labels=None, index=None):
    g = groups(input, labels, index)
    return finish_extreme(g, extrema_tables(g), "maximum")[0]


@engine_aware("input", "labels")
def minimum_position(input, labels=None, index=None):
    g = groups(input, labels, index)
    return coordinates(g, finish_extreme(g, extrema_tables(g), "minimum")[1], "minimum")


@engine_aware("input", "labels")
def maximum_position(input, labels=None, index=None):
    g = groups(input, labels, index)
    return coordinates(g, finish_extreme(g, extrema_tables(g), "maximum")[1], "maximum")


@engine_aware("input", "labels")
def extrema(input, labels=None, index=None):
    g = groups(input, labels, index)
    t = extrema_tables(g)
    (mn, mnp), (mx, mxp) = finish_extreme(g, t, "minimum"), finish_extreme(g, t, "maximum")
    return mn, mx, coordinates(g, mnp, "minimum"), coordinates(g, mxp, "maximum")


@engine_aware("input", "labels")
def center_of_mass(input, labels=None, index=None):
    g = groups(input, labels, index)
    if not g.shape:
        raise IndexError("list index out of range (a 0-d input has no axes)")   # scipy's error
    return finish_center(g, *moments(g), weighted_coords(g))


def _stable_argsort(xp, a):
    return np.argsort(a, kind="stable") if xp is np else xp.argsort(a)   # CuPy's sort is stable


def _median_sorted(g, counts):
    """Medians per slot on the CUDA engine (CuPy's sort as the primitive): the values sorted by (slot, value),
    NaN last, and the middle two of each slot averaged; with whether each slot holds a NaN."""
    xp = g.xp
    flat = g.slots.ravel() if g.slots.size == g.input.size else xp.zeros(g.input.size, np.int32)
    keep = flat >= 0
    s = flat[keep]
    v = xp.ascontiguousarray(g.input).ravel()[keep]
    v = v.astype(np.float32 if v.dtype == np.float32 else np.float64, copy=False)
    nan = xp.bincount(s[xp.isnan(v)], minlength=g.nslots) > 0
    if v.size == 0:
        return xp.zeros(g.nslots, v.dtype), nan
    by_value = _stable_argsort(xp, v)
    v = v[by_value[_stable_argsort(xp, s[by_value])]]
    start = xp.cumsum(counts) - counts
    lo = xp.minimum(start + xp.maximum(counts - 1, 0) // 2, v.size - 1)
    hi = xp.minimum(start + counts // 2, v.size - 1)
    return (v[lo] + v[hi]) / v.dtype.type(2), nan


@engine_aware("input", "labels")
def median(input, labels=None, index=None):
    g = groups(input, labels, index)
    xp = g.xp
    counts = moments(g)[0]
    out_dtype = np.float32 if g.input.dtype == np.float32 else np.float64
    if xp is np:
        out = np.zeros(g.nslots, out_dtype)
        _core.measure_median(g.input, g.slots, out, g.single)
    else:
        out, any_nan = _median_sorted(g, counts)
        if g.single:
            out = xp.where(any_nan, out.dtype.type(np.nan), out)
    if g.single:
        if int(g.take(counts)) == 0:
            return np.dtype(out_dtype).type(np.nan) if xp is np else xp.asarray(np.nan, out_dtype)
        result = g.take(out)
        return result.astype(np.float16) if g.dtype == np.float16 else result
    # scipy's index of an empty label is 0 into the values sorted by (label, value): the smallest value of the
    # smallest label (NaN last)
    if bool((counts[xp.asarray(g.pick)] == 0).any()) if g.pick.size else False:
        labels = _labels_of(input, labels)
        first = g.input[labels == labels.min()]
        finite = first[~xp.isnan(first)] if first.dtype.kind == "f" else first
        fill = (finite.min() if finite.size else first[0]).astype(out_dtype)
        out = xp.where(counts == 0, fill, out)
    result = g.take(out)
    return result.astype(np.float16) if g.dtype == np.float16 else result


def _labels_of(input, labels):
    """The labels broadcast against the input (for the rare whole-image look-ups)."""
    xp = xp_of(labels)
    return xp.broadcast_arrays(xp.asarray(as_real(input)), xp.asarray(labels))[1]


@engine_aware("input", "labels")
def histogram(input, min, max, bins, labels=None, index=None):  # noqa: A002 - scipy's names
    edges = histogram_edges(min, max, bins)
    if labels is None and index is not None:
        raise ValueError("index without defined labels")
    if index is not None:
        _one_dimensional(np.asarray(index.get() if hasattr(index, "get") else index))
    g = groups(input, labels, index)
    hist = hist_table(g, edges)
    if labels is None or index is None:
        return hist[0]
    # scipy's labeled_comprehension: None (its default) for a label without values
    counts = g.take(moments(g)[0])
    present = np.asarray(counts.get() if hasattr(counts, "get") else counts) > 0
    if g.single:
        return hist[int(g.pick)] if present else None
    out = np.empty(g.pick.shape, object)
    for i, (s, here) in enumerate(zip(g.pick.ravel(), present.ravel())):
        out.flat[i] = hist[int(s)] if here else None
    return out


def _one_dimensional(index):
    if index.ndim > 1:   # scipy's loop over the index values fails on its rows with this error
        raise ValueError("The truth value of an array with more than one element is ambiguous (scipy's "
                         "labeled_comprehension takes a 1-D index)")


@engine_aware("input", "labels")
def labeled_comprehension(input, labels, index, func, out_dtype, default, pass_positions=False):
    as_scalar = np.isscalar(index)
    if not hasattr(input, "dtype") or not hasattr(input, "shape"):
        input = np.asarray(input)
    xp = xp_of(input)
    positions = xp.arange(input.size).reshape(input.shape) if pass_positions else None
    if labels is None:
        if index is not None:
            raise ValueError("index without defined labels")
        return func(input.ravel()) if not pass_positions else func(input.ravel(), positions.ravel())
    labels = xp.asarray(labels)
    try:
        input, labels = xp.broadcast_arrays(input, labels)
    except ValueError as e:
        raise ValueError("input and labels must have the same shape (excepting dimensions with width 1)") from e
    if pass_positions:
        positions = xp.broadcast_to(positions, input.shape) if positions.shape != input.shape else positions
    if index is None:
        mask = labels > 0
        return func(input[mask]) if not pass_positions else func(input[mask], positions[mask])
    index = np.atleast_1d(np.asarray(index.get() if hasattr(index, "get") else index))
    _one_dimensional(index)
    if np.any(index.astype(labels.dtype).astype(index.dtype) != index):
        raise ValueError(f"Cannot convert index values from <{index.dtype}> to <{labels.dtype}> "
                         f"(labels' type) without loss of precision")
    index = index.astype(labels.dtype)
    ldtype = labels_dtype(labels)
    kind, lo, table, pick, nslots, _ = plan(index, ldtype)
    slots = xp.empty(labels.shape, np.int32)
    _core.measure_slots(labels.astype(ldtype, copy=False), kind, lo, xp.asarray(table), slots,
                        stream=stream_ptr(slots))
    # every region's values side by side, in C order within a region: a counting sort by slot (CPU), a
    # stable sort (CuPy)
    flat = slots.ravel()
    counts = xp.bincount(flat[flat >= 0], minlength=nslots)
    if xp is np:
        order = np.empty(int(counts.sum()), np.int64)
        _core.measure_order(flat, counts, order)
    else:
        order = xp.argsort(flat)[int(flat.size - counts.sum()):]
    counts = np.asarray(counts.tolist(), np.int64)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    values = xp.ascontiguousarray(input).ravel()[order]
    places = xp.ascontiguousarray(positions).ravel()[order] if pass_positions else None
    lib = np if np.dtype(out_dtype) == object else xp
    out = lib.empty(index.shape, out_dtype)
    out[...] = default
    flat_out = out.reshape(-1)   # a view: the index's own shape kept
    for i, s in enumerate(pick.ravel()):
        a, b = bounds[s], bounds[s + 1]
        if a == b:
            continue
        flat_out[i] = func(values[a:b]) if not pass_positions else func(values[a:b], places[a:b])
    return out[0] if as_scalar else out
