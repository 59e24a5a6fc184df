"""The global thresholds and hysteresis of ndimg.filters over Dask arrays, chunk-correct and lazy.

Each chunk is reduced on its own engine (NumPy chunks on the CPU engine, CuPy chunks on CUDA) by the same
primitives as an in-memory image: statistics, histogram counts, Li's class sums, connected components.
Only these small partials travel; they are merged into the whole image's, and the threshold math of
_thresholding.py (the same functions as in memory) runs on them. Results are 0-d Dask arrays (1-d for the
thresholds that return arrays): ``image > threshold_otsu(image)`` stays one lazy graph.
"""
from __future__ import annotations

import functools

import numpy as np

from .._engine import xp_of
from .._prim import label, reduce
from .._prim.histogram import integer_counts
from . import _thresholding as _t

_FAN_IN = 16  # partials merged per task of a reduction tree


# ---------------------------------------------------------------------------------------------------
# Reductions over chunks (shared with ndimg.metrics._dask)
# ---------------------------------------------------------------------------------------------------

def delayed(fn, nout=None):
    import dask

    return dask.delayed(fn, pure=True, nout=nout)


def blocks(*arrays):
    """The delayed chunks of Dask arrays of one shape, aligned (the later ones rechunked like the first)."""
    first = arrays[0]
    # unoptimized: the chunks keep the array's own keys, so the passes over them and the array's other uses
    # in the same compute (``image > threshold_otsu(image)``) share one computation of each chunk
    return zip(*(a.rechunk(first.chunks).to_delayed(optimize_graph=False).ravel() for a in arrays))


def tree(parts, merge):
    """The delayed ``merge(list of partials)`` of a list of delayed partials, merged _FAN_IN at a time."""
    parts = list(parts)
    while len(parts) > 1:
        parts = [delayed(merge)(parts[i:i + _FAN_IN]) for i in range(0, len(parts), _FAN_IN)]
    return parts[0]


def reduction(fn, merge, *arrays, **kw):
    """The delayed merge of ``fn(*chunks, **kw)`` over the aligned chunks of ``arrays``."""
    return tree((delayed(functools.partial(fn, **kw))(*bs) for bs in blocks(*arrays)), merge)


def add(parts):
    return functools.reduce(lambda a, b: a + b, parts)


def scalar(value, dtype, like=None):
    """A delayed scalar as a 0-d Dask array (of ``like``'s chunk library for a device result)."""
    import dask.array as da

    meta = np.empty((), dtype) if like is None else da.utils.meta_from_array(like._meta, ndim=0, dtype=dtype)
    return da.from_delayed(value, shape=(), dtype=dtype, meta=meta)


def vector(value, n, dtype, like=None):
    """A delayed 1-d result of ``n`` elements (np.nan: not known before it is computed) as a Dask array."""
    import dask.array as da

    meta = np.empty((0,), dtype) if like is None else da.utils.meta_from_array(like._meta, ndim=1, dtype=dtype)
    return da.from_delayed(value, shape=(n,), dtype=dtype, meta=meta)


def known(value, like=None):
    """An eagerly known result (an empty image's) as a Dask array of its shape."""
    import dask.array as da

    if like is not None and hasattr(value, "shape"):
        value = xp_of(like._meta).asarray(value)
    return da.from_array(value, chunks=()) if np.ndim(value) == 0 else da.from_array(value)


def empty_like(image):
    """An empty image of a Dask array's shape and dtype, to run the in-memory function on (its result or
    its error needs no data)."""
    return np.empty(image.shape, image.dtype)


class Stats:
    """reduce.image_stats of a whole image merged from its chunks' (the same fields; picklable)."""

    __slots__ = ("min", "max", "sum", "imin", "imax", "n_nan", "n_posinf", "n_neginf", "n_finite", "unsigned64")

    def __init__(self, st, unsigned64=False):
        for k in self.__slots__[:-1]:
            setattr(self, k, getattr(st, k))
        self.unsigned64 = unsigned64

    @staticmethod
    def of(chunk):
        return Stats(reduce.image_stats(chunk), chunk.dtype == np.uint64)

    @staticmethod
    def merge(parts):
        out = Stats(parts[0], parts[0].unsigned64)
        # uint64 extremes come as int64 bit patterns: compared as the unsigned values they are
        key = (lambda v: v % (1 << 64)) if out.unsigned64 else (lambda v: v)
        for p in parts[1:]:
            out.min, out.max = min(out.min, p.min), max(out.max, p.max)
            out.imin, out.imax = min(out.imin, p.imin, key=key), max(out.imax, p.imax, key=key)
            out.sum += p.sum
            for k in ("n_nan", "n_posinf", "n_neginf", "n_finite"):
                setattr(out, k, getattr(out, k) + getattr(p, k))
        return out

    def mean(self, size, dtype):
        """The mean of the ``size`` values as reduce.mean gives it (NaN for a NaN or both infinities, an
        infinity for one), in ``dtype`` (float16: NumPy's mean, rounded)."""
        if self.n_nan or (self.n_posinf and self.n_neginf):
            m = np.nan
        elif self.n_posinf or self.n_neginf:
            m = np.inf if self.n_posinf else -np.inf
        else:
            m = self.sum / size
        return dtype.type(m)


