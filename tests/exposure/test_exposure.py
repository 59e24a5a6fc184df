"""ndimg.exposure beyond the generated registry cases: CLAHE's corners (tile geometry, clipping passes,
bins, large images on every thread), the corrections' refusal of negative values, the paths through value
tables, and the Dask implementations against scikit-image."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.exposure as ske

import ndimg.exposure as ne
from helpers import to_engine, to_host


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _same(got, expected):
    got = to_host(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------------------------------------------
# CLAHE: scikit-image's values exactly
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, kw", [
    ((97, 131), {}),
    ((97, 131), dict(kernel_size=(8, 200), clip_limit=0.02, nbins=64)),     # a tile longer than the image
    ((64, 64), dict(kernel_size=1)),                                         # one-pixel tiles
    ((50, 61), dict(clip_limit=1e-4, nbins=20000)),                          # more bins than grey levels
    ((50, 61), dict(clip_limit=0.3, nbins=7)),
    ((1, 40), dict(kernel_size=(3, 7))),                                     # an axis of one element
    ((13, 17, 19), dict(kernel_size=(2, 5, 8), clip_limit=0.05)),
    ((5, 6, 7, 4), dict(kernel_size=3)),
    ((300,), dict(kernel_size=17)),
])
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "float32", "float64"])
def test_clahe_like_scikit_image(engine, rng, shape, kw, dtype):
    if dtype[0] == "f":
        image = rng.random(shape).astype(dtype)
    else:
        info = np.iinfo(dtype)
        image = rng.integers(max(info.min, -3000), min(info.max, 60000), shape, endpoint=True).astype(dtype)
    expected = _quiet(ske.equalize_adapthist, image, **kw)
    _same(_quiet(ne.equalize_adapthist, to_engine(image, engine), **kw), expected)


def test_clahe_large_image_every_thread(engine, rng):
    """A 4K-like image with default tiles: the parallel schedules (tiles, then rows) give scikit-image's values."""
    image = (rng.random((540, 960)) ** 2).astype(np.float32)
    _same(ne.equalize_adapthist(to_engine(image, engine)), ske.equalize_adapthist(image))


def test_clahe_constant_and_few_levels(engine):
    for image in (np.full((20, 30), 7, np.uint8), np.tile(np.array([0, 255], np.uint8), (16, 8))):
        _same(_quiet(ne.equalize_adapthist, to_engine(image, engine)), _quiet(ske.equalize_adapthist, image))


def test_clahe_rgb(engine, rng):
    """RGB(A): scikit-image equalizes the HSV value channel (the alpha channel dropped)."""
    for channels in (3, 4):
        image = rng.random((40, 50, channels))
        got = to_host(ne.equalize_adapthist(to_engine(image, engine)))
        np.testing.assert_allclose(got, ske.equalize_adapthist(image), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kw, exc", [(dict(kernel_size=(3, 3, 3)), ValueError),
                                     (dict(kernel_size=0), ZeroDivisionError),
                                     (dict(kernel_size=-4), ValueError), (dict(nbins=0), ZeroDivisionError)])
def test_clahe_refuses_like_scikit_image(engine, kw, exc):
    image = np.linspace(0, 1, 400).reshape(20, 20)
    with pytest.raises(exc):
        ske.equalize_adapthist(image, **kw)
    with pytest.raises(exc):
        ne.equalize_adapthist(to_engine(image, engine), **kw)


def test_clahe_float_out_of_range(engine):
    image = np.linspace(-2, 2, 100).reshape(10, 10)
    with pytest.raises(ValueError, match="between -1 and 1"):
        ne.equalize_adapthist(to_engine(image, engine))


# ---------------------------------------------------------------------------------------------------
# the corrections, rescaling and equalization
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["adjust_gamma", "adjust_log", "adjust_sigmoid"])
@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_corrections_refuse_negative_values(engine, name, dtype):
    image = np.array([[0, 3], [-1, 5]], dtype=dtype)
    with pytest.raises(ValueError, match="non-negative"):
        getattr(ske, name)(image)
    with pytest.raises(ValueError, match="non-negative"):
        getattr(ne, name)(to_engine(image, engine))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int16", "bool"])
