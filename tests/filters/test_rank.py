"""filters.rank beyond the generated registry cases: out= arrays, 16-bit images with many bins, masks of
every dtype scikit-image converts, the 3-D noise filter's shifted centre, windowed histograms, warnings, both
schedules of every statistic that has two (the window's histogram, its values read directly), and the CUDA
engine against the CPU engine (every statistic, shared-memory and global histograms, the direct tiles)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.filters.rank as sk

import ndimg.filters.rank as nd
from helpers import CUDA_READY, to_engine, to_host

GENERIC = ["autolevel", "equalize", "gradient", "maximum", "mean", "geometric_mean", "subtract_mean", "median",
           "minimum", "modal", "enhance_contrast", "pop", "sum", "threshold", "noise_filter", "entropy", "otsu",
           "majority"]
PERCENTILE = ["autolevel_percentile", "gradient_percentile", "mean_percentile", "subtract_mean_percentile",
              "enhance_contrast_percentile", "pop_percentile", "sum_percentile"]
BILATERAL = ["mean_bilateral", "pop_bilateral", "sum_bilateral"]
DISK2 = np.array([[0, 0, 1, 0, 0], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0], [0, 0, 1, 0, 0]], np.uint8)
BALL1 = (np.abs(np.indices((3, 3, 3)) - 1).sum(0) <= 1).astype(np.uint8)


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def both(name, *args, **kw):
    """(scikit-image's result, ndimg's) of one call."""
    return quiet(getattr(sk, name), *args, **kw), quiet(getattr(nd, name), *args, **kw)


@pytest.fixture
def img8():
    return np.random.default_rng(1).integers(0, 256, (19, 23), dtype=np.uint8)


@pytest.mark.parametrize("name", GENERIC)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_out_dtypes(img8, name, dtype):
    """out= of each dtype the kernels write, 2-D (with or without its trailing axis) and 3-D: the values
    converted as scikit-image's C converts them, the result a view of out."""
    for image, fp, shape in ((img8, DISK2, img8.shape), (img8, DISK2, img8.shape + (1,)),
                             (img8[:6, :5, None] * np.ones(4, np.uint8), BALL1, (6, 5, 4))):
        image = np.ascontiguousarray(image)
        a, b = np.zeros(shape, dtype), np.full(shape, 7, dtype)
        ra = quiet(getattr(sk, name), image, fp, out=a)
        rb = quiet(getattr(nd, name), image, fp, out=b)
        np.testing.assert_array_equal(b, a)
        np.testing.assert_array_equal(rb, ra)
        assert np.shares_memory(rb, b)


@pytest.mark.parametrize("name", ["mean", "entropy"])
def test_out_refused(img8, name):
    for out, exc in ((np.zeros(img8.shape, np.int32), TypeError), (np.zeros((19, 46), np.uint8)[:, ::2], ValueError)):
        with pytest.raises(exc):
            quiet(getattr(sk, name), img8, DISK2, out=out)
        with pytest.raises(exc):
            quiet(getattr(nd, name), img8, DISK2, out=out)
    with pytest.raises(NotImplementedError):
        nd.mean(img8, DISK2, out=img8)
    with pytest.raises(ValueError):   # scikit-image writes past the end of a smaller out
        nd.mean(img8, DISK2, out=np.zeros((4, 4), np.uint8))


@pytest.mark.parametrize("name", GENERIC + PERCENTILE + BILATERAL + ["percentile", "threshold_percentile"])
def test_uint16_many_bins(name):
    """16-bit images: max(3, max) + 1 bins (n_bins - 1 scales autolevel, equalize, the thresholds; mid_bin
    shifts subtract_mean) and the performance warning past 1024 bins."""
    rng = np.random.default_rng(2)
    for top in (2, 700, 5000):
        image = rng.integers(0, top + 1, (13, 17)).astype(np.uint16)
        image[0, 0] = top
        kw = {"p0": 0.2, "p1": 0.7} if name in PERCENTILE else {"p0": 0.4} if "percentile" in name else {}
        if name in BILATERAL:
            kw = {"s0": 300, "s1": 40}
        ref, got = both(name, image, DISK2, **kw)
        np.testing.assert_array_equal(got, ref)
        assert got.dtype == ref.dtype
    with pytest.warns(UserWarning, match="large number of bins"):
        getattr(nd, name)(image, DISK2, **kw)


