"""Chunk-correct global operations on Dask arrays (issue 23, item 2): the histogram thresholds, Li, the
metrics and hysteresis reduce per-chunk partials to the whole image's answer.

Each function runs on Dask arrays chunked on purpose (chunks of size 1, uneven chunks, objects crossing many
chunks) and is checked against scikit-image (the registry's tolerance) and against ndimg in memory; building
the call computes nothing. NumPy chunks on the cpu engine, CuPy chunks on the cuda engine.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.filters as skf
import skimage.metrics as skm

import ndimg.filters as nf
import ndimg.metrics as nm
from helpers import check_result, to_engine, to_host
from ndimg._registry import REGISTRY

da = pytest.importorskip("dask.array")

CHUNKINGS = {"ones": lambda shape: (1,) * len(shape),
             "uneven": lambda shape: tuple(_uneven(s) for s in shape),
             "whole": lambda shape: shape}


def _uneven(n):
    """Chunks 1, 2, 3, ... (the last one what is left) along an axis of n elements."""
    out, k = [], 1
    while sum(out) + k < n:
        out.append(k)
        k += 1
    return tuple(out + [n - sum(out)])


def chunked(x, chunks, engine):
    """A host array as a Dask array with NumPy (cpu) or CuPy (cuda) chunks."""
    return da.from_array(to_engine(np.ascontiguousarray(x), engine), chunks=chunks, asarray=False)


class Counter:
    """A Dask image whose chunks count how often they are made (laziness: none before compute)."""

    def __init__(self, x):
        self.calls = 0
        self.array = x.map_blocks(self._count, dtype=x.dtype, meta=x._meta)

    def _count(self, block):
        self.calls += 1
        return block


def compute(result):
    if isinstance(result, tuple):
        return tuple(compute(r) for r in result)
    assert isinstance(result, da.Array), type(result)
    return result.compute()


def check(name, dask_args, host_args, engine, kw=None, in_memory_tol="exact"):
    """ndimg's Dask result against the reference and against ndimg on the same (computed) arrays in memory;
    nothing is computed before .compute()."""
    kw = kw or {}
    entry = REGISTRY[name]
    counters = [Counter(a) if isinstance(a, da.Array) else None for a in dask_args]
    args = [c.array if c is not None else a for c, a in zip(counters, dask_args)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = entry.load()(*args, **kw)
        assert all(c is None or c.calls == 0 for c in counters), "computed before .compute()"
        got = compute(result)
        expected = entry.load_reference()(*host_args, **kw)
        # a device result (0-d CuPy for scalars) on the host: it is the expected side of the comparison
        in_memory = to_host(entry.load()(*[to_engine(a, engine) for a in host_args], **kw))
    check_result(entry, got, expected, engine, host_args, kw)
    if in_memory_tol == "exact":  # the same bins and counts: the same threshold, bit for bit
        check_result(entry, got, in_memory, engine, host_args, kw, tol="exact")
    else:
        check_result(entry, got, in_memory, engine, host_args, kw, tol=in_memory_tol)
    return got


# ---------------------------------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------------------------------

def _bimodal(rng, shape, dtype):
    x = np.where(rng.random(shape) < 0.4, rng.normal(60, 12, shape), rng.normal(170, 20, shape))
    x = np.clip(x, 0, 255)
    if np.dtype(dtype).kind == "f":
        return (x / 255).astype(dtype)
    return x.astype(dtype)


HIST = [("threshold_otsu", {}), ("threshold_otsu", dict(nbins=32)), ("threshold_yen", {}),
        ("threshold_isodata", {}), ("threshold_isodata", dict(return_all=True)), ("threshold_minimum", {}),
        ("threshold_triangle", dict(nbins=64)), ("threshold_multiotsu", {}),
        ("threshold_multiotsu", dict(classes=4, nbins=64)), ("threshold_mean", {})]


@pytest.mark.parametrize("chunking", list(CHUNKINGS))
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("name,kw", HIST, ids=[f"{n}-{k}" for n, k in HIST])
def test_histogram_thresholds(engine, rng, name, kw, dtype, chunking):
    shape = (7, 9) if chunking == "ones" else (23, 31)
    x = _bimodal(rng, shape, dtype)
    tol = "exact" if name != "threshold_mean" else None  # means: sums in another order
    check(f"filters.{name}", [chunked(x, CHUNKINGS[chunking](shape), engine)], [x], engine, kw, tol)


@pytest.mark.parametrize("name", ["threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_triangle",
                                  "threshold_li", "threshold_mean", "threshold_multiotsu"])
def test_thresholds_3d_uneven(engine, rng, name):
    x = _bimodal(rng, (9, 10, 11), "float32")
    check(f"filters.{name}", [chunked(x, (_uneven(9), 3, (1, 10)), engine)], [x], engine,
          in_memory_tol="exact" if name not in ("threshold_li", "threshold_mean") else None)


@pytest.mark.parametrize("dtype", ["float16", "bool", "uint64"])
def test_otsu_other_dtypes(engine, rng, dtype):
    x = _bimodal(rng, (13, 17), "float32")
    x = x > 0.5 if dtype == "bool" else x.astype(dtype) if dtype == "float16" else (x * 200).astype(dtype)
    check("filters.threshold_otsu", [chunked(x, (4, (1, 16)), engine)], [x], engine)


@pytest.mark.parametrize("chunking", ["ones", "uneven"])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("kw", [{}, dict(tolerance=0.01), dict(initial_guess=0.4)], ids=repr)
def test_threshold_li(engine, rng, kw, dtype, chunking):
    shape = (6, 7) if chunking == "ones" else (21, 26)
    x = _bimodal(rng, shape, dtype)
    if "initial_guess" in kw and dtype == "uint8":
        kw = dict(initial_guess=100)
    check("filters.threshold_li", [chunked(x, CHUNKINGS[chunking](shape), engine)], [x], engine, kw,
          in_memory_tol=None)


def test_threshold_li_min_gap_across_chunks(engine):
    """The default tolerance is half the smallest gap between distinct values: here only values in
    different chunks are that close."""
    # the rows' own gaps are >= 0.5, the gaps between the rows ~1e-4: with half the rows' smallest gap as
    # the tolerance, Li stops at 68.39 instead of 60.95
    x = np.array([[1.0, 19.0, 31.0, 48.0, 69.0, 162.0, 177.0, 190.0],
                  [1.0001866536954362, 19.00070501213378, 31.000541915872986, 48.00072028996965, 8.5, 70.5, 75.5,
                   154.5]])
    got = check("filters.threshold_li", [chunked(x, (1, 8), engine)], [x], engine, in_memory_tol=None)
    assert abs(got - 60.9455) < 1e-3


@pytest.mark.parametrize("name", ["threshold_otsu", "threshold_li", "threshold_triangle", "threshold_mean"])
def test_constant_image_and_nan(engine, name):
    """A constant image (its value, one chunk holding it first); NaN values with Li (the other value)."""
    x = np.full((5, 6), 0.25, np.float32)
    check(f"filters.{name}", [chunked(x, 2, engine)], [x], engine, in_memory_tol=None)
    if name == "threshold_li":
        x[0, 0] = np.nan
        check(f"filters.{name}", [chunked(x, 2, engine)], [x], engine)


@pytest.mark.parametrize("name", ["threshold_otsu", "threshold_yen", "threshold_minimum"])
def test_errors_are_the_in_memory_errors(engine, name):
    """Errors that need the data come at compute(), the same as in memory: a NaN (non-finite range), one
    value (no two maxima for threshold_minimum)."""
    x = np.arange(30, dtype=np.float64).reshape(5, 6)
    x[4, 5] = np.nan if name != "threshold_minimum" else 1.0
    if name == "threshold_minimum":
        x[:] = 1.0
    fn = getattr(nf, name)
    result = fn(chunked(x, 2, engine))
    with pytest.raises(Exception) as theirs:
        getattr(skf, name)(x)
    with pytest.raises(type(theirs.value)) as ours:
        result.compute()
    assert str(ours.value) == str(theirs.value) or name == "threshold_minimum"


def test_threshold_is_lazy_in_a_pipeline(engine, rng):
    x = _bimodal(rng, (20, 22), "float32")
    c = Counter(chunked(x, (3, 7), engine))
    mask = c.array > nf.threshold_otsu(c.array)
    assert isinstance(mask, da.Array) and c.calls == 0 and mask.chunks == c.array.chunks
    np.testing.assert_array_equal(to_host(mask.compute()), x > skf.threshold_otsu(x))


# ---------------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------------

PIXEL = [("mean_squared_error", {}), ("normalized_root_mse", {}), ("normalized_root_mse", dict(normalization="min-max")),
         ("normalized_root_mse", dict(normalization="mean")), ("peak_signal_noise_ratio", {}),
         ("peak_signal_noise_ratio", dict(data_range=2.0)), ("normalized_mutual_information", {}),
         ("normalized_mutual_information", dict(bins=17))]


@pytest.mark.parametrize("chunking", ["ones", "uneven"])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("name,kw", PIXEL, ids=[f"{n}-{k}" for n, k in PIXEL])
def test_pixel_metrics(engine, rng, name, kw, dtype, chunking):
    shape = (6, 7) if chunking == "ones" else (19, 23)
    a = _bimodal(rng, shape, dtype)
    b = np.clip(a + rng.normal(0, 0.05 if dtype != "uint8" else 10, shape), 0, 1 if dtype != "uint8" else 255)
    b = b.astype(dtype)
    # the two images chunked differently: the second is rechunked like the first
    args = [chunked(a, CHUNKINGS[chunking](shape), engine), chunked(b, (4, 5), engine)]
    check(f"metrics.{name}", args, [a, b], engine, kw, in_memory_tol=None)


def test_metrics_dask_with_in_memory(engine, rng):
    a, b = rng.random((9, 8)), rng.random((9, 8))
    check("metrics.mean_squared_error", [chunked(a, 4, engine), to_engine(b, engine)], [a, b], engine,
          in_memory_tol=None)


def test_nmi_of_different_shapes(engine, rng):
    a, b = rng.random((9, 8)), rng.random((7, 11))
    check("metrics.normalized_mutual_information", [chunked(a, 3, engine), chunked(b, (1, 5), engine)], [a, b],
          engine, in_memory_tol=None)


SSIM = [dict(data_range=1.0), dict(data_range=1.0, gaussian_weights=True, sigma=1.5, use_sample_covariance=False),
        dict(data_range=1.0, win_size=5), dict(data_range=1.0, full=True, gradient=True),
        dict(data_range=1.0, gradient=True, gaussian_weights=True), dict(data_range=1.0, win_size=3, full=True)]


@pytest.mark.parametrize("chunks", [1, (_uneven(17), (2, 16))], ids=["ones", "uneven"])
@pytest.mark.parametrize("kw", SSIM, ids=repr)
def test_structural_similarity(engine, rng, kw, chunks):
    """The SSIM image blockwise with the window's halo (twice it for the gradient), then its mean."""
    shape = (17, 18) if chunks != 1 else (9, 8)
    if kw.get("gaussian_weights") and chunks == 1:
        shape = (13, 12)  # at least the Gaussian window
    # float64: in float32 the variances' cancellation (E[x^2] - mu^2 beside C2 = 9e-4) rounds to ~3e-5 in SSIM,
    # over the registry's 1e-5 where the blocks' filters round otherwise than the whole image's (CUDA, H200)
    a = rng.random(shape)
    b = a + rng.random(shape) * 0.3
    got = check("metrics.structural_similarity", [chunked(a, chunks, engine), chunked(b, chunks, engine)], [a, b],
                engine, kw, in_memory_tol=None)
    if isinstance(got, tuple):
        assert all(g.shape == a.shape for g in got[1:])


