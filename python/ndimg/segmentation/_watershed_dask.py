"""segmentation.watershed over Dask arrays: exactly scikit-image's labels, lazy, chunk by chunk.

scikit-image's queue holds (value, age) keys, a pushed element's value raised to its pusher's, and labels an
element on entry: each element takes the label of its first neighbour to leave the queue. So each element
leaves at its level E, the smallest over paths from a marker of the largest value on the path (a minimax
distance: reconstruction by erosion of the image from the markers' values), and its pusher is one of its
neighbours of least E. Where those neighbours carry one label, the element's label is that one whatever the
ages say (by induction over the order elements leave). With a symmetric neighbourhood of reach r per axis:

1. E by ``morphology.reconstruction`` over Dask (exact across chunks: border summaries, one join);
2. each chunk (with its neighbours' E within r) joins every flooded element to all its neighbours of least
   E; the pieces are joined across chunk borders in one task (only their ids travel): every pusher chain
   lies in one component of that graph, down to a marker, and a component whose markers carry one label is
   that label throughout;
3. the elements of components whose markers carry several labels (plateaus, passes of equal level: where
   ages decide) are gathered in one task and labelled by their profiles (see _flood_contested): E, then the
   pusher's profile, i.e. the key scikit-image orders them by, less the order its heap gives markers of one
   value;
4. each chunk's labels: its components' labels, the gathered elements' from step 3.

Where that order of tied markers decides a label (markers of one value and different labels reaching an
element at once), images of at most _WHOLE elements are flooded whole in memory, in one task; larger ones
raise NotImplementedError when computed. So does a NaN or +inf image value within the mask (E cannot tell
such elements from unreachable ones). ``compactness`` > 0 and ``watershed_line`` raise NotImplementedError
when the call is made; markers=None takes the local minima of the whole image (plateaus joined across chunk
borders, as in 2) and numbers them with ndimage.label over Dask. A footprint that is not symmetric about its
centre is flooded as one chunk (lazy and exact; one task holds the image).
"""
from __future__ import annotations

import numpy as np

from ..filters._thresholding_dask import delayed
from ..morphology._reconstruction_dask import _border, _sides
from ..morphology._reconstruction_dask import reconstruction as _reconstruction
from ..morphology._util import validate_connectivity
from ..morphology._extrema import neighbour_steps
from ..util._regular_grid import regular_grid
from ..ndimage._binary import generate_binary_structure
from ..ndimage._footprint import to_host
from . import _watershed as _mem

_NAME = "ndimg.segmentation.watershed"
# images up to this many elements are flooded whole, in one task, where markers' ties need scikit-image's heap
_WHOLE = 1 << 24


def _refuse(what):
    raise NotImplementedError(f"{_NAME} on Dask arrays: {what}; compute() the arrays first")


def _components(edges, nodes, steps, depth, sides, origin, shape):
    """The components, within the chunk, of the graph joining each element p of `nodes` to p + step where
    edges[j] (core-shaped bool per step) holds: their ids (-1 off `nodes`), count, the ids of the chunk's
    border elements (global C index, id), and the edges leaving the chunk (id, global C index)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    cshape = nodes.shape
    n = nodes.size
    strides = np.cumprod((cshape[1:] + (1,))[::-1])[::-1]
    src, dst, out_src, out_dst = [], [], [], []
    for s, edge in zip(steps, edges):
        # p + s within the chunk: a box of p; the edges outside it leave the chunk
        box = tuple(slice(max(0, -int(d)), c - max(0, int(d))) for d, c in zip(s, cshape))
        within = np.zeros(cshape, bool)
        within[box] = edge[box]
        p = np.flatnonzero(within)
        src.append(p)
        dst.append(p + int(np.dot(s, strides)))
        edge = edge.copy()
        edge[box] = False
        p = np.flatnonzero(edge)
        out_src.append(p)
        coords = np.stack(np.unravel_index(p, cshape), axis=1) + s + origin
        out_dst.append(np.ravel_multi_index(tuple(coords.T), shape) if p.size else np.empty(0, np.int64))
    cat = lambda parts: np.concatenate(parts).astype(np.int64) if parts else np.empty(0, np.int64)  # noqa: E731
    src, dst = cat(src), cat(dst)
    _, comp = connected_components(coo_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n)),
                                   directed=False)
    ids, inverse = np.unique(comp.reshape(cshape)[nodes], return_inverse=True)
    local = np.full(n, -1, np.int64)
    local[np.flatnonzero(nodes)] = inverse
    border = _border(cshape, sides, depth)
    bglobal = np.ravel_multi_index(tuple((np.stack(np.unravel_index(border, cshape), axis=1) + origin).T), shape) \
        if border.size else np.empty(0, np.int64)
    return local.reshape(cshape), ids.size, bglobal.astype(np.int64), local[border], local[cat(out_src)], cat(out_dst)


def _neighbours(ext, depth, sides, fill):
    """The chunk of an overlapped block (halos only where another chunk lies), and ``at(step)``: its
    elements' neighbours one step away (`fill` beyond the image)."""
    core = tuple(slice(r if lo else 0, n - (r if hi else 0)) for n, r, (lo, hi) in zip(ext.shape, depth, sides))
    P = np.pad(ext, [(int(r), int(r)) for r in depth], constant_values=fill)
    cshape = tuple(c.stop - c.start for c in core)
    base = [r + c.start for r, c in zip(depth, core)]
    return cshape, lambda step: P[tuple(slice(b + int(d), b + int(d) + c) for b, d, c in zip(base, step, cshape))]