def test_tables_see_only_present_values(engine, rng, dtype):
    """Through a table over the image's range: scikit-image's values and no warnings from absent values."""
    if dtype == "bool":
        image = rng.random((70, 80)) > 0.5
    else:
        image = rng.integers(0, 120, (70, 80)).astype(dtype)
    for name, kw in (("adjust_gamma", dict(gamma=0.4)), ("adjust_log", dict(inv=True)),
                     ("adjust_sigmoid", dict(gain=30)), ("rescale_intensity", dict(out_range=(0, 7)))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = getattr(ne, name)(to_engine(image, engine), **kw)
        _same(got, _quiet(getattr(ske, name), image, **kw))


def test_rescale_nan_warns(engine):
    image = np.array([0.0, np.nan, 1.0])
    with pytest.warns(UserWarning, match="NaN"):
        got = ne.rescale_intensity(to_engine(image, engine))
    _same(got, _quiet(ske.rescale_intensity, image))


@pytest.mark.parametrize("values", [
    lambda rng: rng.random(200_000).astype(np.float32),
    lambda rng: np.linspace(-3, 5, 2049),   # values on the bin centres and edges
])
def test_equalize_hist_interpolation(engine, rng, values):
    """Floats: NumPy's interpolation (its interval search and slopes), at and between the bin centres."""
    image = values(rng)
    for nbins in (256, 3, 1):
        _same(_quiet(ne.equalize_hist, to_engine(image, engine), nbins=nbins),
              _quiet(ske.equalize_hist, image, nbins=nbins))


def test_match_histograms_groups(engine, rng):
    """Float sources with repeated values, -0.0 beside 0.0 and NaNs: np.unique's groups."""
    image = rng.integers(-5, 5, (40, 30)).astype(np.float64) / 2
    image[0, :5] = -0.0
    image[1, :3] = np.nan
    reference = rng.random((35, 20))
    _same(ne.match_histograms(to_engine(image, engine), to_engine(reference, engine)),
          ske.match_histograms(image, reference))


def test_is_low_contrast_percentiles(engine, rng):
    """8/16-bit images: the percentiles from the value counts equal NumPy's."""
    for dtype in ("uint8", "int16"):
        image = rng.integers(0, 100, (50, 60)).astype(dtype)
        for q in ((1, 99), (0, 100), (37.5, 37.6), (10, 11)):
            for t in (0.0001, 0.001, 0.1):
                assert bool(ne.is_low_contrast(to_engine(image, engine), t, *q)) == bool(
                    ske.is_low_contrast(image, t, *q))


# ---------------------------------------------------------------------------------------------------
# Dask
# ---------------------------------------------------------------------------------------------------
da = pytest.importorskip("dask.array")


def test_dask_global_functions(engine, rng):
    image = rng.integers(0, 50, (30, 40)).astype(np.uint8)
    fimage = rng.random((30, 40, 3)).astype(np.float32)
    mask = rng.random((30, 40)) > 0.3
    chunks = (7, 11)
    cases = [
        ("histogram", (image,), {}), ("histogram", (fimage,), dict(channel_axis=-1, nbins=16)),
        ("histogram", (fimage,), dict(channel_axis=0, source_range="dtype", normalize=True)),
        ("cumulative_distribution", (fimage,), dict(nbins=20)), ("cumulative_distribution", (image,), {}),
        ("equalize_hist", (image,), {}), ("equalize_hist", (fimage[..., 0],), dict(mask=mask)),
        ("rescale_intensity", (image,), {}), ("rescale_intensity", (fimage,), dict(in_range=(0.2, 0.6))),
        ("rescale_intensity", (image,), dict(out_range="image", in_range="uint8")),
    ]
    for name, args, kw in cases:
        expected = _quiet(getattr(ske, name), *args, **kw)
        dargs = [da.from_array(to_engine(a, engine), chunks=chunks + (-1,) * (a.ndim - 2)) for a in args]
        dkw = {k: (da.from_array(to_engine(v, engine), chunks=chunks) if isinstance(v, np.ndarray) else v)
               for k, v in kw.items()}
        lazy = _quiet(getattr(ne, name), *dargs, **dkw)
        got = _quiet(lambda: tuple(x.compute() for x in lazy) if isinstance(lazy, tuple) else lazy.compute())
        got, expected = (r if isinstance(r, tuple) else (r,) for r in (got, expected))
        for g, x in zip(got, expected):
            _same(g, x)


@pytest.mark.parametrize("shape, dtype, kw, chunks", [
    ((97, 131), "float32", {}, (20, 30)),
    ((97, 131), "uint8", dict(kernel_size=(10, 7), clip_limit=0.03), (13, 50)),
    ((40, 41, 30), "float64", dict(kernel_size=(7, 9, 11)), (9, 10, 11)),
    ((50, 60), "int32", dict(kernel_size=7), (10, 10)),
    ((50, 60), "int16", dict(kernel_size=70, nbins=64), (10, 25)),    # one tile longer than the image
    ((300,), "uint16", dict(kernel_size=17), (33,)),
    ((37, 41, 3), "uint8", dict(kernel_size=9), (10, 20, 2)),   # RGB: the HSV value equalized
    ((37, 41, 4), "float32", {}, (20, 15, 4)),
])
def test_dask_clahe(engine, rng, shape, dtype, kw, chunks):
    """CLAHE on chunks that cut through tiles: scikit-image's values, lazily."""
    image = (rng.random(shape) * (1 if dtype[0] == "f" else 1000)).astype(dtype)
    lazy = _quiet(ne.equalize_adapthist, da.from_array(to_engine(image, engine), chunks=chunks), **kw)
    assert isinstance(lazy, da.Array)
    expected = _quiet(ske.equalize_adapthist, image, **kw)
    if image.ndim == 3:   # through ndimg.color's HSV conversions
        np.testing.assert_allclose(to_host(_quiet(lazy.compute)), expected, rtol=1e-6, atol=1e-6)
    else:
        _same(_quiet(lazy.compute), expected)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("channel_axis", [None, 0, -1])
def test_dask_match_histograms(engine, rng, dtype, channel_axis):
    """Distinct values merged across chunks (repeated values, NaNs, -0.0 in float images)."""
    if dtype[0] == "f":
        image = (rng.integers(-20, 20, (31, 29, 3)) / 4).astype(dtype)
        image[0, :4, :] = -0.0
        image[1, :3, :] = np.nan
        reference = rng.random((25, 22, 3)).astype(dtype)
    else:
        image = rng.integers(0, 60, (31, 29, 3)).astype(dtype)
        reference = rng.integers(0, 90, (25, 22, 3)).astype(dtype)
    if channel_axis == 0:
        image, reference = np.moveaxis(image, -1, 0), np.moveaxis(reference, -1, 0)
    lazy = ne.match_histograms(da.from_array(to_engine(image, engine), chunks=(2, 10, 7)),
                               da.from_array(to_engine(reference, engine), chunks=(3, 5, 9)), channel_axis=channel_axis)
    _same(lazy.compute(), ske.match_histograms(image, reference, channel_axis=channel_axis))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "uint64", "float16", "float32", "float64", "bool"])
