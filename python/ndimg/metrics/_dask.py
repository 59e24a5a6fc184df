"""The metrics of ndimg.metrics over Dask arrays, chunk-correct and lazy.

Every chunk pair is reduced on its engine by the primitives the in-memory metric uses (difference sums,
image statistics, joint histograms, label-pair counts); the small partials are added up and the metric's
own final math (in _simple_metrics.py / _common.py) runs on them. structural_similarity computes its SSIM
image blockwise with the window's halo; hausdorff_distance searches each chunk's points against the other
image's chunks that may hold their nearest. Scalars come back as 0-d Dask arrays, tuples and vectors as the
reference returns them, contingency tables as a one-chunk Dask array holding the sparse table (its shape is
known once the labels' maxima are). hausdorff_pair takes no Dask arrays yet.
"""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from .._rules import channel_axis_index, supported_float_type
from ..filters._thresholding_dask import (Stats, add, blocks, delayed, empty_like, known, on_device, reduction,
                                          scalar, stats_mean, tree, vector)
from ..ndimage._footprint import to_host
from . import _common as c
from . import _set_metrics
from . import _simple_metrics as sm
from ._adapted_rand_error import adapted_rand_error as _adapted_rand_error
from ._structural_similarity import _Window as ssim_window
from ._contingency_table import contingency_table as _contingency_table, to_sparse
from ._variation_of_information import variation_of_information as _variation_of_information
from ._variation_of_information import vi_from_table


def _as_dask(*arrays):
    """The arguments as Dask arrays (a NumPy/CuPy one alongside a Dask one becomes one, chunked alike)."""
    import dask.array as da

    first = next(a for a in arrays if isinstance(a, da.Array))
    return tuple(a if isinstance(a, da.Array) else da.from_array(a, chunks=first.chunks) for a in arrays)


def _xp(image):
    return xp_of(image._meta)


# ---------------------------------------------------------------------------------------------------
# Pixel-wise metrics: sums of squared differences, statistics
# ---------------------------------------------------------------------------------------------------

def _diff_sums(a, b):
    s = sm._diff_sums(a, b)
    return np.array([s.sum_sq_diff, s.sum_sq_a])


def _sums(image0, image1):
    """The delayed [sum of (a - b)^2, sum of a^2] of two Dask images (as _simple_metrics._diff_sums)."""
    return reduction(_diff_sums, add, image0, image1)


def _mse(sums, n, xp):
    return sm._mean(sums[0], n, xp)


def _float_stats(chunk, dtype):
    return Stats.of(chunk.astype(dtype, copy=False))


def mean_squared_error(image0, image1):
    image0, image1 = _as_dask(image0, image1)
    c.check_shape_equality(image0, image1)
    if image0.size == 0:
        return known(sm.mean_squared_error(empty_like(image0), empty_like(image1)))
    xp = _xp(image0)
    return scalar(delayed(_mse)(_sums(image0, image1), image0.size, xp), np.float64, None if xp is np else image0)


def _nrmse(sums, n, xp, normalization, st, dtype):
    if normalization == "euclidean":
        return sm.rmse_ratio(sums[0], sums[1], n, xp)
    if normalization == "min-max":
        lo, hi = sm.stats_range(dtype, st)
        denom = dtype.type(hi) - dtype.type(lo)
    else:
        denom = st.mean(n, dtype)
    return xp.sqrt(sm._mean(sums[0], n, xp)) / denom


def normalized_root_mse(image_true, image_test, *, normalization="euclidean"):
    image_true, image_test = _as_dask(image_true, image_test)
    c.check_shape_equality(image_true, image_test)
    norm = normalization.lower()
    if image_true.size == 0 or norm not in ("euclidean", "min-max", "mean"):  # its result or error without data
        return known(sm.normalized_root_mse(empty_like(image_true), empty_like(image_test),
                                            normalization=normalization))
    xp = _xp(image_true)
    dtype = np.dtype(supported_float_type((image_true.dtype, image_test.dtype)))
    st = None if norm == "euclidean" else reduction(_float_stats, Stats.merge, image_true, dtype=dtype)
    value = delayed(_nrmse)(_sums(image_true, image_test), image_true.size, xp, norm, st, dtype)
    return scalar(value, np.float64, None if xp is np else image_true)