def _flood_pieces(E_ext, markers_ext, mask_ext, image, steps, depth, sides, origin, shape):
    """Stage 2 in one chunk: the components joining each flooded element to its neighbours of least E, and
    each one's markers' labels (smallest, largest)."""
    img = np.asarray(image)
    cshape, at = _neighbours(np.asarray(E_ext, np.float64), depth, sides, np.inf)
    zero = (0,) * len(cshape)
    mk = _neighbours(np.asarray(markers_ext).astype(np.int64), depth, sides, 0)[1](zero)
    inside = _neighbours(np.asarray(mask_ext), depth, sides, False)[1](zero)
    if img.dtype.kind in "fc" and np.any(inside & ~(np.asarray(img, np.float64) < np.inf)):
        _refuse("NaN or +inf image values within the mask have no chunk-correct flooding")
    near = [at(s) for s in steps]
    emin = np.minimum.reduce(near) if near else np.full(cshape, np.inf)
    floods = inside & (mk == 0) & (emin < np.inf)
    local, count, *rest = _components([floods & (q == emin) for q in near], at(zero) < np.inf, steps, depth,
                                      sides, origin, shape)
    lo = np.full(count, np.iinfo(np.int64).max, np.int64)
    hi = np.full(count, np.iinfo(np.int64).min, np.int64)
    m = mk != 0
    np.minimum.at(lo, local[m], mk[m])
    np.maximum.at(hi, local[m], mk[m])
    return local, (count, lo, hi, *rest)


def _minima_pieces(ext, steps, depth, sides, origin, shape):
    """A chunk's plateaus (equal neighbours joined) and whether each has a lower neighbour."""
    cshape, at = _neighbours(np.asarray(ext), depth, sides, 0)
    inside = _neighbours(np.ones(np.shape(ext), bool), depth, sides, False)[1]
    v = at((0,) * len(cshape))
    local, count, *rest = _components([inside(s) & (at(s) == v) for s in steps], np.ones(cshape, bool), steps,
                                      depth, sides, origin, shape)
    lower = np.zeros(cshape, bool)
    for s in steps:
        lower |= inside(s) & (at(s) < v)
    flag = np.zeros(count, np.int64)
    np.maximum.at(flag, local, lower.astype(np.int64))
    return local, (count, flag, flag, *rest)