def test_dask_is_low_contrast(engine, rng, dtype):
    """The percentiles' order statistics selected across chunks (16 key bits a pass) and NumPy's
    interpolation between them: scikit-image's answer at thresholds around the image's own ratio."""
    if dtype == "bool":
        images = [rng.random((23, 17)) > 0.5, np.ones((23, 17), bool)]
    elif dtype[0] == "f":
        images = [(rng.standard_normal((23, 17)) * 0.01).astype(dtype)]
        images[0].flat[:2] = [-0.0, 0.0]
    else:
        images = [rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, (23, 17), dtype=dtype, endpoint=True)]
    for image in images:
        for q in ((1, 99), (0, 100), (37.3, 62.9)):
            p = np.percentile(image, q) if dtype != "bool" else (0, 1)
            limits = (0, 1) if dtype == "bool" else (
                (-1, 1) if dtype[0] == "f" else (np.iinfo(dtype).min, np.iinfo(dtype).max))
            ratio = float((p[1] - p[0]) / (limits[1] - limits[0]))
            for t in (ratio * (1 - 1e-12), ratio, ratio * (1 + 1e-12), 0.5):
                lazy = ne.is_low_contrast(da.from_array(to_engine(image, engine), chunks=(5, 7)), t, *q)
                assert isinstance(lazy, da.Array)
                assert bool(lazy.compute()) == bool(ske.is_low_contrast(image, t, *q))


@pytest.mark.parametrize("call", [
    lambda m: m.histogram(np.zeros((3, 3), np.uint32), source_range="dtype"),   # 2**32 bins
    lambda m: m.histogram(np.array([0, 2**62], np.int64)),
    lambda m: m.match_histograms(np.array([0, 2**62], np.uint64), np.array([1, 2], np.uint64)),
    lambda m: m.equalize_adapthist(np.zeros((10, 10)), kernel_size=10**6),   # padded to 10**12 elements
])
def test_huge_allocations_refused(call):
    """Where scikit-image would allocate more than memory, a MemoryError or ValueError at once (never a hang
    or the OOM killer); scikit-image is not called (a host that overcommits would grant it)."""
    with pytest.raises((MemoryError, ValueError)):
        call(ne)


def test_same_at_every_thread_count(rng):
    """The CPU schedules (tiles, rows, radix passes, blocks) give one result whatever the thread count."""
    from ndimg._engine import get_num_threads, set_num_threads

    image = rng.random((300, 410)).astype(np.float32)
    reference = rng.random((200, 100)).astype(np.float32)
    calls = (lambda: ne.equalize_adapthist(image, kernel_size=(37, 23)), lambda: ne.match_histograms(image, reference),
             lambda: ne.equalize_hist(image), lambda: ne.adjust_sigmoid(image))
    before = get_num_threads()
    try:
        set_num_threads(1)
        one = [c() for c in calls]
        set_num_threads(3)
        for c, expected in zip(calls, one):
            np.testing.assert_array_equal(c(), expected)
    finally:
        set_num_threads(before)