def _psnr(sums, n, xp, data_range, bounds, st, dtype):
    if data_range is None:
        data_range = sm.nominal_range(*bounds, *sm.stats_range(dtype, st))
    return sm.psnr(data_range, sm._mean(sums[0], n, xp), xp)


def peak_signal_noise_ratio(image_true, image_test, *, data_range=None):
    image_true, image_test = _as_dask(image_true, image_test)
    c.check_shape_equality(image_true, image_test)
    if image_true.size == 0:
        return known(sm.peak_signal_noise_ratio(empty_like(image_true), empty_like(image_test), data_range=data_range))
    xp = _xp(image_true)
    bounds = st = None
    if data_range is None:
        bounds = sm.nominal_bounds(image_true, image_test)
        st = reduction(Stats.of, Stats.merge, image_true)
    value = delayed(_psnr)(_sums(image_true, image_test), image_true.size, xp, data_range, bounds, st,
                           image_true.dtype)
    return scalar(value, np.float64, None if xp is np else image_true)


# ---------------------------------------------------------------------------------------------------
# Normalized mutual information: a joint histogram
# ---------------------------------------------------------------------------------------------------

def _joint_counts(a, b, edges, dtype):
    counts = sm.joint_uniform_counts(a.astype(dtype, copy=False), b.astype(dtype, copy=False),
                                     edges0=edges[0], edges1=edges[1])
    return counts if isinstance(counts, np.ndarray) else counts.get()


def _edges(st0, st1, dtype, bins):
    return [sm.joint_edges(*sm.stats_range(dtype, st), dtype, bins) for st in (st0, st1)]


def _nmi(counts, edges, xp):
    return on_device(xp, sm.nmi(sm.density(counts, edges, np)))


def normalized_mutual_information(image0, image1, *, bins=100):
    import dask.array as da

    image0, image1 = _as_dask(image0, image1)
    if image0.dtype.kind == "c" or image1.dtype.kind == "c" or image0.ndim != image1.ndim or image0.size == 0 \
            or image1.size == 0:  # the in-memory errors (and an empty image's result) need no data
        return known(sm.normalized_mutual_information(empty_like(image0), empty_like(image1), bins=bins))
    dtype = sm.joint_dtype(image0, image1, bins)
    if dtype is None:
        sm.normalized_mutual_information(np.zeros((1,) * image0.ndim, image0.dtype),
                                         np.zeros((1,) * image1.ndim, image1.dtype), bins=bins)  # bad bins: its error
        raise NotImplementedError(f"ndimg.metrics.normalized_mutual_information takes Dask arrays with an integer "
                                  f"number of bins and no float16 or object values, not bins={bins!r} of "
                                  f"{np.result_type(image0.dtype, image1.dtype)}: compute() the arrays first")
    if image0.shape != image1.shape:  # zero-padded at the end of each axis to the larger shape, as in memory
        shape = np.maximum(image0.shape, image1.shape)
        image0, image1 = (da.pad(im, [(0, s - n) for s, n in zip(shape, im.shape)]) for im in (image0, image1))
    st0, st1 = (reduction(_float_stats, Stats.merge, im, dtype=dtype) for im in (image0, image1))
    edges = delayed(_edges)(st0, st1, dtype, bins)
    counts = tree((delayed(_joint_counts)(a, b, edges, dtype) for a, b in blocks(image0, image1)), add)
    xp = _xp(image0)
    return scalar(delayed(_nmi)(counts, edges, xp), np.float64, None if xp is np else image0)


# ---------------------------------------------------------------------------------------------------
# Segmentation metrics: the contingency table from per-chunk label-pair counts
# ---------------------------------------------------------------------------------------------------

def _shape(st0, st1):
    return c.table_extent(st0.imin, st0.imax, 0), c.table_extent(st1.imin, st1.imax, 1)