def _join(summaries):
    """One task: the components of the chunks' pieces joined across chunk borders; per chunk, for each
    piece, the smallest and largest of its component's values (lo, hi) and the component's id."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    bases = np.concatenate([[0], np.cumsum([s[0] for s in summaries])]).astype(np.int64)
    total = int(bases[-1])
    bidx = np.concatenate([s[3] for s in summaries])
    bcomp = np.concatenate([s[4] + b for s, b in zip(summaries, bases[:-1])])
    order = np.argsort(bidx)
    bidx, bcomp = bidx[order], bcomp[order]
    src = np.concatenate([s[5] + b for s, b in zip(summaries, bases[:-1])])
    far = np.concatenate([s[6] for s in summaries])
    dst = bcomp[np.searchsorted(bidx, far)] if far.size else far   # (a far end is its chunk's border element)
    _, comp = connected_components(coo_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(total, total)),
                                   directed=False)
    lo = np.full(total, np.iinfo(np.int64).max, np.int64)
    hi = np.full(total, np.iinfo(np.int64).min, np.int64)
    np.minimum.at(lo, comp, np.concatenate([s[1] for s in summaries]))
    np.maximum.at(hi, comp, np.concatenate([s[2] for s in summaries]))
    return [(lo[comp[a:b]], hi[comp[a:b]], comp[a:b]) for a, b in zip(bases[:-1], bases[1:])]


def _minima_finish(local, joined, constant):
    """A chunk of the local minima: plateaus without a lower neighbour (none in a constant image)."""
    return (joined[1][local] == 0) & (not constant)


def _contested(local, joined, E_ext, markers_ext, depth, sides, origin, shape):
    """Stage 3 in one chunk: its elements in components where several labels meet: global C index, E,
    marker, component."""
    lo, hi, comp = joined
    sel = local >= 0
    sel[sel] = lo[local[sel]] < hi[local[sel]]
    if not sel.any():
        return None
    at = np.nonzero(sel)
    g = np.ravel_multi_index(tuple(a + o for a, o in zip(at, origin)), shape)
    E = _neighbours(np.asarray(E_ext, np.float64), depth, sides, 0)[1]((0,) * local.ndim)
    mk = _neighbours(np.asarray(markers_ext).astype(np.int64), depth, sides, 0)[1]((0,) * local.ndim)
    return g.astype(np.int64), E[sel], mk[sel], comp[local[sel]]


def _flood_contested(parts, steps, shape, origins, cshapes, whole):
    """Stage 3 in one task: the labels of the gathered elements (per chunk: coordinates in the chunk, labels).

    Each element leaves scikit-image's queue by its key: (E, its pusher's key, ...) down to a marker, whose
    own key is its value, then its place among the markers of that value. Leaving out that place, the key is
    the element's profile: E, then its pusher's profile, which orders the elements by E, then within one E
    by the hops from where the flood reached that level, then by the profile the flood came with. Profiles
    do not depend on the markers' order (a pusher is among the neighbours of least profile), and an element
    whose neighbours of least profile carry one label takes it whatever that order is (by induction over
    the profiles). So the profiles are ranked level by level, hop by hop, each element labelled by its
    neighbours of least rank. Where those carry different labels, only the order scikit-image's heap gives
    markers of one value decides: `whole` (an image of at most _WHOLE elements: its image, markers and mask
    blocks, footprint and offset) is then flooded in memory, as one; without it, NotImplementedError."""
    parts = [p for p in parts if p is not None and p[0].size]
    if not parts:
        return [None] * len(origins)
    g = np.concatenate([p[0] for p in parts])
    order = np.argsort(g)
    g = g[order]
    E, mk, comp = (np.concatenate([p[i] for p in parts])[order] for i in (1, 2, 3))
    n = g.size
    coords = np.stack(np.unravel_index(g, shape), axis=1)
    nb = np.full((n, len(steps)), -1, np.int64)   # the gathered neighbours (the others never push these)
    for j, s in enumerate(steps):
        there = coords + s
        ok = np.flatnonzero(np.all((there >= 0) & (there < shape), axis=1))
        t = np.ravel_multi_index(tuple(there[ok].T), shape)
        pos = np.minimum(np.searchsorted(g, t), n - 1)
        hit = g[pos] == t
        nb[ok[hit], j] = pos[hit]
    unset = np.iinfo(np.int64).max
    rank = np.full(n + 1, unset, np.int64)   # [n]: no neighbour
    label = np.zeros(n + 1, np.int64)
    next_rank = 0

    class Tied(Exception):
        pass

    def settle(who):
        """Rank and label `who` (one hop of one level) from their ranked neighbours; returns the ranks."""
        r = rank[nb[who]]
        best = r.min(axis=1)
        at = r == best[:, None]
        lab = label[nb[who]]
        first = lab[np.arange(who.size), np.argmax(at, axis=1)]
        if np.any(at & (lab != first[:, None])):
            raise Tied
        label[who] = first
        _, dense = np.unique(best, return_inverse=True)
        return first, next_rank + dense

    is_marker = mk != 0
    levels = np.unique(E)
    by_level = np.argsort(E, kind="stable")
    bounds = np.searchsorted(E[by_level], levels)
    bounds = np.append(bounds, n)
    nb[nb < 0] = n
    waiting = np.zeros(n + 1, bool)

    def rank_levels():
        nonlocal next_rank
        for li in range(levels.size):
            S = by_level[bounds[li]:bounds[li + 1]]
            # the level's roots: its markers (profile (L, marker)), and the elements a lower level reaches
            m = S[is_marker[S]]
            roots = S[~is_marker[S] & (rank[nb[S]] < unset).any(axis=1)]
            if m.size:
                label[m] = mk[m]
                rank[m] = next_rank
                next_rank += 1
            if roots.size:
                _, rk = settle(roots)
                rank[roots] = rk
                next_rank = int(rk.max()) + 1
            waiting[S] = True
            waiting[m] = waiting[roots] = False
            front = np.concatenate([m, roots])
            while front.size:
                # the next hop: waiting elements next to the front (their only ranked neighbours on this level)
                cand = nb[front].ravel()
                cand = np.unique(cand[waiting[cand]])
                if not cand.size:
                    break
                _, rk = settle(cand)
                rank[cand] = rk
                next_rank = int(rk.max()) + 1
                waiting[cand] = False
                front = cand

    # markers of one value and different labels in one component: the ranking may meet their tie (and then
    # stop), where the whole image is at hand it is flooded at once
    m = np.flatnonzero(mk)
    kinds = np.unique(np.stack([comp[m], (E[m] + 0.0).view(np.int64), mk[m]], axis=1), axis=0)   # (-0.0: 0.0)
    tied = whole is not None and bool(np.any(np.all(kinds[1:, :2] == kinds[:-1, :2], axis=1)))
    try:
        if tied:
            raise Tied
        rank_levels()
    except Tied:
        if whole is None:
            _refuse("markers of one value and different labels flood an element at once, which only the order "
                    "of scikit-image's whole heap decides (in memory up to %d elements)" % _WHOLE)
        image, markers, mask, footprint, offset = whole
        labels = _mem.watershed(np.block(image), np.block(markers), connectivity=footprint, offset=offset,
                                mask=np.block(mask))
        label[:n] = labels.reshape(-1)[g]
    out = []
    for o, c in zip(origins, cshapes):
        inc = np.all((coords >= o) & (coords < np.asarray(o) + c), axis=1)
        out.append((coords[inc] - o, label[:n][inc]))
    return out


def _finish(local, joined, flooded, dtype):
    """Stage 4 in one chunk: each component's one label (0 off the flooded elements), the contested
    elements' from stage 3."""
    lo, hi, _ = joined
    out = np.where(local >= 0, np.where(lo <= hi, lo, 0)[np.maximum(local, 0)] if lo.size else 0, 0)
    if flooded is not None and flooded[1].size:
        out[tuple(flooded[0].T)] = flooded[1]
    return out.astype(dtype)