def test_structural_similarity_channels_3d(engine, rng):
    a = rng.integers(0, 256, (12, 13, 3), dtype=np.uint8)
    b = np.clip(a + rng.integers(0, 30, a.shape), 0, 255).astype(np.uint8)
    check("metrics.structural_similarity", [chunked(a, (5, 4, 1), engine), chunked(b, (5, 4, 1), engine)], [a, b],
          engine, dict(channel_axis=-1), in_memory_tol=None)
    a3, b3 = (rng.random((9, 10, 11)) for _ in range(2))
    result = nm.structural_similarity(chunked(a3, (2, 3, 4), engine), chunked(b3, (2, 3, 4), engine), data_range=1.0,
                                      full=True)
    assert result[1].chunks == chunked(a3, (2, 3, 4), engine).chunks
    expected = skm.structural_similarity(a3, b3, data_range=1.0, full=True)
    np.testing.assert_allclose(float(result[0].compute()), expected[0], rtol=1e-12)
    np.testing.assert_allclose(to_host(result[1].compute()), expected[1], rtol=1e-10, atol=1e-12)


def _labels(rng, shape, n):
    return rng.integers(0, n, shape).astype(np.int32)


LABELS = [("contingency_table", {}), ("contingency_table", dict(ignore_labels=[0], normalize=True)),
          ("contingency_table", dict(sparse_type="array")), ("adapted_rand_error", {}),
          ("adapted_rand_error", dict(alpha=0.3, ignore_labels=())), ("variation_of_information", {}),
          ("variation_of_information", dict(ignore_labels=(0, 2)))]


