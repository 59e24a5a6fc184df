"""scipy.ndimage's geometric transforms over Dask arrays, chunk-correct and lazy (issue 25).

``shift``, ``zoom``, ``rotate``, ``affine_transform`` and ``map_coordinates`` of a Dask image give a Dask
array whose every output chunk reads only the part of the input its points need, and equals the in-memory
call to float rounding.

Spline coefficients. For order > 1 with ``prefilter``, the B-spline prefilter (a recursive filter over the
whole line) runs exactly: along each axis in turn, with that axis rechunked to one chunk, on the image
padded by 12 for 'nearest' and 'grid-constant' as scipy pads it (coordinates then shift by that pad). Every
chunk then samples these coefficients with ``prefilter=False``.

Which input a chunk reads. Along each input axis scipy first maps a coordinate outside the image by the
mode ('mirror', 'reflect'/'grid-mirror', 'wrap', 'grid-wrap'; 'constant': outside is ``cval``), then reads
the taps floor(c) - order//2 .. floor(c) + order//2 + 1, a tap outside the coefficients extended by the
mode ('constant' and 'wrap' by mirroring, 'grid-constant': ``cval``, 'nearest': the edge). From the range
of a chunk's coordinates along each axis (the transformed corners of the chunk for affine maps, the
coordinates' extremes for ``map_coordinates``) follow the tap indices its points can reach (one more each
side for rounding). The rule, per axis:

- anchored run: the chunk reads the run of the image between its first and last tap, clipped to the image.
  Where its taps or coordinates leave the image, the run reaches the image's border, and the in-memory
  function applies the mode there itself: the same rule relative to the whole image, as long as the mode
  looks no further than the run ('constant', 'nearest', 'grid-constant' always; 'mirror' and 'reflect'
  while the run is longer than the fold; 'wrap' and 'grid-wrap' only inside the image). Coordinates move
  by the run's start, exactly (an integer, the result no larger): the same weights and taps as in memory;
- otherwise (wrapping modes across the border, folds longer than the run): the coordinates are mapped by
  the mode as scipy maps them, and the region is built from the image's values at the tap indices the
  mode gives (relative to the whole image, never to the region).

Interior chunks (every tap inside the image) of shift, zoom and the affine maps run the in-memory
``shift``/``affine_transform`` on their region with the offset moved to the region's origin (float
outputs: equal to rounding); so does the interior box of a zoom or shift chunk at the border, whose strips
along the border, and all other chunks, run the in-memory ``map_coordinates`` at their coordinates computed
as scipy computes them, moved into the region (order 0, bool and integer outputs take this path
everywhere: the same taps, weights and rounding as in memory).

``rotate`` of more than 2 dimensions turns each plane as scipy does (its prefilter runs along the plane's
two axes only). ``output=`` arrays cannot take a lazy result (NotImplementedError); dtypes can.
"""
from __future__ import annotations

import itertools

import numpy as np

from ._interpolation import _PREPAD, _host, _rotation

_FOLDING = ("mirror", "reflect", "wrap", "grid-wrap")


def _ndi():
    """The in-memory functions every chunk calls (ndimg's own)."""
    from .. import ndimage

    return ndimage


# ---- scipy's boundary rules (ni_interpolation.c's map_coordinate), vectorized ----
def _fold(c, n, mode, xp=np):
    """A coordinate outside [0, n-1] mapped into the image by the mode ('constant': -1, outside)."""
    low, high = c < 0, c > n - 1
    if mode == "constant":
        return xp.where(low | high, -1.0, c)
    if n <= 1:
        return xp.where(low | high, 0.0, c)
    if mode == "mirror":
        p = 2 * n - 2
        a = p * xp.trunc(-c / p) + c
        a = xp.where(a <= 1 - n, a + p, -a)
        b = c - p * xp.trunc(c / p)
        b = xp.where(b >= n, p - b, b)
    elif mode == "reflect":
        p = 2 * n
        a = xp.where(c < -p, p * xp.trunc(-c / p) + c, c)
        a = xp.where(a < -n, a + p, xp.where(a > -1e-15, 1e-15, -a) - 1)
        b = c - p * xp.trunc(c / p)
        b = xp.where(b >= n, p - b - 1, b)
    elif mode == "wrap":
        p = n - 1
        a = c + p * (xp.trunc(-c / p) + 1)
        b = c - p * xp.trunc(c / p)
    else:   # grid-wrap
        a = c + n * (xp.trunc((-1 - c) / n) + 1)
        b = c - n * xp.trunc(c / n)
    return xp.where(low, a, xp.where(high, b, c))