def _whole(image, markers, mask, **kw):
    return _mem.watershed(image, markers, mask=mask, **kw)


def _seeds(count, mask_size, n, block_shape, origin, shape, dtype):
    """A chunk of regular_seeds(shape, int(n / (count / size))) (scikit-image's markers from a number)."""
    grid = regular_grid(shape, int(n / (count / mask_size)))
    axes = [np.arange(full)[sl] for sl, full in zip(grid, shape)]   # the grid's coordinates per axis
    picked = tuple(len(a) for a in axes)
    out = np.zeros(block_shape, dtype)
    sel = [np.flatnonzero((a >= o) & (a < o + c)) for a, o, c in zip(axes, origin, block_shape)]
    if all(s.size for s in sel):
        mesh = np.meshgrid(*sel, indexing="ij")
        ordinal = np.ravel_multi_index(tuple(mesh), picked)
        out[np.ix_(*[a[s] - o for a, s, o in zip(axes, sel, origin)])] = 1 + ordinal
    return out


def _by_chunks(arrays, depth):
    """The delayed overlapped blocks of each array (halos of `depth` where another chunk lies), and per
    block (C order of blocks): index, sides, global origin, shape."""
    import dask.array as da

    ov = dict(enumerate(depth))
    bnd = {a: "none" for a in range(len(depth))}
    ext = [da.overlap.overlap(a, depth=ov, boundary=bnd).to_delayed(optimize_graph=False) for a in arrays]
    chunks = arrays[0].chunks
    grid = arrays[0].numblocks
    starts = [np.concatenate([[0], np.cumsum(c)]) for c in chunks]
    blocks = [(idx, _sides(idx, grid), tuple(int(s[i]) for s, i in zip(starts, idx)),
               tuple(c[i] for c, i in zip(chunks, idx))) for idx in np.ndindex(*grid)]
    return ext, blocks