@pytest.mark.parametrize("n", [4, 5000], ids=["dense", "sparse"])
@pytest.mark.parametrize("chunking", ["ones", "uneven"])
@pytest.mark.parametrize("name,kw", LABELS, ids=[f"{n}-{k}" for n, k in LABELS])
def test_label_metrics(engine, rng, name, kw, chunking, n):
    shape = (6, 7) if chunking == "ones" else (19, 23)
    a, b = _labels(rng, shape, n), _labels(rng, shape, n)
    if name == "contingency_table" and engine == "cuda":
        pytest.skip("CuPy's sparse tables: compared by the registry's generated cuda cases")
    args = [chunked(a, CHUNKINGS[chunking](shape), engine), chunked(b, CHUNKINGS[chunking](shape), engine)]
    check(f"metrics.{name}", args, [a, b], engine, kw, in_memory_tol=None)


def test_label_metrics_of_other_shapes_and_empty(engine, rng):
    """Images of one size but other shapes pair their pixels in C order; empty images fail as in memory."""
    a, b = _labels(rng, (6, 10), 4), _labels(rng, (4, 15), 4)
    if engine == "cpu":  # CuPy's sparse tables: see test_label_metrics
        check("metrics.contingency_table", [chunked(a, (4, 3), engine), chunked(b, (1, 7), engine)], [a, b],
              engine, in_memory_tol=None)
    e = np.zeros((0, 3), np.int32)
    with pytest.raises(ValueError, match="zero sized"):
        nm.adapted_rand_error(chunked(e, 2, engine), chunked(e, 2, engine))


