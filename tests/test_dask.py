"""Dask arrays in, Dask arrays out (issue 23), generated from the registry.

Every entry that takes an array runs its cases on Dask arrays with random chunks (seeded by the rng fixture;
uneven, with chunks of size 1 on one axis): NumPy chunks on the cpu engine, CuPy chunks on the cuda engine.
- An entry with a halo rule or a dask= implementation: building the call runs no task (lazy), array results
  are Dask arrays (scalars 0-d Dask arrays), with the input's chunks where the shape is kept; computed, they
  match the reference at the registry tolerance (and ndimg's in-memory result).
- An entry with neither, or a call its rule declares global: NotImplementedError naming the function, at once.
The first case runs at every dimensionality with two dtypes, the others at one dimensionality.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from helpers import check_result, dask_tasks, on_engine, threshold_atol, to_engine, to_host
from ndimg._cases import IMAGE_KINDS
from ndimg._registry import REGISTRY, entries
from test_registry_cases import _make, _ndims, _quiet, main_dtype

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

# try_all_threshold plots the image: it needs its pixels, and computes a Dask array like any array-like
ENTRIES = [e for e in entries() if e.ndim and "none" not in e.inputs and e.name != "try_all_threshold"]

# calls whose result depends on the whole image although the entry is otherwise blockwise
GLOBAL_CALLS = {
    "filters.frangi": lambda kw: kw.get("gamma") is None,   # gamma=None: half the largest Hessian norm
    "filters.hessian": lambda kw: "gamma" in kw and kw["gamma"] is None,
    # binary morphology with iterations < 1: until nothing changes
    **{f"ndimage.binary_{n}": lambda kw: kw.get("iterations", 1) < 1 for n in ("erosion", "dilation", "opening", "closing")},
    # mark_boundaries' subpixel image: a cubic spline zoom, its prefilter over the whole image
    "segmentation.mark_boundaries": lambda kw: kw.get("mode") == "subpixel",
    # the default number of bins, the whole image's maximum + 1, is the result's shape
    "filters.rank.windowed_histogram": lambda kw: kw.get("n_bins") is None,
    # finite differences are one-sided at the image border, which a wrapped halo would hide
    "feature.hessian_matrix": lambda kw: kw.get("mode") == "wrap" and not kw.get("use_gaussian_derivatives"),
    "feature.shape_index": lambda kw: kw.get("mode") == "wrap",
    # quantile thresholds: of the whole image's gradient magnitude
    "feature.canny": lambda kw: bool(kw.get("use_quantiles")),
    # a compact watershed's entries depend on their marker's distance; watershed lines on the queue's order
    "segmentation.watershed": lambda kw: kw.get("compactness", 0) > 0 or bool(kw.get("watershed_line")),
    # each label's peaks follow rules over the label's whole extent
    "feature.peak_local_max": lambda kw: kw.get("labels") is not None,
    "feature.corner_peaks": lambda kw: kw.get("labels") is not None,
}


def _params():
    out = []
    for e in ENTRIES:
        main = main_dtype(e)
        for i, c in enumerate(e.cases):
            nds = _ndims(e, c)
            if i:
                nds = nds[:1]
            dtypes = [c.dtype] if c.dtype else [main] + ([e.dtypes[0]] if i == 0 and e.dtypes[0] != main else [])
            for nd in nds:
                for d in dtypes:
                    reason = e.known_differences.get(f"case:{c!r}") or e.known_differences.get(f"dtype:{d}")
                    out.append(pytest.param(e, c, d, nd, id=f"{e.qualname}-{c!r}-{d}-{nd}d",
                                            marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else []))
    return out


def random_chunks(rng, shape):
    """Uneven chunks along every axis, with chunks of size 1 along one axis (where it has 3 elements)."""
    ones = rng.integers(len(shape)) if shape else None
    chunks = []
    for a, s in enumerate(shape):
        cuts = set(rng.integers(1, s, size=rng.integers(1, 4)).tolist()) if s > 1 else set()
        if a == ones and s >= 3:
            c = int(rng.integers(1, s - 1))
            cuts |= {c, c + 1}
        edges = [0, *sorted(cuts), s]
        chunks.append(tuple(b - a for a, b in zip(edges, edges[1:]) if b > a) or (s,))
    return tuple(chunks)


def _to_dask(x, engine, chunks):
    return da.from_array(to_engine(x, engine), chunks=chunks, asarray=False)


def _dask_call(entry, c, args, kw, engine, chunks, rng):
    """The call's image arrays (positional image kinds, keyword arrays shaped like them) as Dask arrays;
    other arrays (weights, kernels) as in-memory calls take them. A second image of another shape (a bad
    shape-mismatch call) gets chunks of its own."""
    gargs, gkw = on_engine(engine, args, kw)
    kinds = [k.partition(":")[0] for k in (c.inputs or entry.inputs) if k != "none"]
    shape = args[0].shape
    dargs = [_to_dask(a, engine, chunks if a.shape == shape else random_chunks(rng, a.shape))
             if k in IMAGE_KINDS and isinstance(a, np.ndarray) else g for a, g, k in zip(args, gargs, kinds)]
    dkw = {k: _to_dask(v, engine, chunks) if isinstance(v, np.ndarray) and v.shape == shape else gkw[k]
           for k, v in kw.items()}
    return dargs, dkw


def _check_lazy(got, expected, chunks, shape):
    """Every array (and scalar) result a Dask array; image-shaped ones with the input's chunks."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), type(got)
        for g, x in zip(got, expected):
            _check_lazy(g, x, chunks, shape)
        return
    if isinstance(expected, (np.ndarray, np.generic, float, int)):
        assert isinstance(got, da.Array), type(got)
        if got.shape == shape:
            assert got.chunks == chunks, (got.chunks, chunks)