def _assemble(parts, blocks, dtype, grid):
    import dask.array as da

    out = np.empty(grid, dtype=object)
    for part, (idx, _, _, cshape) in zip(parts, blocks):
        out[idx] = da.from_delayed(part, shape=cshape, dtype=dtype, meta=np.empty((0,) * len(cshape), dtype))
    return da.block(out.tolist())


def _wider(arrays, depth):
    """The arrays rechunked where a chunk is thinner than the reach (overlap needs halos from one chunk)."""
    chunks = arrays[0].chunks
    if all(min(c) >= r for c, r in zip(chunks, depth)):
        return arrays
    work = tuple(c if min(c) >= r else (sum(c),) for c, r in zip(chunks, depth))
    return [a.rechunk(work) for a in arrays]


def _device(x, like):
    """A host Dask array's chunks as CuPy arrays (`like`'s chunk library)."""
    import cupy
    import dask.array as da

    return x.map_blocks(cupy.asarray, meta=da.utils.meta_from_array(like._meta, ndim=x.ndim, dtype=x.dtype))


def _local_minima(image, connectivity):
    """morphology.local_minima(image, connectivity=connectivity) of a Dask image, lazily: plateaus joined
    across chunk borders, kept where no element of theirs has a lower neighbour."""
    footprint = generate_binary_structure(image.ndim, connectivity)
    steps, _ = neighbour_steps((3,) * image.ndim, footprint, (1,) * image.ndim)
    depth = (1,) * image.ndim
    chunks = image.chunks
    (work,) = _wider([image], depth)
    (ext,), blocks = _by_chunks([work], depth)
    pieces = [delayed(_minima_pieces, nout=2)(ext[b[0]], steps, depth, b[1], b[2], work.shape) for b in blocks]
    joined = delayed(_join, nout=len(blocks))([p[1] for p in pieces])
    constant = (work.min() == work.max()).to_delayed().ravel()[0]
    out = _assemble([delayed(_minima_finish)(p[0], joined[i], constant) for i, p in enumerate(pieces)], blocks,
                    bool, work.numblocks)
    return out.rechunk(chunks)