def _table(true, test, ignore_labels, normalize):
    """The delayed Table of two Dask label images (table_from_labels)."""
    for im in (true, test):
        c.check_labels(im)
    shape = delayed(_shape)(*(reduction(Stats.of, Stats.merge, im) for im in (true, test)))
    # each chunk counts its pairs the way the merged table is kept: a dense table (whatever the chunk's size:
    # bounded by the cells, not the pixels) or the present pairs
    dense = delayed(c.dense)(shape, c._DENSE_PAIRS)
    parts = [delayed(c.pair_counts)(a, b, shape, dense) for a, b in blocks(true, test)]
    return delayed(_finish)(tree(parts, _merge_pairs), dense, shape, true.size, ignore_labels, normalize)


def _merge_pairs(parts):
    return c.merge_pairs(parts) if isinstance(parts[0], tuple) else add(parts)


def _finish(counts, dense, shape, size, ignore_labels, normalize):
    return c.finish_table(*c.pair_keys(counts, dense), shape, size, ignore_labels, normalize)


def _labels(image_true, image_test):
    """The two label images paired pixel by pixel: as they are where their shapes agree, else flattened (in
    memory, images of one size are compared in C order)."""
    true, test = _as_dask(image_true, image_test)
    if true.size != test.size:
        raise ValueError("row, column, and data array must all be the same length")
    if true.shape == test.shape or true.size == 0:
        return true, test
    return true.reshape(-1), test.reshape(-1)


def contingency_table(im_true, im_test, *, ignore_labels=None, normalize=False, sparse_type="matrix"):
    import dask.array as da

    if sparse_type not in ("matrix", "array"):
        raise ValueError(f"`sparse_type` must be 'array' or 'matrix', got {sparse_type}")
    true, test = _labels(im_true, im_test)
    if true.size == 0:
        return known(_contingency_table(empty_like(true), empty_like(test)))
    table = delayed(to_sparse)(_table(true, test, ignore_labels, normalize), sparse_type)
    # the table's type as meta (a device table's: an empty dense array of the chunks' library)
    meta = to_sparse(c.Table(*(np.zeros(0, dtype=t) for t in (np.int64, np.int64, np.float64)), (0, 0)),
                     sparse_type) if xp_of(true._meta) is np else true._meta.reshape(0, 0).astype(np.float64)
    return da.from_delayed(table, shape=(np.nan, np.nan), dtype=np.float64, meta=meta)


def adapted_rand_error(image_true=None, image_test=None, *, table=None, ignore_labels=(0,), alpha=0.5):
    image_true, image_test = _as_dask(image_true, image_test)
    c.check_shape_equality(image_true, image_test)
    if table is not None:  # no pixels needed
        return tuple(known(v) for v in _adapted_rand_error(empty_like(image_true), empty_like(image_test),
                                                             table=table, ignore_labels=ignore_labels, alpha=alpha))
    true, test = _labels(image_true, image_test)
    if not 0.0 <= alpha <= 1.0:
        for im in (true, test):
            c.check_labels(im)
        raise ValueError("alpha must be between 0 and 1")
    if true.size == 0:
        return tuple(known(v) for v in _adapted_rand_error(empty_like(true), empty_like(test),
                                                             ignore_labels=ignore_labels, alpha=alpha))
    from ._adapted_rand_error import are_from_table

    values = delayed(are_from_table, nout=3)(_table(true, test, ignore_labels, False), alpha)
    xp = _xp(true)
    return tuple(scalar(v, np.float64, None if xp is np else true) for v in values)


def variation_of_information(image0=None, image1=None, *, table=None, ignore_labels=()):
    image0, image1 = _as_dask(image0, image1)
    c.check_shape_equality(image0, image1)
    if table is not None:
        return known(_variation_of_information(empty_like(image0), empty_like(image1), table=table), image0)
    true, test = _labels(image0, image1)
    if true.size == 0:
        return known(_variation_of_information(empty_like(true), empty_like(test), ignore_labels=ignore_labels))
    value = delayed(vi_from_table)(_table(true, test, ignore_labels, True), _xp(true))
    return vector(value, 2, np.float64, true)