@pytest.mark.parametrize("entry, c, dtype, ndim", _params())
def test_dask(engine, rng, entry, c, dtype, ndim):
    if engine not in entry.engines:
        pytest.skip(f"{entry.qualname} runs on {entry.engines}")
    args, kw = _make(entry, c, rng, dtype, ndim, "c")
    chunks = random_chunks(rng, args[0].shape)
    dargs, dkw = _dask_call(entry, c, args, kw, engine, chunks, rng)
    fn = entry.load()
    refuses = not (entry.halo or entry.dask) or GLOBAL_CALLS.get(entry.qualname, lambda kw: False)(kw)
    with dask_tasks() as tasks:
        if refuses:
            with pytest.raises(NotImplementedError, match=f"ndimg.{entry.qualname} "):
                _quiet(fn, *dargs, **dkw)
        else:
            lazy = _quiet(fn, *dargs, **dkw)
    assert not tasks.keys, f"{len(tasks.keys)} tasks ran while the call was built"
    if refuses:
        return
    expected = _quiet(entry.load_reference(), *args, **kw)
    _check_lazy(lazy, expected, chunks, args[0].shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (got,) = dask.compute(lazy, scheduler="sync")
    check_result(entry, got, expected, engine, args, kw)
    gargs, gkw = on_engine(engine, args, kw)
    in_memory = _quiet(fn, *gargs, **gkw)
    atol = threshold_atol(args[0], entry) if entry.extra.get("compare") == "threshold" else entry.atol
    # moments of float32 images: no summation order over chunks repeats the in-memory float32 sums' rounding;
    # within 4 times their own error of them, as the reference comparison holds them
    tol = None if entry.extra.get("compare") == "own_error" else (entry.rtol, atol)
    check_result(entry, got, to_host(in_memory), engine, args, kw, tol=tol)


def test_random_chunks_cover_borders():
    """The chunking the tests draw: uneven, sizes summing to the shape, size-1 chunks on some axis."""
    rng = np.random.default_rng(0)
    seen_one = 0
    for _ in range(50):
        shape = (17, 23)
        ch = random_chunks(rng, shape)
        assert tuple(sum(c) for c in ch) == shape and all(min(c) >= 1 for c in ch)
        seen_one += any(1 in c for c in ch)
    assert seen_one == 50


# ---------------------------------------------------------------------------------------------------
# seams on purpose: chunks smaller than the halo, wrap-around borders, channel axes split across chunks
# ---------------------------------------------------------------------------------------------------
def _lazy_equal(engine, name, x, chunks, _tol=None, **kw):
    entry = REGISTRY[name]
    expected = entry.load_reference()(x, **kw)
    got = entry.load()(_to_dask(x, engine, chunks), **kw)
    assert isinstance(got, da.Array) and got.chunks == da.core.normalize_chunks(chunks, x.shape)
    check_result(entry, got.compute(scheduler="sync"), expected, engine, (x,), kw, _tol)


@pytest.mark.parametrize("mode", ["reflect", "wrap", "grid-wrap", "constant", "mirror", "nearest"])
def test_gaussian_seams_every_mode(engine, rng, mode):
    x = rng.standard_normal((40, 33)).astype(np.float32)
    _lazy_equal(engine, "ndimage.gaussian_filter", x, ((1, 2, 30, 7), (11, 11, 11)), sigma=(2.5, 1.5), mode=mode,
                cval=0.5)


def test_ridge_seams(engine, rng):
    """sato at sigma 2: a 22-pixel halo (two Gaussian derivative passes truncated at 8 sigma / sqrt(2))."""
    x = rng.random((70, 64))
    _lazy_equal(engine, "filters.sato", x, ((25, 25, 20), (30, 34)), sigmas=(2,))


def test_channel_axis_split(engine, rng):
    x = rng.random((20, 18, 3)).astype(np.float32)
    _lazy_equal(engine, "filters.gaussian", x, ((7, 13), (5, 13), (1, 2)), sigma=1.5, channel_axis=-1)


def test_masked_edges_wrap(engine, rng):
    """A mask is chunked with the image; where the image wraps, outside it is still outside the mask."""
    x = rng.random((19, 21)).astype(np.float32)
    mask = rng.random(x.shape) > 0.2
    entry = REGISTRY["filters.sobel"]
    expected = entry.load_reference()(x, mask=mask, mode="wrap")
    chunks = ((1, 9, 9), (10, 11))
    got = entry.load()(_to_dask(x, engine, chunks), mask=_to_dask(mask, engine, chunks), mode="wrap")
    check_result(entry, got.compute(scheduler="sync"), expected, engine)


def test_valid_correlation_shape(engine, rng):
    """correlate_sparse(mode='valid'): a shorter result, each block extended by its next neighbour."""
    x = rng.random((30, 26)).astype(np.float32)
    kernel = rng.random((4, 5)) * (rng.random((4, 5)) > 0.3)
    entry = REGISTRY["filters.correlate_sparse"]
    expected = entry.load_reference()(x, kernel, mode="valid")
    got = entry.load()(_to_dask(x, engine, ((3, 12, 15), (13, 13))), kernel, mode="valid")
    assert got.shape == expected.shape
    check_result(entry, got.compute(scheduler="sync"), expected, engine)


def test_not_blockwise_names_function(engine, rng):
    """A global filter refuses Dask input at once, naming itself (never a per-chunk answer)."""
    x = _to_dask(rng.random((16, 16)), engine, 8)
    import ndimg.filters as f

    with pytest.raises(NotImplementedError, match="ndimg.filters.meijering "):
        f.meijering(x)
    lpi = f.LPIFilter2D(lambda r, c: np.exp(-(r**2 + c**2)))
    with pytest.raises(NotImplementedError, match="ndimg.filters.LPIFilter2D"):
        lpi(x)


def test_import_stays_cheap():
    """import ndimg (and a NumPy call) imports no Dask."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, ndimg.filters as f; f.sobel(np.ones((4, 4))); "
            "sys.exit('dask' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@pytest.mark.parametrize("entry, c", [pytest.param(e, c, id=f"{e.qualname}-{c!r}") for e in ENTRIES if e.halo
                                      for c in e.bad])
def test_dask_bad(engine, rng, entry, c):
    """Arguments the reference refuses: the blockwise call raises the in-memory call's exception type when it is
    built (a bad call never becomes a graph that fails later)."""
    if engine not in entry.engines:
        pytest.skip(f"{entry.qualname} runs on {entry.engines}")
    ndim = (_ndims(entry, c) or [None])[0]
    args, kw = _make(entry, c, rng, c.dtype or main_dtype(entry), ndim, "c")
    gargs, gkw = on_engine(engine, args, kw)
    with pytest.raises(Exception) as in_memory:
        _quiet(entry.load(), *gargs, **gkw)
    dargs, dkw = _dask_call(entry, c, args, kw, engine, random_chunks(rng, args[0].shape), rng)
    with pytest.raises(in_memory.type):
        _quiet(entry.load(), *dargs, **dkw)