def watershed(image, markers=None, connectivity=1, offset=None, mask=None, compactness=0, watershed_line=False):
    """segmentation.watershed of Dask arrays (image, markers and mask each Dask or in memory): a lazy Dask
    array chunked like the image (like the first Dask argument where the image is in memory)."""
    import dask.array as da

    from .._dask import is_dask

    like = next(x for x in (image, markers, mask) if is_dask(x))
    # CuPy chunks: the stages run on the host (their graph work is NumPy's), the labels go back as CuPy chunks
    gpu = any(is_dask(x) and type(x._meta).__module__.startswith("cupy") for x in (image, markers, mask))
    image, markers, mask = (x.map_blocks(to_host, meta=np.empty((0,) * x.ndim, x.dtype)) if gpu and is_dask(x)
                            else x for x in (image, markers, mask))
    if compactness > 0:
        _refuse("compactness > 0 (a compact watershed's entries depend on their source marker's distance)")
    if watershed_line:
        _refuse("watershed_line=True (its elements are labelled as they leave the queue, in its order)")
    chunks = like.chunks
    image = (image if is_dask(image) else da.from_array(to_host(image), chunks=chunks)).rechunk(chunks)
    if image.ndim == 0:
        raise TypeError("watershed: a 0-d image has no neighbours to flood")
    footprint, offset = validate_connectivity(image.ndim, connectivity, offset)
    if mask is None:
        mask = da.ones(image.shape, dtype=bool, chunks=chunks)
    else:
        if tuple(np.shape(mask)) != image.shape:
            raise ValueError(f"`mask` (shape {tuple(np.shape(mask))}) must have same shape as `image` "
                             f"(shape {image.shape})")
        mask = (mask if is_dask(mask) else da.from_array(to_host(mask), chunks=chunks)).astype(bool).rechunk(chunks)
    if markers is None:
        if not np.isscalar(connectivity):
            _refuse("markers=None with a footprint as connectivity")
        markers = _mem.label(_local_minima(image, connectivity) * mask,
                             structure=generate_binary_structure(image.ndim, connectivity))[0]
    elif not isinstance(markers, (np.ndarray, list, tuple)) and not is_dask(markers):
        count = mask.sum().to_delayed().ravel()[0]
        grid = image.numblocks
        _, blocks = _by_chunks([image], (0,) * image.ndim)
        seeds = _assemble([delayed(_seeds)(count, image.size, markers, b[3], b[2], image.shape, np.int64)
                           for b in blocks], blocks, np.int64, grid)
        markers = seeds * mask
    else:
        if tuple(np.shape(markers)) != image.shape:
            raise ValueError(f"`markers` (shape {tuple(np.shape(markers))}) must have same shape as `image` "
                             f"(shape {image.shape})")
        markers = markers if is_dask(markers) else da.from_array(to_host(markers), chunks=chunks)
        markers = markers.rechunk(chunks) * mask
    if markers.dtype.kind not in "iub":
        raise TypeError(f"watershed: markers must be integers, not {markers.dtype}")
    dtype = markers.dtype
    if image.size == 0:
        out = da.zeros(image.shape, dtype=dtype, chunks=chunks)
        return _device(out, like) if gpu else out
    steps, _ = neighbour_steps(image.shape, footprint, offset)
    centred = np.array_equal(np.asarray(offset), np.array(footprint.shape) // 2)
    if not centred or set(map(tuple, steps.tolist())) != set(map(tuple, (-steps).tolist())):
        # one-way steps: E is no symmetric distance; flooded as one chunk, as in memory
        one = image.shape
        whole = da.map_blocks(_whole, image.rechunk(one), markers.rechunk(one), mask.rechunk(one), dtype=dtype,
                              connectivity=footprint, offset=offset)
        return _device(whole.rechunk(chunks), like) if gpu else whole.rechunk(chunks)
    values = image.astype(np.float64)
    E = _reconstruction(da.where(markers != 0, values, np.inf), da.where(mask, values, np.inf), method="erosion",
                        footprint=footprint)   # (centred: its default offset)
    depth = tuple(int(r) for r in np.abs(steps).max(axis=0)) if len(steps) else (0,) * image.ndim
    E, markers, mask, image = _wider([E, markers, mask, image], depth)
    (E_ext, mk_ext, mask_ext), blocks = _by_chunks([E, markers, mask], depth)
    imgs = image.to_delayed(optimize_graph=False)
    shape = image.shape
    pieces = [delayed(_flood_pieces, nout=2)(E_ext[b[0]], mk_ext[b[0]], mask_ext[b[0]], imgs[b[0]], steps, depth,
                                             b[1], b[2], shape) for b in blocks]
    joined = delayed(_join, nout=len(blocks))([p[1] for p in pieces])
    contested = [delayed(_contested)(p[0], joined[i], E_ext[b[0]], mk_ext[b[0]], depth, b[1], b[2], shape)
                 for i, (p, b) in enumerate(zip(pieces, blocks))]
    whole = None
    if image.size <= _WHOLE:
        # (the blocks the other stages read: made once; the task holds them all only where ties need them)
        whole = tuple(a.to_delayed(optimize_graph=False).tolist() for a in (image, markers, mask)) + (footprint,
                                                                                                        offset)
    flooded = delayed(_flood_contested, nout=len(blocks))(contested, steps, shape, [b[2] for b in blocks],
                                                          [b[3] for b in blocks], whole)
    out = _assemble([delayed(_finish)(p[0], joined[i], flooded[i], dtype) for i, p in enumerate(pieces)], blocks,
                    dtype, image.numblocks)
    return _device(out.rechunk(chunks), like) if gpu else out.rechunk(chunks)