# ---------------------------------------------------------------------------------------------------
# Structural similarity: the SSIM image blockwise (with the window's halo), then its mean
# ---------------------------------------------------------------------------------------------------

def _ssim_block(a, b, window, float_type, which):
    return window.maps(a, b, float_type, which == "grad")[which == "grad"]


def _with_halo(which, im1, im2, window, float_type, depth):
    """``which`` map ("ssim" or "grad") of two Dask images, each block computed with ``depth`` pixels of its
    neighbours (the window's own reflection at the true image border), in the images' chunks."""
    import dask.array as da
    from dask.array.overlap import ensure_minimum_chunksize

    # an axis shorter than the halo is one chunk (no neighbours); other chunks grow to the halo at least
    depths = tuple(depth if depth < n else 0 for n in im1.shape)
    chunks = tuple((n,) if depth >= n else ensure_minimum_chunksize(depth, c) if depth else c
                   for n, c in zip(im1.shape, im1.chunks))
    meta = da.utils.meta_from_array(im1._meta, ndim=im1.ndim, dtype=float_type)
    out = da.map_overlap(_ssim_block, im1.rechunk(chunks), im2.rechunk(chunks), depth=depths, boundary="none",
                         dtype=float_type, meta=meta, window=window, float_type=float_type, which=which)
    return out.rechunk(im1.chunks)


def _ssim(im1, im2, float_type, win_size, gradient, data_range, gaussian_weights, full, **kwargs):
    w = ssim_window(im1, im2, win_size, data_range, gaussian_weights, **kwargs)
    s = _with_halo("ssim", im1, im2, w, float_type, w.radius)
    crop = s[tuple(slice(w.pad, n - w.pad) for n in s.shape)]
    xp = _xp(im1)
    mssim = scalar(delayed(stats_mean)(reduction(Stats.of, Stats.merge, crop), crop.size, np.dtype(np.float64), xp), np.float64,
                   None if xp is np else im1)  # reduce.mean's float64 mean, as in memory
    if not gradient:
        return (mssim, s) if full else mssim
    grad = _with_halo("grad", im1, im2, w, float_type, 2 * w.radius) * (2 / im1.size)  # local means of local means
    return (mssim, grad, s) if full else (mssim, grad)


def structural_similarity(im1, im2, *, win_size=None, gradient=False, data_range=None, channel_axis=None,
                          gaussian_weights=False, full=False, **kwargs):
    import dask.array as da

    im1, im2 = _as_dask(im1, im2)
    c.check_shape_equality(im1, im2)
    float_type = supported_float_type(im1.dtype)
    args = (win_size, gradient, data_range, gaussian_weights, full)
    if channel_axis is None:
        return _ssim(im1, im2, float_type, *args, **kwargs)
    axis = channel_axis_index(channel_axis, im1.ndim)
    at = lambda ch: (slice(None),) * axis + (ch,)
    res = [_ssim(im1[at(ch)], im2[at(ch)], float_type, *args, **kwargs) for ch in range(im1.shape[axis])]
    res = [r if isinstance(r, tuple) else (r,) for r in res]
    m = da.stack([r[0] for r in res]).astype(float_type).mean()  # the channels' means in the float type
    extra = [da.stack([r[i] for r in res], axis=axis) for i in range(1, len(res[0]))]
    return (m, *extra) if extra else m


# ---------------------------------------------------------------------------------------------------
# Hausdorff distance: each chunk's points against the other image's chunks that may hold their nearest
# ---------------------------------------------------------------------------------------------------

def _chunk_points(chunk, origin):
    """A chunk's nonzero pixels as coordinates in the whole image (int64)."""
    p = _set_metrics._points(chunk)
    return p + xp_of(p).asarray(np.asarray(origin, dtype=p.dtype)) if p.size else p