@pytest.mark.parametrize("mask_dtype", [bool, np.uint8, np.int64, np.float64])
def test_mask_dtypes(img8, mask_dtype):
    """Masks go through img_as_ubyte as in scikit-image: an int64 mask of ones is all zero there (a shift by
    55 bits), a float mask's small values too."""
    rng = np.random.default_rng(3)
    mask = (rng.random(img8.shape) * (1 if mask_dtype is np.float64 else 1.3)).astype(mask_dtype)
    for name in ("mean", "median", "pop", "otsu"):
        ref, got = both(name, img8, DISK2, mask=mask)
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("shift", [(0, 0, 0), (1, 0, -1), (0, -1, 1)])
def test_noise_filter_3d_shift(shift):
    """The 3-D noise filter zeroes footprint[s0//2 + shift_y, s1//2 + shift_x, s2//2 + shift_z], not the
    element its window is centred on (shift_x moves the planes there)."""
    image = np.random.default_rng(4).integers(0, 40, (5, 6, 7), dtype=np.uint8)
    fp = np.ones((3, 3, 3), np.uint8)
    kw = dict(shift_x=shift[0], shift_y=shift[1], shift_z=shift[2])
    ref, got = both("noise_filter", image, fp, **kw)
    np.testing.assert_array_equal(got, ref)


def test_windowed_histogram(img8):
    for kw in ({}, {"n_bins": 7}, {"mask": img8 > 90}, {"shift_x": 1, "shift_y": -2}):
        ref, got = both("windowed_histogram", img8, DISK2, **kw)
        np.testing.assert_array_equal(got, ref)
    out = np.zeros(img8.shape + (5,), np.float32)
    ref = quiet(sk.windowed_histogram, img8, DISK2, n_bins=5, out=np.zeros_like(out))
    got = quiet(nd.windowed_histogram, img8, DISK2, n_bins=5, out=out)
    np.testing.assert_array_equal(got, ref)


def test_empty_and_trivial_footprints(img8):
    for fp in (np.zeros((3, 3), np.uint8), np.ones((1, 1), np.uint8), np.ones((1, 9), np.uint8)):
        for name in GENERIC + PERCENTILE + BILATERAL:
            ref, got = both(name, img8, fp)
            np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("three_d", [False, True])
def test_bool_shift_warns_at_caller(img8, three_d):
    image, fp = (img8[:5, :5, None] * np.ones(3, np.uint8), BALL1) if three_d else (img8, DISK2)
    with pytest.warns(UserWarning, match="boolean and will be interpreted as int") as record:
        nd.mean(np.ascontiguousarray(image), fp, shift_y=True)
    assert record[0].filename == __file__


def test_errors_match(img8):
    for call, exc in ((lambda m: m.mean(img8[0], DISK2), ValueError), (lambda m: m.mean(img8[:0], DISK2), ValueError),
                      (lambda m: m.mean(img8 > 3, DISK2), ValueError), (lambda m: m.mean(img8, DISK2, shift_x=3), AssertionError),
                      (lambda m: m.mean(img8, DISK2, shift_x=200), OverflowError),
                      (lambda m: m.percentile(img8[None], BALL1), ValueError),
                      (lambda m: m.mean(np.zeros((3, 3, 3), np.uint8), BALL1, shift_z=-2), ValueError)):
        for m in (sk, nd):
            with pytest.raises(exc):
                quiet(call, m)


ENGINES = ["cpu"] + (["cuda"] if CUDA_READY else [])
# the statistics with a direct schedule (the others read every bin of the window's histogram)
DIRECT = [n for n in GENERIC + PERCENTILE + BILATERAL + ["percentile", "threshold_percentile"]
          if n not in ("modal", "majority", "geometric_mean", "entropy", "otsu")]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("schedule", ["direct", "histogram"])