def test_label_errors_at_compute(engine):
    a = np.array([[0, 1], [2, -1]], np.int32)
    result = nm.contingency_table(chunked(a, 1, engine), chunked(np.abs(a), 1, engine))
    with pytest.raises(ValueError, match="negative axis 0 index: -1"):
        result.compute()
    with pytest.raises(TypeError):
        nm.variation_of_information(chunked(a.astype(float), 1, engine), chunked(a, 1, engine))


@pytest.mark.parametrize("method", ["standard", "modified"])
@pytest.mark.parametrize("shapes,chunks,density", [(((23, 24), (23, 24)), 1, 0.05), (((30, 31), (25, 28)), (7, 5), 0.02),
                                                   (((9, 10, 11), (9, 10, 11)), (4, 3, 5), 0.01),
                                                   (((16, 16), (16, 16)), 4, 0.6)], ids=["ones", "shapes", "3d", "dense"])
def test_hausdorff_distance(engine, rng, shapes, chunks, density, method):
    a, b = (rng.random(s) < density for s in shapes)
    check("metrics.hausdorff_distance", [chunked(a, chunks, engine), chunked(b, chunks, engine)], [a, b], engine,
          dict(method=method), in_memory_tol=None)


def test_hausdorff_nearest_in_a_far_chunk(engine):
    """Each image's single points: the nearest lies chunks away; no points, one empty image."""
    a, b = np.zeros((20, 21), bool), np.zeros((20, 21), bool)
    a[0, 0] = a[19, 20] = True
    b[18, 1] = True
    for method in ("standard", "modified"):
        check("metrics.hausdorff_distance", [chunked(a, 3, engine), chunked(b, 3, engine)], [a, b], engine,
              dict(method=method), in_memory_tol=None)
    empty = np.zeros((20, 21), bool)
    check("metrics.hausdorff_distance", [chunked(empty, 3, engine), chunked(b, 3, engine)], [empty, b], engine,
          in_memory_tol=None)
    assert nm.hausdorff_distance(chunked(empty, 3, engine), chunked(empty, 3, engine)).compute() == 0