def stats(image):
    """The delayed Stats of a Dask image."""
    return reduction(Stats.of, Stats.merge, image)


# ---------------------------------------------------------------------------------------------------
# Histogram thresholds
# ---------------------------------------------------------------------------------------------------

def _real(image, name):
    if image.dtype.kind in "cO":
        raise NotImplementedError(f"ndimg.filters.{name} does not take Dask arrays of {image.dtype}: compute() "
                                  f"the array first")


def _bins(dtype, size, st, nbins, skip=False):
    return None if skip else _t._Bins(dtype, size, st, nbins)


def _count(bins, chunk):
    return None if bins is None else bins.count(chunk)


def _sum_counts(parts):
    return None if parts[0] is None else add(parts)


def _own_counts(chunk):
    """(lo, counts) of an integer chunk over its own range [lo, its maximum]."""
    st = Stats.of(chunk)
    lo, hi = (v % (1 << 64) for v in (st.imin, st.imax)) if st.unsigned64 else (st.imin, st.imax)
    return lo, _t._to_host(integer_counts(chunk, lo=lo, nbins=hi - lo + 1))


def _aligned_sum(parts):
    """The (lo, counts) of _own_counts merged over the union of their ranges."""
    lo = min(p[0] for p in parts)
    out = np.zeros(max(p[0] + p[1].size for p in parts) - lo, dtype=np.int64)
    for start, counts in parts:
        out[start - lo:start - lo + counts.size] += counts
    return lo, out


def _counts_centers(bins, counts, normalize):
    if bins is None:
        return None
    if isinstance(counts, tuple):  # _aligned_sum's, over the image's range: the bins'
        counts = counts[1]
    return (_t._normalized(counts) if normalize else counts), bins.centers


def histogram(image, st, nbins, *, normalize=False, skip=False):
    """The delayed (counts, centers) of _thresholding._histogram for a Dask image with delayed Stats ``st``
    (None where the delayed ``skip`` is true). Integer images take one pass (each chunk counted over its own
    range); other images a second one over the bins that the first one's statistics give (Dask holds their
    chunks from the first pass until then)."""
    bins = delayed(_bins)(image.dtype, image.size, st, nbins, skip)
    if image.dtype.kind in "iu":
        counts = reduction(_own_counts, _aligned_sum, image)
    else:
        counts = tree((delayed(_count)(bins, b) for (b,) in blocks(image)), _sum_counts)
    return delayed(_counts_centers)(bins, counts, normalize)


def _float32_counts(cc, hist, normalize):
    """_counts_and_centers' result from a histogram (or a given ``hist``)."""
    if hist is not None:
        return _t._counts_and_centers(None, hist)
    if cc is None:
        return None
    return cc[0].astype(np.float32, copy=False), cc[1]


def counts_and_centers(image, st, hist, nbins, *, normalize=False, skip=False):
    """The delayed _counts_and_centers(image, hist, nbins, normalize) of a Dask image."""
    cc = None if hist is not None else histogram(image, st, nbins, normalize=normalize, skip=skip)
    return delayed(_float32_counts)(cc, hist, normalize)


def _centers_dtype(dtype):
    if dtype.kind in "iu":
        return np.dtype(np.int64)
    return np.dtype(dtype if dtype.kind == "f" else np.float64)


def _apply(fn, cc, *args):
    return fn(*cc, *args)


def _first(image):
    """The delayed first pixel, from the first chunk as blocks() gives it (a getitem of the Dask array would
    be optimized on its own into new keys: its chunk, and the neighbours a halo reads, computed again)."""
    return delayed(_t._first)(next(blocks(image))[0])


def _otsu_or_first(equal, first, cc):
    return first if equal else _t._otsu(*cc)