def _extend(idx, n, mode):
    """The coefficient a tap index reads: scipy's spline boundary ('constant' and 'wrap' mirror); -1: cval."""
    if mode == "grid-constant":
        return np.where((idx < 0) | (idx >= n), -1, idx)
    if mode == "nearest":
        return np.clip(idx, 0, n - 1)
    return _fold(idx.astype(np.float64), n, "mirror" if mode in ("constant", "wrap") else mode).astype(np.int64)


def _needed(lo, hi, n, order, mode):
    """The sorted tap indices (outside [0, n-1] where the mode extends the coefficients) that points with
    raw coordinates in [lo, hi] along an axis of n coefficients read, one more each side for rounding."""
    h = order // 2 + 1
    full = (-1.0, float(n))
    if not (np.isfinite(lo) and np.isfinite(hi)):
        lo, hi = (-order // 2 - 2.0, n + order // 2 + 2.0) if mode in ("nearest", "grid-constant") else full
    if mode == "constant":
        lo, hi = max(lo, 0.0), min(hi, n - 1.0)
        if lo > hi:   # every point outside: cval
            return np.zeros(1, np.int64)
    elif mode in ("nearest", "grid-constant"):
        b = order // 2 + 2
        lo, hi = min(max(lo, -b), n + b), min(max(hi, -b), n + b)
    elif not (lo >= 0 and hi <= n - 1):
        if n <= 2 or hi - lo > 2 * n:
            lo, hi = full
        else:
            # the folds are piecewise shifts and mirrors, apart by n - 1 at least: points within 0.5 of
            # a sample map within 0.5 of its image
            m = _fold(np.linspace(lo, hi, int(np.ceil(2 * (hi - lo))) + 2), n, mode)
            first = np.floor(m - 0.5).astype(np.int64) - h
            last = np.floor(m + 0.5).astype(np.int64) + h + 1
            base = int(first.min())
            cover = np.zeros(int(last.max()) - base + 2, np.int64)
            np.add.at(cover, first - base, 1)
            np.add.at(cover, last - base + 1, -1)
            return np.flatnonzero(np.cumsum(cover) > 0) + base
    return np.arange(int(np.floor(lo)) - h, int(np.floor(hi)) + h + 2, dtype=np.int64)


# ---- the maps from output indices to input coordinates, computed as scipy computes them ----
class _Affine:
    """c = offset + matrix @ o, summed in scipy's order (the offset, then each output axis in turn)."""

    def __init__(self, matrix, offset):
        self.matrix, self.offset = np.asarray(matrix, np.float64), np.asarray(offset, np.float64)

    def points(self, pts):
        """Coordinates of output index arrays (one per output axis, broadcasting) per input axis."""
        out = []
        for h in range(self.matrix.shape[0]):
            t = self.offset[h]
            for ll, g in enumerate(pts):
                t = t + g * self.matrix[h, ll]
            out.append(t)
        return out

    def fast(self, ndi, region, o0, shape, move, dtype, order, mode, cval):
        offset = np.array([float(c) for c in self.points([np.float64(o) for o in o0])]) + move
        return ndi.affine_transform(region, self.matrix, offset, output_shape=shape, output=dtype, order=order,
                                    mode=mode, cval=cval, prefilter=False)


class _ZoomShift:
    """Per axis c = k (+ shift), then * zoom (grid_mode: (c + 0.5) * zoom - 0.5): scipy's zoom_shift."""

    def __init__(self, zoom=None, shift=None, grid_mode=False):
        self.zoom, self.shift, self.grid_mode = zoom, shift, grid_mode

    def points(self, pts):
        out = []
        for h, g in enumerate(pts):
            c = g * 1.0
            if self.shift is not None:
                c = c + self.shift[h]
            if self.zoom is not None:
                c = (c + 0.5) * self.zoom[h] - 0.5 if self.grid_mode else c * self.zoom[h]
            out.append(c)
        return out

    def fast(self, ndi, region, o0, shape, move, dtype, order, mode, cval):
        if self.zoom is None:   # the region's shape out (it holds the chunk's): the chunk is its start
            out = ndi.shift(region, -(np.asarray(self.shift) + np.asarray(o0) + move), output=dtype, order=order,
                            mode=mode, cval=cval, prefilter=False)   # the public shift negates its argument
            return out[tuple(slice(0, s) for s in shape)]
        start = np.array([float(c) for c in self.points([np.float64(o) for o in o0])]) + move
        if (self.zoom == 0).any():   # an axis of one sample zoomed: every point reads coordinate 0
            return ndi.affine_transform(region, np.diag(self.zoom), start, output_shape=shape, output=dtype,
                                        order=order, mode=mode, cval=cval, prefilter=False)
        # a diagonal matrix: the separable zoom/shift sampling, at (k + start / zoom) * zoom
        return ndi.affine_transform(region, self.zoom, start, output_shape=shape, output=dtype, order=order,
                                    mode=mode, cval=cval, prefilter=False)


def _grid(o0, shape):
    """Output index arrays of a chunk, broadcasting (one per axis)."""
    d = len(shape)
    return [np.arange(o, o + s, dtype=np.float64).reshape((-1,) + (1,) * (d - 1 - a))
            for a, (o, s) in enumerate(zip(o0, shape))]


def _corners(tf, o0, shape):
    """Per input axis, the extremes of a chunk's coordinates (affine along every axis: at its corners)."""
    ends = [np.array([o, o + s - 1], np.float64).reshape((-1,) + (1,) * (len(shape) - 1 - a))
            for a, (o, s) in enumerate(zip(o0, shape))]
    return [(float(np.min(c)), float(np.max(c))) for c in tf.points(ends)]


# ---- one output chunk ----
class _Plan:
    """What a chunk's task needs: its tap indices per input axis (V; `anchored`: a run of the image), the
    chunks it reads (their bounds along each axis), its pieces and the call's settings."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def _region(blocks, plan, xp):
    """The coefficients at the plan's tap indices (built by the mode outside the image)."""
    real = [_extend(v, n, plan.mode) for v, n in zip(plan.V, plan.L)]
    uniq = [np.unique(r[r >= 0]) for r in real]
    if any(u.size == 0 for u in uniq):   # 'grid-constant' taps all outside the image along an axis
        return xp.full(tuple(v.size for v in plan.V), plan.cval, plan.dtype)
    compact = xp.empty(tuple(u.size for u in uniq), plan.dtype)
    for block, cells in zip(blocks, itertools.product(*plan.cells)):
        dst, src = [], []
        for u, (s, e) in zip(uniq, cells):
            a, b = np.searchsorted(u, s), np.searchsorted(u, e)
            dst.append(slice(a, b))
            src.append(u[a:b] - s)
        for ax, idx in enumerate(src):   # the chunk's needed rows: a slice where they are consecutive
            sel = slice(int(idx[0]), int(idx[-1]) + 1) if idx[-1] - idx[0] + 1 == idx.size else xp.asarray(idx)
            block = block[(slice(None),) * ax + (sel,)]
        compact[tuple(dst)] = block
    out = compact
    for ax, (r, u) in enumerate(zip(real, uniq)):
        where = np.searchsorted(u, np.maximum(r, 0))
        if u.size != r.size or not (r == u).all():
            out = xp.take(out, xp.asarray(where), axis=ax)
        if (r < 0).any():
            out[(slice(None),) * ax + (xp.asarray(r < 0),)] = plan.cval
    return out


def _local(c, v, n, plan, xp):
    """Coordinates along a folded axis (in coefficient space) moved into the region: mapped by the mode,
    then into the run of the tap indices `v` that holds their taps."""
    c = _fold(c, n, plan.mode, xp)
    if plan.order == 0:   # the tap itself: moved exactly (a coordinate moved may round onto a half-way tie)
        c = xp.floor(c + 0.5)
    shift = xp.asarray(np.arange(v.size, dtype=np.float64) - v)
    pos = xp.searchsorted(xp.asarray(v), xp.floor(c)).clip(0, v.size - 1)
    return c + shift[pos]


def _sample(blocks, plan, coords=None):
    """One output chunk: the region its points read, sampled by the in-memory function, piece by piece
    (`plan.pieces`: (start in the chunk, shape, fast) along the transformed axes)."""
    from .._engine import xp_of

    xp = xp_of(blocks[0])
    region = _region(blocks, plan, xp)
    ndi = _ndi()
    nb = plan.batch
    o0 = plan.o0[nb:]
    runs = []
    for start, size, fast in plan.pieces:
        at = tuple(o + s for o, s in zip(o0, start))
        if fast:
            move = plan.npad - np.array([v[0] for v in plan.V[nb:]], np.float64)
            runs.append(lambda r, at=at, size=size, move=move: plan.tf.fast(
                ndi, r, at, size, move, plan.out_dtype, plan.order, plan.mode, plan.cval))
            continue
        if coords is None:   # broadcasting: along its own axis only for zoom and shift
            cs = [xp.asarray(c) for c in plan.tf.points(_grid(at, size))]
        else:
            # NumPy coordinates beside CuPy chunks (a warp's, computed on the host) move to the device
            cs = [xp.asarray(coords[h], dtype=np.float64) for h in range(coords.shape[0])]
        local = xp.stack([xp.broadcast_to(c + plan.npad - v[0] if anchored else _local(c + plan.npad, v, n, plan, xp),
                                          size)
                          for c, v, n, anchored in zip(cs, plan.V[nb:], plan.L[nb:], plan.anchored)])
        runs.append(lambda r, local=local: ndi.map_coordinates(r, local, output=plan.out_dtype, order=plan.order,
                                                               mode=plan.mode, cval=plan.cval, prefilter=False))
    if not nb and len(runs) == 1:
        return runs[0](region)
    out = xp.empty(plan.shape, plan.out_dtype)
    for b in np.ndindex(*plan.shape[:nb]):
        for (start, size, _), run in zip(plan.pieces, runs):
            out[b + tuple(slice(s, s + n) for s, n in zip(start, size))] = run(region[b])
    return out


def _pieces(tf, o0, shape, L, npad, order, fast):
    """A chunk's pieces: the whole chunk (fast: its taps all inside the image), or for zoom and shift its
    box whose taps stay inside the image (fast) and the strips around it (coordinates as in memory)."""
    whole = [((0,) * len(shape), shape, fast)]
    if fast or not isinstance(tf, _ZoomShift):
        return whole
    h = order // 2 + 1
    cuts = []
    for ax, (c, n) in enumerate(zip(tf.points(_grid(o0, shape)), L)):
        inner = np.flatnonzero((c.ravel() + npad >= h + 1) & (c.ravel() + npad <= n - h - 3))
        if not inner.size:
            return [((0,) * len(shape), shape, False)]
        a, b = int(inner[0]), int(inner[-1]) + 1   # one run: the coordinates are monotonic along the axis
        cuts.append([(lo, hi, mid) for lo, hi, mid in ((0, a, False), (a, b, True), (b, shape[ax], False)) if hi > lo])
    return [(tuple(c[0] for c in combo), tuple(c[1] - c[0] for c in combo), all(c[2] for c in combo))
            for combo in itertools.product(*cuts)]


def _anchor(v, lo, hi, n, order, mode):
    """The run of real indices [a, b] a chunk reads along an axis, where sampling it with the mode gives what
    sampling the whole axis does: it holds every tap (`v`, clipped to the image), and the mode's rules reach
    no further than it (no tap or coordinate leaves the image, or the run holds the image's border and the
    mode's rule there: the edge, cval, or mirroring within the run). None: the wrapping modes across the
    border, and folds longer than the run."""
    a = min(max(int(v[0]), 0), n - 1)
    b = min(max(int(v[-1]), a), n - 1)
    if (v[0] >= 0 and v[-1] <= n - 1 and lo >= 0 and hi <= n - 1) or mode in ("constant", "nearest", "grid-constant"):
        return a, b
    if mode in ("mirror", "reflect") and b - a >= order + 3 and (lo >= 0 or a == 0 and -lo + 3 < b - a) and \
            (hi <= n - 1 or b == n - 1 and hi - (n - 1) + 3 < b - a):
        return a, b
    return None


# ---- the whole transform ----
def _coefficients(image, order, mode, cval, prefilter, axes):
    """The image as the chunks sample it: its exact spline coefficients along `axes` (float64, complex128
    for complex input; first padded by scipy's 12 for 'nearest' and 'grid-constant'), by the Dask spline
    prefilter (whole lines along each axis in turn), or the image itself."""
    import dask.array as da

    if not prefilter or order <= 1:
        return image, 0
    npad = _PREPAD if mode in ("nearest", "grid-constant") else 0
    x = image
    if npad:
        width = [(npad, npad) if a in axes else (0, 0) for a in range(x.ndim)]
        x = da.pad(x, width, mode="edge") if mode == "nearest" else da.pad(x, width, constant_values=cval)
    ndi = _ndi()
    if len(axes) == x.ndim:
        return ndi.spline_filter(x, order, output=np.float64, mode=mode), npad
    for a in axes:
        x = ndi.spline_filter1d(x, order, axis=a, output=np.float64, mode=mode)
    return x, npad


def _run(image, tf, out_shape, out_chunks, out_dtype, order, mode, cval, prefilter, batch=0, coords=None,
         bounds=None):
    """The output chunks of a transform `tf` of the last ``ndim - batch`` axes of `image` (the leading
    `batch` axes: planes taken one at a time), or of `coords` (a Dask coordinate array, with each chunk's
    coordinate extremes in `bounds`)."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    mode = "reflect" if mode == "grid-mirror" else mode
    coef, npad = _coefficients(image, order, mode, cval, prefilter,
                               axes=tuple(range(batch, image.ndim)))
    edges = [np.cumsum((0,) + c) for c in coef.chunks]
    out_edges = [np.cumsum((0,) + c) for c in out_chunks]
    L = coef.shape
    meta = da.utils.meta_from_array(coef._meta, ndim=len(out_shape), dtype=out_dtype)
    name = "interpolate-" + tokenize(coef.name, None if coords is None else coords.name, type(tf).__name__,
                                     vars(tf) if tf is not None else None, out_chunks, order, mode, cval, batch)
    # one task per output chunk, taking the coefficient chunks its region needs: built as a graph layer (a
    # Delayed per chunk would carry, and cull, the whole graph once per chunk)
    dsk = {}
    for idx in np.ndindex(*tuple(len(c) for c in out_chunks)):
        o0 = tuple(int(e[i]) for e, i in zip(out_edges, idx))
        shape = tuple(int(c[i]) for c, i in zip(out_chunks, idx))
        if coords is not None:
            ranges = bounds[idx]
        else:
            ranges = _corners(tf, o0[batch:], shape[batch:])
        V = [np.arange(o, o + s, dtype=np.int64) for o, s in zip(o0[:batch], shape[:batch])]
        # the fast path moves the offset, which rounds differently: order 0 (ties half way) and bool and
        # integer outputs (a value of about 1 truncated to 0 or 1; n + 0.5 rounded either way) take every
        # coordinate computed as in memory
        moved = coords is None and order > 0 and np.dtype(out_dtype).kind in "fc"
        fast = moved
        anchored = []
        for (lo, hi), n in zip(ranges, L[batch:]):
            v = _needed(lo + npad, hi + npad, n, order, mode)
            fast = fast and lo + npad >= 0 and hi + npad <= n - 1 and v[0] >= 0 and v[-1] <= n - 1
            run = _anchor(v, lo + npad, hi + npad, n, order, mode)
            anchored.append(run is not None)
            V.append(v if run is None else np.arange(run[0], run[1] + 1, dtype=np.int64))
        cells, picks = [], []
        for v, e, n in zip(V, edges, L):
            r = _extend(v, n, mode)
            r = r[r >= 0]
            lo_c, hi_c = (np.searchsorted(e, r.min(), "right") - 1, np.searchsorted(e, r.max(), "right") - 1) \
                if r.size else (0, 0)
            used = [i for i in range(lo_c, hi_c + 1) if ((r >= e[i]) & (r < e[i + 1])).any()] or [0]
            picks.append(used)
            cells.append([(int(e[i]), int(e[i + 1])) for i in used])
        blocks = [(coef.name,) + k for k in itertools.product(*picks)]
        # pieces on the fast path need the region to be one run of the image along every axis
        pieces = _pieces(tf, o0[batch:], shape[batch:], L[batch:], npad, order, fast) if moved and all(anchored) \
            else [((0,) * (len(shape) - batch), shape[batch:], False)]
        plan = _Plan(V=V, L=L, cells=cells, pieces=pieces, anchored=anchored, tf=tf, o0=o0, shape=shape,
                     batch=batch, npad=npad, order=order, mode=mode, cval=cval, dtype=coef.dtype, out_dtype=out_dtype)
        dsk[(name,) + idx] = (_sample, blocks, plan) + (((coords.name, 0) + idx,) if coords is not None else ())
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[coef] + ([coords] if coords is not None else []))
    return da.Array(graph, name, chunks=out_chunks, meta=meta)


# ---- the public functions ----
def _refuse_output(name, output):
    if output is not None and not isinstance(output, (type, str, np.dtype)):
        raise NotImplementedError(f"ndimg.ndimage.{name}: output= arrays cannot take a lazy Dask result; pass a "
                                  f"dtype or nothing")


def _as_dask(x):
    import dask.array as da

    from .._dask import is_dask

    return x if is_dask(x) else da.from_array(x, chunks=x.shape or (), asarray=False)


def _sample_of(image, size=1):
    return np.zeros((size,) * image.ndim, image.dtype)


def _like_input(image, out_shape):
    """Output chunks of a transform: the image's where the shape is kept, else its chunk sizes along each
    axis, bounded by the output."""
    from dask.array.core import normalize_chunks

    if tuple(out_shape) == image.shape:
        return image.chunks
    return normalize_chunks(tuple(max(1, min(c, s)) for c, s in zip(image.chunksize, out_shape)), out_shape)


def _small(fn, image, *args, **kwargs):
    """An empty image or output: computed in memory."""
    import dask.array as da

    return da.from_array(fn(image.compute(), *args, **kwargs), asarray=False)


def shift(input, shift, output=None, order=3, mode="constant", cval=0.0, prefilter=True):
    _refuse_output("shift", output)
    ndi = _ndi()
    image = _as_dask(input)
    dtype = ndi.shift(_sample_of(image), shift, output=output, order=order, mode=mode, cval=cval,
                      prefilter=prefilter).dtype
    if image.size == 0:
        return _small(ndi.shift, image, shift, output=output, order=order, mode=mode, cval=cval, prefilter=prefilter)
    s = np.broadcast_to(np.asarray(shift, np.float64), (image.ndim,))
    tf = _ZoomShift(shift=-s)
    return _run(image, tf, image.shape, image.chunks, dtype, order, mode, cval, prefilter)


def zoom(input, zoom, output=None, order=3, mode="constant", cval=0.0, prefilter=True, *, grid_mode=False):
    _refuse_output("zoom", output)
    ndi = _ndi()
    image = _as_dask(input)
    kw = dict(output=output, order=order, mode=mode, cval=cval, prefilter=prefilter, grid_mode=grid_mode)
    dtype = ndi.zoom(_sample_of(image), zoom, **kw).dtype
    factors = np.broadcast_to(np.asarray(zoom, np.float64), (image.ndim,))
    out_shape = tuple(int(round(s * z)) for s, z in zip(image.shape, factors))
    if image.size == 0 or 0 in out_shape:
        return _small(ndi.zoom, image, zoom, **kw)
    if (factors == 1).all() and prefilter:   # scipy returns the image itself (gh-20999)
        return image.astype(dtype)
    num = np.array(image.shape, np.float64) - (0 if grid_mode else 1)
    div = np.array(out_shape, np.float64) - (0 if grid_mode else 1)
    z = np.divide(num, div, out=np.ones(image.ndim), where=div != 0)
    from dask.array.core import normalize_chunks

    chunks = image.chunks if out_shape == image.shape else normalize_chunks(
        tuple(max(1, min(s, int(round(c * f)))) for c, f, s in zip(image.chunksize, factors, out_shape)), out_shape)
    return _run(image, _ZoomShift(zoom=z, grid_mode=grid_mode), out_shape, chunks, dtype, order, mode, cval,
                prefilter)


def affine_transform(input, matrix, offset=0.0, output_shape=None, output=None, order=3, mode="constant",
                     cval=0.0, prefilter=True):
    from .._dask import is_dask

    _refuse_output("affine_transform", output)
    ndi = _ndi()
    image = _as_dask(input)
    matrix = _host(matrix.compute() if is_dask(matrix) else matrix)
    offset = _host(offset.compute() if is_dask(offset) else offset)
    out_shape = image.shape if output_shape is None else tuple(int(s) for s in output_shape)
    kw = dict(output=output, order=order, mode=mode, cval=cval, prefilter=prefilter)
    dtype = ndi.affine_transform(_sample_of(image), matrix, offset, output_shape=(1,) * len(out_shape), **kw).dtype
    if image.size == 0 or 0 in out_shape:
        return _small(ndi.affine_transform, image, matrix, offset, output_shape=out_shape, **kw)
    d = image.ndim
    m = matrix.astype(np.float64)
    if m.ndim == 2 and m.shape[1] == d + 1 and m.shape[0] in (d, d + 1):   # homogeneous
        offset, m = m[:d, d], m[:d, :d]
    offset = np.broadcast_to(np.asarray(offset, np.float64), (d,))
    tf = _ZoomShift(zoom=m, shift=offset / m) if m.ndim == 1 else _Affine(m, offset)
    chunks = _like_input(image, out_shape) if len(out_shape) == d else _auto(out_shape, dtype)
    return _run(image, tf, out_shape, chunks, dtype, order, mode, cval, prefilter)


def _auto(shape, dtype):
    from dask.array.core import normalize_chunks

    return normalize_chunks("auto", shape, dtype=dtype)


def rotate(input, angle, axes=(1, 0), reshape=True, output=None, order=3, mode="constant", cval=0.0,
           prefilter=True):
    import dask.array as da

    _refuse_output("rotate", output)
    ndi = _ndi()
    image = _as_dask(input)
    kw = dict(reshape=reshape, output=output, order=order, mode=mode, cval=cval, prefilter=prefilter)
    dtype = ndi.rotate(_sample_of(image, 2), angle, axes, **kw).dtype
    ndim = image.ndim
    plane, rot, offset, out_plane = _rotation(angle, axes, image.shape, reshape)
    out_plane = tuple(int(n) for n in out_plane)
    if image.size == 0 or 0 in out_plane:
        return _small(ndi.rotate, image, angle, axes, **kw)
    x = da.moveaxis(image, plane, (-2, -1))
    out_shape = x.shape[:-2] + out_plane
    chunks = x.chunks[:-2] + _like_input(x, out_shape)[-2:]
    out = _run(x, _Affine(rot, offset), out_shape, chunks, dtype, order, mode, cval, prefilter, batch=ndim - 2)
    return da.moveaxis(out, (-2, -1), plane)


def map_coordinates(input, coordinates, output=None, order=3, mode="constant", cval=0.0, prefilter=True):
    from .._dask import is_dask

    _refuse_output("map_coordinates", output)
    ndi = _ndi()
    image = _as_dask(input)
    coords = _as_dask(coordinates)
    kw = dict(output=output, order=order, mode=mode, cval=cval, prefilter=prefilter)
    sample_coords = np.zeros((coords.shape[0],) + (1,) * (coords.ndim - 1), coords.dtype) if coords.ndim else \
        np.zeros((), coords.dtype)
    dtype = ndi.map_coordinates(_sample_of(image), sample_coords, **kw).dtype
    out_shape = coords.shape[1:]
    if image.size == 0 or 0 in out_shape:
        return _small(ndi.map_coordinates, image, coords.compute(), **kw)
    # every chunk holds all the coordinates of its points (NumPy coordinates: the image's chunking); the
    # chunks' coordinate extremes (Dask coordinates are computed for them, and again by the chunks)
    if is_dask(coordinates):
        coords = coords.rechunk({0: -1})
        ext = coords.map_blocks(_extremes, new_axis=0, dtype=np.float64, chunks=((2,), (coords.shape[0],)) + tuple(
            (1,) * len(c) for c in coords.chunks[1:])).compute()
    else:
        spatial = _like_input(image, out_shape) if len(out_shape) == image.ndim else _auto(out_shape, np.float64)
        coords = coords.rechunk(((coords.shape[0],),) + tuple(spatial))
        edges = [np.cumsum((0,) + c) for c in spatial]
        ext = np.block(_nested(coordinates, edges, ()))
    bounds = np.empty(coords.numblocks[1:], dtype=object)
    for idx in np.ndindex(*bounds.shape):
        e = ext[(slice(None), slice(None)) + idx]
        bounds[idx] = [(float(e[0, h]), float(e[1, h])) for h in range(coords.shape[0])]
    return _run(image, None, out_shape, coords.chunks[1:], dtype, order, mode, cval, prefilter, coords=coords,
                bounds=bounds)


def _nested(coordinates, edges, at):
    """The extremes of NumPy coordinates' chunks as nested lists of blocks (for np.block)."""
    a = len(at)
    if a == len(edges):
        return _extremes(coordinates[(slice(None),) + tuple(slice(e[i], e[i + 1]) for e, i in zip(edges, at))])
    return [_nested(coordinates, edges, at + (i,)) for i in range(len(edges[a]) - 1)]


def _extremes(block):
    """A coordinate chunk's smallest and largest coordinate per input axis, as a (2, ndim, 1, ...) block."""
    from ..filters._thresholding import _to_host

    flat = _to_host(block).reshape(block.shape[0], -1).astype(np.float64)
    lo = np.fmin.reduce(flat, axis=1) if flat.shape[1] else np.zeros(block.shape[0])   # NaN: only if all are
    hi = np.fmax.reduce(flat, axis=1) if flat.shape[1] else np.zeros(block.shape[0])
    return np.stack([lo, hi]).reshape((2, block.shape[0]) + (1,) * (block.ndim - 1))