def test_hausdorff_pair_refuses_dask(engine):
    """The pair of points (with the reference's tie choice among equally near ones): not chunked yet."""
    m = np.zeros((6, 6), bool)
    m[1, 1] = True
    with pytest.raises(NotImplementedError, match="hausdorff_pair"):
        nm.hausdorff_pair(chunked(m, 3, engine), chunked(m, 3, engine))


# ---------------------------------------------------------------------------------------------------
# Hysteresis
# ---------------------------------------------------------------------------------------------------

def _spiral(n):
    """A one-pixel-wide spiral path (values 0.5) with one seed (0.9) at its inner end, plus a separate
    unseeded blob: the path crosses every chunk many times."""
    x = np.zeros((n, n), np.float32)
    top, left, bottom, right = 0, 0, n - 1, n - 1
    r = c = 0
    while top <= bottom and left <= right:
        x[top, left:right + 1] = 0.5
        x[top:bottom + 1, right] = 0.5
        if bottom > top + 2:
            x[bottom, left:right + 1] = 0.5
        if right > left + 2:
            x[top + 2:bottom + 1, left] = 0.5
        r, c = top + 2, left + 2
        top, left, bottom, right = top + 2, left + 2, bottom - 2, right - 2
        if top <= bottom:
            x[top - 1, left] = 0.5
    x[min(r, n - 1), min(c, n - 1)] = 0.9
    return x


@pytest.mark.parametrize("chunks", [1, 3, (_uneven(21), (20, 1)), (21, 2)], ids=repr)
def test_hysteresis_objects_across_chunks(engine, chunks):
    x = _spiral(21)
    got = check("filters.apply_hysteresis_threshold", [chunked(x, chunks, engine)], [x], engine,
                dict(low=0.3, high=0.8))
    assert got.sum() > 100  # the spiral is kept, through every chunk it crosses


@pytest.mark.parametrize("low,high", [(0.3, 0.7), (0.6, 0.9), (0.7, 0.3)])
@pytest.mark.parametrize("shape,chunks", [((17, 19), 3), ((8, 9, 10), (1, 4, (3, 7))), ((40,), 1)], ids=repr)
def test_hysteresis_random(engine, rng, shape, chunks, low, high):
    x = rng.random(shape)
    check("filters.apply_hysteresis_threshold", [chunked(x, chunks, engine)], [x], engine, dict(low=low, high=high))


def test_hysteresis_chunks_and_thresholds(engine, rng):
    """Same chunks out as in; array thresholds and lazy thresholds (another global operation's result)."""
    x = rng.random((15, 16)).astype(np.float32)
    d = chunked(x, (4, (1, 15)), engine)
    out = nf.apply_hysteresis_threshold(d, 0.4, 0.8)
    assert out.chunks == d.chunks and out.dtype == bool
    lo = rng.random((15, 16)) * 0.5
    np.testing.assert_array_equal(to_host(nf.apply_hysteresis_threshold(d, lo, 0.8).compute()),
                                  skf.apply_hysteresis_threshold(x, lo, 0.8))
    t = nf.threshold_otsu(d)
    c = Counter(d)
    lazy = nf.apply_hysteresis_threshold(c.array, t / 2, t)
    assert c.calls == 0
    t_host = skf.threshold_otsu(x)
    np.testing.assert_array_equal(to_host(lazy.compute()), skf.apply_hysteresis_threshold(x, t_host / 2, t_host))


def test_hysteresis_3d_object_through_every_chunk(engine):
    """A 3-D staircase from one corner to the other, seeded at its far end only."""
    x = np.zeros((12, 12, 12), np.float32)
    for i in range(11):
        x[i, i, i:i + 2] = 0.5
        x[i, i:i + 2, i + 1] = 0.5
        x[i:i + 2, i + 1, i + 1] = 0.5
    x[11, 11, 11] = 0.9
    x[0, 5, 9] = 0.5  # unseeded
    got = check("filters.apply_hysteresis_threshold", [chunked(x, (2, 3, 1), engine)], [x], engine,
                dict(low=0.3, high=0.8))
    assert got[0, 0, 0] and not got[0, 5, 9]