def threshold_otsu(image=None, nbins=256, *, hist=None):
    _t._warn_rgb(image, "threshold_otsu")
    _real(image, "threshold_otsu")
    if image.size == 0:
        return known(_t.threshold_otsu(empty_like(image), nbins, hist=hist))
    st = stats(image)
    equal = delayed(_t._all_equal)(image.dtype, image.size, st)
    cc = counts_and_centers(image, st, hist, nbins, skip=equal)
    return scalar(delayed(_otsu_or_first)(equal, _first(image), cc), _centers_dtype(image.dtype))


def threshold_yen(image=None, nbins=256, *, hist=None):
    _real(image, "threshold_yen")
    if image.size == 0:
        return known(_t.threshold_yen(empty_like(image), nbins, hist=hist))
    cc = counts_and_centers(image, stats(image), hist, nbins)
    return scalar(delayed(_apply)(_t._yen, cc), _centers_dtype(image.dtype))


def _isodata(cc, return_all, xp):
    found = _t._isodata(*cc)
    return xp.asarray(found) if return_all else found[0]


def threshold_isodata(image=None, nbins=256, return_all=False, *, hist=None):
    _real(image, "threshold_isodata")
    if image.size == 0:
        return known(_t.threshold_isodata(empty_like(image), nbins, return_all, hist=hist), image)
    found = delayed(_isodata)(counts_and_centers(image, stats(image), hist, nbins), return_all, xp_of(image._meta))
    dtype = _centers_dtype(image.dtype)
    return vector(found, np.nan, dtype, image) if return_all else scalar(found, dtype)


def threshold_minimum(image=None, nbins=256, max_num_iter=10000, *, hist=None):
    _real(image, "threshold_minimum")
    if image.size == 0:
        return known(_t.threshold_minimum(empty_like(image), nbins, max_num_iter, hist=hist))
    cc = counts_and_centers(image, stats(image), hist, nbins)
    return scalar(delayed(_apply)(_t._minimum, cc, max_num_iter), _centers_dtype(image.dtype))


def _triangle(cc, first):
    return _t._triangle(*cc, lambda: first)


def threshold_triangle(image, nbins=256):
    _real(image, "threshold_triangle")
    if image.size == 0:
        return known(_t.threshold_triangle(empty_like(image), nbins))
    cc = histogram(image, stats(image), nbins)
    return scalar(delayed(_triangle)(cc, _first(image)), _centers_dtype(image.dtype))


def _multiotsu(cc, classes, xp):
    return xp.asarray(_t._multiotsu(*cc, classes))


def threshold_multiotsu(image=None, classes=3, nbins=256, *, hist=None):
    _t._warn_rgb(image, "threshold_multiotsu")
    _real(image, "threshold_multiotsu")
    if image.size == 0:
        return known(_t.threshold_multiotsu(empty_like(image), classes, nbins, hist=hist), image)
    cc = counts_and_centers(image, stats(image), hist, nbins, normalize=True)
    n = int(classes) - 1 if isinstance(classes, (int, np.integer)) and classes > 1 else np.nan
    return vector(delayed(_multiotsu)(cc, classes, xp_of(image._meta)), n, _centers_dtype(image.dtype), image)


# Li's iteration needs one pass over the image per step: its threshold is one task that runs these passes as
# Dask computations of their own (the image's graph is held, not computed, as that task's argument).