@pytest.mark.parametrize("name", DIRECT)
def test_schedules(monkeypatch, engine, schedule, name):
    """Each schedule forced by NDIMG_RANK_SCHEDULE against scikit-image: ties at the ranks, masks leaving
    windows empty, shifts, a 16-bit image, a row footprint, an image smaller than the footprint (and than a
    CUDA tile), 3-D, the percentiles' ranks inside the window and at its ends, the bilateral bands."""
    monkeypatch.setenv("NDIMG_RANK_SCHEDULE", schedule)
    rng = np.random.default_rng(6)
    img8 = rng.integers(0, 256, (23, 70), dtype=np.uint8)
    img8[5:12, 5:15] = 100
    img16 = rng.integers(0, 3000, (17, 29)).astype(np.uint16)
    vol = rng.integers(0, 256, (5, 7, 40), dtype=np.uint8)
    images = [(img8, DISK2, {}), (img8, DISK2, {"mask": rng.random(img8.shape) > 0.4, "shift_x": 1, "shift_y": -1}),
              (img8, DISK2, {"mask": rng.random(img8.shape) > 0.9}), (img16, DISK2, {}),
              (img8, np.ones((1, 9), np.uint8), {}), (img8[:3, :4].copy(), np.ones((7, 7), np.uint8), {}),
              (vol, BALL1, {"shift_z": 1})]
    params = ([{"p0": 0.1, "p1": 0.9}, {"p0": 0.6, "p1": 0.3}, {"p0": 0.5, "p1": 0.5}, {}] if name in PERCENTILE else
              [{"p0": p} for p in (0, 0.3, 0.5, 1, 1.5)] if "percentile" in name else
              [{"s0": 3, "s1": 30}, {"s0": 0, "s1": 1}, {}] if name in BILATERAL else [{}])
    for image, fp, kw in images:
        if image.ndim == 3 and name not in GENERIC:
            continue
        for p in params:
            ref = quiet(getattr(sk, name), image, fp, **kw, **p)
            ekw = {k: to_engine(v, engine) for k, v in kw.items()}
            got = to_host(quiet(getattr(nd, name), to_engine(image, engine), fp, **ekw, **p))
            assert got.dtype == ref.dtype
            np.testing.assert_array_equal(got, ref, err_msg=f"{image.shape} {kw.keys()} {p}")


def _cuda_cases():
    rng = np.random.default_rng(5)
    img8 = rng.integers(0, 256, (37, 70), dtype=np.uint8)
    img16 = rng.integers(0, 3000, (21, 40)).astype(np.uint16)     # 3000 bins: the global-memory histograms
    vol = rng.integers(0, 256, (6, 9, 40), dtype=np.uint8)
    mask = rng.random(img8.shape) > 0.3
    return [(img8, DISK2, {}), (img8, DISK2, {"mask": mask, "shift_x": 1}), (img16, DISK2, {}),
            (img8, np.ones((1, 41), np.uint8), {}), (vol, BALL1, {"shift_z": 1})]


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
@pytest.mark.parametrize("name", GENERIC + PERCENTILE + BILATERAL + ["percentile", "threshold_percentile",
                                                                   "windowed_histogram"])
def test_cuda_equals_cpu(name):
    """The CUDA schedules against the CPU's: the direct tiles (most statistics of these small footprints, the
    16-bit image's too) and the line-segment histograms (entropy, otsu, modal, majority, geometric_mean,
    windowed_histogram, the 1x41 row's sums and percentiles), the same statistic code; entropy and
    geometric_mean within the device's log/exp rounding."""
    for image, fp, kw in _cuda_cases():
        if image.ndim == 3 and name not in GENERIC:
            continue
        if name in PERCENTILE:
            kw = {**kw, "p0": 0.1, "p1": 0.8}
        cpu = quiet(getattr(nd, name), image, fp, **kw)
        gkw = {k: to_engine(v, "cuda") if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        gpu = to_host(quiet(getattr(nd, name), to_engine(image, "cuda"), fp, **gkw))
        assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
        if name == "entropy":
            np.testing.assert_allclose(gpu, cpu, rtol=1e-12)
        elif name == "geometric_mean":
            assert np.abs(gpu.astype(int) - cpu.astype(int)).max() <= 1
        else:
            np.testing.assert_array_equal(gpu, cpu)