def _box(chunk, origin):
    """(number of nonzero pixels, their lowest and highest coordinates) of a chunk."""
    p = _chunk_points(chunk, origin)
    if not len(p):
        return 0, None, None
    return len(p), to_host(p.min(axis=0)), to_host(p.max(axis=0))


def _origins(image):
    starts = [np.concatenate([[0], np.cumsum(c)[:-1]]) for c in image.chunks]
    return [tuple(int(s[i]) for s, i in zip(starts, idx)) for idx in np.ndindex(*image.numblocks)]


def _nearest_from(dst_chunk, dst_origin, src_chunks, src_origins):
    """(largest, sum, count) of the distances from a chunk's points to the nearest of the source chunks'."""
    dst = _chunk_points(dst_chunk, dst_origin)
    src = [_chunk_points(c, o) for c, o in zip(src_chunks, src_origins)]
    d = _set_metrics._nearest(xp_of(dst).concatenate(src), dst)[0]
    return float(d.max()), float(d.sum()), len(d)


def _candidates(boxes_dst, boxes_src):
    """For each non-empty chunk of one image, the chunks of the other that may hold the nearest point of
    any of its points: those whose box is no farther than the nearest of the farthest box distances."""
    src = [(j, lo, hi) for j, (n, lo, hi) in enumerate(boxes_src) if n]
    out = []
    for i, (n, lo, hi) in enumerate(boxes_dst):
        if not n:
            continue
        far = [np.sum(np.maximum(np.abs(h - lo), np.abs(hi - l)).astype(np.float64) ** 2) for _, l, h in src]
        near = [np.sum(np.maximum(0, np.maximum(l - hi, lo - h)).astype(np.float64) ** 2) for _, l, h in src]
        bound = min(far)
        out.append((i, [j for (j, _, _), d in zip(src, near) if d <= bound]))
    return out


def _directed(dst, src, boxes_dst, boxes_src):
    """The delayed (largest, sum, count) of the distances from every point of ``dst`` to ``src``."""
    dst_chunks, src_chunks = dst.to_delayed(optimize_graph=False).ravel(), src.to_delayed(optimize_graph=False).ravel()
    dst_origins, src_origins = _origins(dst), _origins(src)
    parts = [delayed(_nearest_from)(dst_chunks[i], dst_origins[i], [src_chunks[j] for j in js],
                                    [src_origins[j] for j in js]) for i, js in _candidates(boxes_dst, boxes_src)]
    return tree(parts, _merge_distances)


def _merge_distances(parts):
    return max(p[0] for p in parts), sum(p[1] for p in parts), sum(p[2] for p in parts)


def _hausdorff(held0, held1, boxes0, boxes1, method, xp):
    """The distance from the boxes (the lazy graph's first pass); the nearest points in a second pass over
    the candidate chunks only, computed from here."""
    from ..filters._thresholding_dask import _compute

    n0, n1 = sum(b[0] for b in boxes0), sum(b[0] for b in boxes1)
    if n0 == 0:
        return 0 if n1 == 0 else np.inf
    if n1 == 0:
        return np.inf
    fwd, bwd = _compute([_directed(held1.array, held0.array, boxes1, boxes0),
                         _directed(held0.array, held1.array, boxes0, boxes1)])
    d = max(fwd[0], bwd[0]) if method == "standard" else max(fwd[1] / fwd[2], bwd[1] / bwd[2])
    return on_device(xp, np.float64(d))


def hausdorff_distance(image0, image1, method="standard"):
    from ..filters._thresholding_dask import _Held

    if method not in ("standard", "modified"):
        raise ValueError(f"unrecognized method {method}")
    image0, image1 = _as_dask(image0, image1)
    # the arrays' own chunk keys (to_delayed optimizes into renamed ones by default): computed once, shared
    boxes = [[delayed(_box)(c, o) for c, o in zip(im.to_delayed(optimize_graph=False).ravel(), _origins(im))]
             for im in (image0, image1)]
    xp = _xp(image0)
    value = delayed(_hausdorff)(_Held(image0), _Held(image1), *boxes, method, xp)
    return scalar(value, np.float64, None if xp is np else image0)