class _Held:
    """A Dask array inside a task's arguments that Dask does not compute first."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _compute(value):
    """``value`` computed from inside a task: through the worker's client on a distributed worker (which
    leaves its thread pool while it waits), else by the local scheduler."""
    try:
        from distributed import get_worker, worker_client

        get_worker()
    except (ImportError, ValueError):
        import dask

        return dask.compute(value)[0]
    with worker_client() as client:
        return client.gather(client.compute(value))


def _work(chunk):
    return chunk.astype(np.float32) if chunk.dtype == np.float16 else chunk  # the core reads float32


def _groups(image, n=256):
    """The image's delayed chunks in at most ``n`` lists of neighbours (each list one task of the passes
    below: many small chunks are not as many tasks per step)."""
    chunks = [b for (b,) in blocks(image)]
    k = -(-len(chunks) // n)
    return [chunks[i:i + k] for i in range(0, len(chunks), k)]


def _split(chunks, shift, t):
    s = [reduce.split_sums(_work(c), shift=shift, t=t) for c in chunks]
    return np.array([[v.sum_above, v.n_above, v.sum_below, v.n_below] for v in s]).sum(axis=0)


def _distinct(chunks, shift):
    """The sorted distinct finite values x - shift (rounded to the float type) of chunks, on the host."""
    ys = []
    for chunk in chunks:
        chunk = _work(chunk)
        xp = xp_of(chunk)
        y = chunk[xp.isfinite(chunk)] - chunk.dtype.type(shift)
        ys.append(_t._to_host(xp.unique(y[xp.isfinite(y)])))
    return np.unique(np.concatenate(ys))


def _sample(chunks, shift, k):
    y = _distinct(chunks, shift)
    return y[np.linspace(0, y.size - 1, min(k, y.size)).astype(np.int64)] if y.size else y


def _pieces(chunks, shift, splitters):
    y = _distinct(chunks, shift)
    return np.split(y, np.searchsorted(y, splitters))


def _range_gap(pieces):
    """(smallest positive gap, first, last) of the sorted distinct values of one range, None if it has none."""
    y = np.unique(np.concatenate(pieces))
    if not y.size:
        return None
    d = np.diff(y)
    return (float(d.min()) if d.size else np.inf), y[0], y[-1]


def _smallest_gap(ranges):
    gaps = [r[0] for r in ranges if r is not None]
    ends = [r[1:] for r in ranges if r is not None]
    gaps += [float(b[0] - a[1]) for a, b in zip(ends, ends[1:])]  # the step between neighbouring ranges
    return min(gaps, default=np.inf)


def min_gap(image, shift):
    """reduce.min_gap of a Dask image, computed now: the distinct values are split into ranges by splitters
    sampled from every chunk; each range's values from all chunks meet in one task (a sample sort), so
    no task holds more than its range of the image's distinct values."""
    chunks = _groups(image, 64)
    parts = len(chunks)
    samples = _compute([delayed(_sample)(b, shift, 4 * parts) for b in chunks])
    everything = np.unique(np.concatenate(samples))
    splitters = everything[np.linspace(0, everything.size, parts + 1)[1:-1].astype(np.int64)]
    pieces = [delayed(_pieces, nout=parts)(b, shift, splitters) for b in chunks]
    ranges = [delayed(_range_gap)([p[r] for p in pieces]) for r in range(parts)]
    return _compute(delayed(_smallest_gap)(ranges))


def _li(held, st, first, hist, tolerance, initial_guess, iter_callback):
    image = held.array
    groups = _groups(image)

    def split(shift, t):
        return _compute(tree((delayed(_split)(g, shift, t) for g in groups), add))

    return _t._li(image.dtype, image.size, st, tolerance, initial_guess, iter_callback, first=lambda: first,
                  histogram=lambda: hist, shifted=None, min_gap=lambda shift: min_gap(image, shift), split=split)


def threshold_li(image, *, tolerance=None, initial_guess=None, iter_callback=None):
    _real(image, "threshold_li")
    if callable(initial_guess):
        raise NotImplementedError("ndimg.filters.threshold_li takes Dask arrays with a number (or None) as "
                                  "initial_guess, not a function of the pixels: compute() the array first")
    if image.size == 0:
        return known(_t.threshold_li(empty_like(image), tolerance=tolerance, initial_guess=initial_guess))
    st = stats(image)
    hist = histogram(image, st, 256) if image.dtype.kind in "iu" else None
    value = delayed(_li)(_Held(image), st, _first(image), hist, tolerance, initial_guess, iter_callback)
    return scalar(value, np.dtype(np.float64 if image.dtype.kind in "iub" else image.dtype))


def on_device(xp, value):
    """A host result as the chunks' library gives it in memory (a GPU library's 0-d array)."""
    return value if xp is np else xp.asarray(value)


def stats_mean(st, size, dtype, xp):
    """The mean of merged Stats as reduce.mean gives it in memory (its NaN/inf rule), in ``dtype``."""
    return on_device(xp, st.mean(size, dtype))


def threshold_mean(image):
    _real(image, "threshold_mean")
    if image.size == 0:
        return known(_t.threshold_mean(empty_like(image)))
    dtype = np.dtype(image.dtype if image.dtype in (np.float16, np.float32) else np.float64)
    xp = xp_of(image._meta)
    return scalar(delayed(stats_mean)(stats(image), image.size, dtype, xp), dtype, None if xp is np else image)


# ---------------------------------------------------------------------------------------------------
# Hysteresis: per-chunk components, merged across chunk faces
# ---------------------------------------------------------------------------------------------------

def _faces(chunk, low, high):
    """A chunk's components as its faces see them: for each axis the roots on its first and last slice
    (NumPy), and the roots on any face whose component holds a seed (a pixel above ``high``)."""
    keep, roots = label.seeded_roots(chunk, low=low, high=high)
    faces, seeded = [], []
    for ax in range(chunk.ndim):
        pair = [_t._to_host(roots[(slice(None),) * ax + (i,)]) for i in (0, -1)]
        seeded += [_t._to_host(roots[(slice(None),) * ax + (i,)][keep[(slice(None),) * ax + (i,)]]) for i in (0, -1)]
        faces.append(pair)
    return faces, np.unique(np.concatenate(seeded))


def _touching(a, b, ax):
    """The distinct (root in a, root in b) pairs of components that meet across the face between chunk a
    and the next chunk b along axis ``ax``."""
    a, b = a[0][ax][1], b[0][ax][0]
    both = (a >= 0) & (b >= 0)
    return np.unique(np.stack([a[both], b[both]], axis=1), axis=0)


def pair_components(pairs, n):
    """(count, component of each node) of the graph of ``n`` nodes joined by ``pairs`` (k x 2 node indices): the
    merge of pieces across chunk borders (hysteresis, label), small beside the image."""
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    graph = coo_array((np.ones(len(pairs), np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    return connected_components(graph, directed=False)


def _reached(seeded, touches, stride):
    """For each chunk (in flat order), the roots of its components that a seed reaches, through any chunks:
    connected components of the graph of face components (chunk * stride + root) joined by ``touches``
    ([(chunk a, chunk b, pairs)]) that hold a component with a seed in its own chunk (``seeded``)."""
    ends = [a * stride + p[:, 0] for a, _, p in touches] + [b * stride + p[:, 1] for _, b, p in touches]
    seeds = [i * stride + s for i, s in enumerate(seeded)]
    nodes, inverse = np.unique(np.concatenate(ends + seeds), return_inverse=True)
    m = sum(len(p) for _, _, p in touches)
    comp = pair_components(np.stack([inverse[:m], inverse[m:2 * m]], axis=1), nodes.size)[1]
    reached = nodes[np.isin(comp, comp[inverse[2 * m:]])]
    return tuple(reached[reached // stride == i] % stride for i in range(len(seeded)))


def _finish_chunk(chunk, low, high, reached):
    keep, roots = label.seeded_roots(chunk, low=low, high=high)
    if reached.size:  # a table by root (roots are indices into the chunk; -1, background, reads the last entry)
        xp = xp_of(roots)
        table = xp.zeros(roots.size + 1, dtype=bool)
        table[xp.asarray(reached)] = True
        keep |= table[roots]
    return keep


def _low_clipped(low, high):
    return np.clip(low, a_min=None, a_max=high)


def apply_hysteresis_threshold(image, low, high):
    import dask.array as da

    if image.size == 0 or image.ndim == 0:  # an error, or the comparison itself
        if image.size == 0:
            _t.apply_hysteresis_threshold(empty_like(image), low, high)
        return image > high
    arrays = [t for t in (low, high) if isinstance(t, da.Array)]
    # array thresholds of the host compare with device chunks as device arrays (as in memory)
    low, high = (t if isinstance(t, da.Array) or not np.ndim(t) else xp_of(image._meta).asarray(t)
                 for t in (low, high))
    if np.ndim(low) or np.ndim(high) or image.dtype.kind not in "biuf":
        # array thresholds: the per-pixel classes (0, 1: above low, 2: above high), as in memory
        low = da.minimum(low, high)
        cls = (image > low).astype(np.uint8) + (image > high)
        image, low, high = cls, 0, 1
    else:
        low = delayed(_low_clipped)(low, high) if arrays else _low_clipped(low, high)
        high = _t._as_compared(high, image.dtype)
    parts = image.to_delayed(optimize_graph=False)
    grid = parts.shape
    stride = int(np.prod([max(c) for c in image.chunks]))
    faces = [delayed(_faces)(parts[idx], low, high) for idx in np.ndindex(*grid)]
    touches = []
    for a, idx in enumerate(np.ndindex(*grid)):
        for ax in range(len(grid)):
            if idx[ax] + 1 < grid[ax]:
                b = int(np.ravel_multi_index(idx[:ax] + (idx[ax] + 1,) + idx[ax + 1:], grid))
                touches.append((a, b, delayed(_touching)(faces[a], faces[b], ax)))
    reached = delayed(_reached, nout=len(faces))([f[1] for f in faces], touches, stride)
    out = np.empty(grid, dtype=object)
    meta = da.utils.meta_from_array(image._meta, ndim=image.ndim, dtype=bool)
    for i, idx in enumerate(np.ndindex(*grid)):
        shape = tuple(c[j] for c, j in zip(image.chunks, idx))
        out[idx] = da.from_delayed(delayed(_finish_chunk)(parts[idx], low, high, reached[i]), shape=shape,
                                   dtype=bool, meta=meta)
    return da.block(out.tolist())
