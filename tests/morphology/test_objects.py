"""skimage.morphology's objects, reconstruction and extrema (issue 26): semantics corners the generated
registry tests do not reach, each held to scikit-image 0.26 itself. The GPU engine's formulations (iterated
geodesic dilation, propagation) are pure xp code: they also run here on NumPy."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from skimage import measure as sk_measure
from skimage import morphology as skm

import ndimg.measure as nme
import ndimg.morphology as ndm
from helpers import CUDA_READY, to_engine, to_host
from ndimg._engine import set_num_threads
from ndimg.morphology import _flood, _reconstruction


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


# ---------------------------------------------------------------------------------------------------
# label
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(40,), (23, 31), (9, 10, 11), (1, 17), (6, 1, 5)])
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, bool])
def test_label_equal_values_raster_order(engine, rng, shape, dtype):
    a = rng.integers(0, 3, shape).astype(dtype)
    for c in range(1, len(shape) + 1):
        for bg in (None, 0, 1, 2):
            exp, n = sk_measure.label(a, background=bg, connectivity=c, return_num=True)
            got, m = nme.label(to_engine(a, engine), background=bg, connectivity=c, return_num=True)
            assert m == n
            assert to_host(got).dtype == exp.dtype
            np.testing.assert_array_equal(to_host(got), exp)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_label_slabs_and_seams(threads):
    """Large images go to several slabs joined across their seams: the numbering must not depend on it."""
    rng = np.random.default_rng(threads)
    a = rng.integers(0, 3, (400, 300)).astype(np.int16)
    b = rng.integers(0, 2, (40, 50, 60)).astype(np.uint8)
    try:
        set_num_threads(threads)
        for c in (1, 2):
            np.testing.assert_array_equal(ndm.label(a, connectivity=c), sk_measure.label(a, connectivity=c))
        for c in (1, 3):
            np.testing.assert_array_equal(ndm.label(b, connectivity=c), sk_measure.label(b, connectivity=c))
    finally:
        set_num_threads(0)


def test_label_values_across_tiles_and_strides(engine, rng):
    """Equal-value unions across the CUDA schedule's tiles (32x32, 32x8x4: a neighbour one step back along the
    width is skipped only where both pairs hold one value), on strided views, a long snake (a deep tree) and
    int64 values that differ only past float64's 53 bits (compared as int64, not as doubles)."""
    cases = [rng.integers(0, 3, (70, 90)).astype(np.int16), rng.integers(0, 3, (20, 40, 50)).astype(np.uint8),
             rng.integers(0, 3, (90, 70)).astype(np.int32)[::-2, 1::3], rng.integers(0, 2, 3000).astype(np.int8)]
    snake = np.zeros((41, 41), np.intp)
    snake[::2] = 1
    snake[1::4, -1] = 1
    snake[3::4, 0] = 1
    big = np.full((8, 9), 2**60, np.int64)
    big[::2, 1::2] += 1
    for a in cases + [snake, big]:
        for c in range(1, a.ndim + 1):
            exp, n = sk_measure.label(a, connectivity=c, return_num=True)
            got, m = nme.label(to_engine(a, engine), connectivity=c, return_num=True)
            assert m == n
            np.testing.assert_array_equal(to_host(got), exp)


def test_label_values_untiled_grids(engine, rng):
    """Grids too tall for the CUDA tiles (more than 65535 blocks of 4 planes, of 32 rows) take the per-element
    unions, which compare the values too."""
    for a in (rng.integers(0, 3, (262_145, 2, 2)).astype(np.uint8), rng.integers(0, 3, (2_097_153, 2)).astype(np.int16)):
        for c in (1, a.ndim):
            exp, n = sk_measure.label(a, connectivity=c, return_num=True)
            got, m = nme.label(to_engine(a, engine), connectivity=c, return_num=True)
            assert m == n
            np.testing.assert_array_equal(to_host(got), exp)


def test_label_float_values_truncated_and_background_int():
    a = np.array([[0.5, 0.7, 1.2], [2.9, 2.1, 1.0]])
    np.testing.assert_array_equal(nme.label(a), sk_measure.label(a))
    np.testing.assert_array_equal(nme.label(a, background=0.9), sk_measure.label(a, background=0.9))
    with pytest.raises(ValueError):
        nme.label(a, background=np.nan)
    with pytest.raises(TypeError):
        nme.label(a.astype(int), background="1")


def test_label_same_function_in_both_modules():
    assert ndm.label is nme.label


# ---------------------------------------------------------------------------------------------------
# reconstruction
# ---------------------------------------------------------------------------------------------------
_FOOTPRINTS_1D = [(np.array([1, 0, 1, 1]), np.array([1])), (np.array([1, 1, 0]), np.array([2])),
                  (np.array([0, 0, 0, 0, 1]), np.array([0])), (np.ones(3), None)]


@pytest.mark.parametrize("fp, offset", _FOOTPRINTS_1D)
@pytest.mark.parametrize("method", ["dilation", "erosion"])
def test_reconstruction_one_way_footprints(engine, rng, fp, offset, method):
    """Footprints that are not symmetric (with an offset): values flow one way, as in scikit-image."""
    mask = rng.random(200)
    seed = mask * (rng.random(200) > 0.8) * rng.random(200)
    if method == "erosion":
        seed, mask = mask, seed
    exp = skm.reconstruction(seed, mask, method=method, footprint=fp, offset=offset)
    got = ndm.reconstruction(to_engine(seed, engine), to_engine(mask, engine), method=method, footprint=fp,
                             offset=offset)
    np.testing.assert_array_equal(to_host(got), exp)


@pytest.mark.parametrize("fp", [None, np.ones((3, 5), bool), np.array([[0, 0, 1], [0, 0, 1], [1, 0, 0]], bool)])
def test_reconstruction_gpu_formulation_on_numpy(rng, fp):
    """The GPU engine's iterated geodesic dilation (ndimg.ndimage.grey_dilation) reaches scikit-image's result."""
    mask = rng.random((30, 40)).astype(np.float32)
    seed = mask * (rng.random((30, 40)) > 0.97).astype(np.float32)
    steps, _ = _reconstruction._neighbourhood(fp, None, 2)
    np.testing.assert_array_equal(_reconstruction._dilate_xp(seed, mask, steps),
                                  skm.reconstruction(seed, mask, footprint=fp))


def test_reconstruction_long_geodesic_path_is_fast():
    """A serpentine mask (one path through the whole image): the CPU engine's hybrid scans and queue touch
    each element a few times, where iterating dilations would take one pass per step of the path."""
    n = 601
    mask = np.zeros((n, n), np.float32)
    mask[::2] = 1.0
    mask[1::4, -1] = 1.0
    mask[3::4, 0] = 1.0
    seed = np.zeros_like(mask)
    seed[0, 0] = 1.0
    t0 = time.perf_counter()
    got = ndm.reconstruction(seed, mask)
    assert time.perf_counter() - t0 < 5.0
    np.testing.assert_array_equal(got, mask)   # the whole path is reached


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reconstruction_nan_mask_is_unbounded(rng, dtype):
    """scikit-image ranks NaN above every value: a NaN mask element does not stop the reconstruction."""
    mask = rng.random((17, 23)).astype(dtype)
    seed = (mask * 0.5 * (rng.random((17, 23)) > 0.9)).astype(dtype)
    mask.flat[::5] = np.nan
    np.testing.assert_array_equal(ndm.reconstruction(seed, mask), skm.reconstruction(seed, mask))
    seed2 = rng.random((17, 23)).astype(dtype)
    mask2 = (seed2 * 0.5).astype(dtype)
    mask2.flat[::7] = np.nan
    np.testing.assert_array_equal(ndm.reconstruction(seed2, mask2, method="erosion"),
                                  skm.reconstruction(seed2, mask2, method="erosion"))


def test_reconstruction_nan_seed_does_not_crash():
    """scikit-image 0.26 ends the process with a segmentation fault here (not called): ndimg returns."""
    mask = np.linspace(0, 1, 60).reshape(6, 10)
    seed = mask / 2
    seed[2, 3] = np.nan
    out = ndm.reconstruction(seed, mask)
    assert out.shape == mask.shape and out.dtype == np.float64
    assert _quiet(ndm.h_maxima, np.where(np.isnan(seed), np.inf, mask), 0.1).shape == mask.shape


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float16, bool])
def test_reconstruction_result_type(rng, dtype):
    mask = (rng.random((9, 8)) * 50).astype(dtype)
    seed = np.minimum(mask, (rng.random((9, 8)) * 30).astype(dtype))
    exp = skm.reconstruction(seed, mask)
    got = ndm.reconstruction(seed, mask)
    assert got.dtype == exp.dtype
    np.testing.assert_array_equal(got, exp)


# ---------------------------------------------------------------------------------------------------
# extrema
# ---------------------------------------------------------------------------------------------------
def test_local_maxima_plateaus_and_borders():
    a = np.array([[0, 0, 0, 0, 0, 0, 0],
                  [0, 3, 3, 0, 2, 2, 0],
                  [0, 3, 3, 0, 2, 5, 0],
                  [4, 0, 0, 0, 0, 0, 1]], np.uint8)
    for kw in ({}, dict(allow_borders=False), dict(connectivity=1), dict(indices=True)):
        exp, got = skm.local_maxima(a, **kw), ndm.local_maxima(a, **kw)
        if kw.get("indices"):
            assert len(exp) == len(got) and all(np.array_equal(e, g) for e, g in zip(exp, got))
        else:
            np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize("fp", [np.eye(3, dtype=bool), np.array([[0, 1, 0], [0, 1, 0], [0, 1, 0]], bool),
                                np.array([[0, 0, 1], [0, 1, 0], [0, 0, 0]], bool)])
def test_local_maxima_footprint_without_line_neighbours(rng, fp):
    """Without both neighbours along the last axis scikit-image 0.26 takes every element as a candidate."""
    a = (rng.random((25, 30)) * 4).astype(np.int16)
    for borders in (True, False):
        np.testing.assert_array_equal(ndm.local_maxima(a, footprint=fp, allow_borders=borders),
                                      skm.local_maxima(a, footprint=fp, allow_borders=borders))
        np.testing.assert_array_equal(ndm.local_minima(a, footprint=fp, allow_borders=borders),
                                      skm.local_minima(a, footprint=fp, allow_borders=borders))


def test_local_maxima_small_image_warns_and_float16_refused():
    with pytest.warns(UserWarning, match="maxima can't exist"):
        out = ndm.local_maxima(np.array([[1, 3, 1]]), allow_borders=False)
    assert not out.any()
    with pytest.raises(TypeError, match="float16"):
        ndm.local_maxima(np.ones((4, 4), np.float16))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_h_maxima_float_resolution(dtype):
    """scikit-image shifts by h plus two ulps of |image|: a maximum exactly h high counts."""
    a = np.zeros((9, 9), dtype)
    a[2, 2] = 1000.0
    a[6, 6] = dtype(1000.0) + dtype(0.5)
    for h in (0.5, 1000.0, 1000.5):
        np.testing.assert_array_equal(ndm.h_maxima(a, h), skm.h_maxima(a, h))
        np.testing.assert_array_equal(ndm.h_minima(-a, h), skm.h_minima(-a, h))


def test_h_maxima_integer_rules(rng):
    a = (rng.random((20, 20)) * 200).astype(np.uint8)
    with pytest.warns(UserWarning, match="possible precision loss"):
        got = ndm.h_maxima(a, 10.5)
    np.testing.assert_array_equal(got, _quiet(skm.h_maxima, a, 10.5))
    np.testing.assert_array_equal(ndm.h_minima(a, 10.0), skm.h_minima(a, 10.0))
    assert not ndm.h_maxima(a, 1000).any() and ndm.h_maxima(a, 1000).dtype == np.uint8
    with pytest.raises(ValueError, match="h = 0 is ambiguous"):
        ndm.h_maxima(a, 0)


# ---------------------------------------------------------------------------------------------------
# flood
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float32])
@pytest.mark.parametrize("tolerance", [None, 0.5, 1.5, 300])
def test_flood_tolerance_read_in_the_dtype(dtype, tolerance):
    """Integer images read the tolerance window truncated towards zero, clipped to the dtype's range."""
    a = np.array([[0, 1, 1, 0, 0], [0, 1, 2, 0, 3], [0, 0, 0, 0, 0], [2, 0, 0, 0, 4]]).astype(dtype) - (
        1 if dtype == np.int64 else 0)
    for seed in ((1, 1), (-1, -1), (0, 0)):
        np.testing.assert_array_equal(ndm.flood(a, seed, tolerance=tolerance),
                                      skm.flood(a, seed, tolerance=tolerance))


@pytest.mark.parametrize("fill", ["cpu", "xp"])
def test_flood_footprints_and_nan(rng, fill, monkeypatch):
    """Wide and one-way footprints; a NaN seed is its own region. 'xp': the GPU engine's propagation."""
    if fill == "xp":
        monkeypatch.setattr(_flood, "_fill_cpu", _flood._fill_xp)
    a = (rng.random((19, 23)) * 3).astype(np.float32)
    a[a < 0.2] = np.nan
    footprints = [None, np.ones((5, 5), bool), np.array([[0, 0, 1], [0, 0, 0], [0, 0, 0]], bool),
                  np.array([[0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]], bool)]
    nan_seed = tuple(int(i) for i in np.argwhere(np.isnan(a))[0])
    for fp in footprints:
        for seed in ((9, 11), nan_seed):
            for tol in (None, 1):
                np.testing.assert_array_equal(ndm.flood(a, seed, footprint=fp, tolerance=tol),
                                              skm.flood(a, seed, footprint=fp, tolerance=tol))


def test_flood_fill_in_place():
    a = np.array([[1, 1, 2], [1, 3, 2], [1, 1, 1]], np.int16)
    b = a.copy()
    out = ndm.flood_fill(b, (0, 0), 7, in_place=True, connectivity=1)
    assert out is b
    np.testing.assert_array_equal(b, skm.flood_fill(a, (0, 0), 7, connectivity=1))


# ---------------------------------------------------------------------------------------------------
# object removal
# ---------------------------------------------------------------------------------------------------
def _objects():
    a = np.zeros((6, 7), bool)
    a[0, 0] = True
    a[2:4, 2:4] = True
    a[5, 3:7] = True
    return a


def test_remove_small_objects_deprecated_min_size():
    a = _objects()
    with pytest.warns(FutureWarning, match="`min_size` is deprecated"):
        got = ndm.remove_small_objects(a, 4)
    np.testing.assert_array_equal(got, _quiet(skm.remove_small_objects, a, 4))   # inclusive, as max_size
    with pytest.raises(ValueError, match="Both deprecated parameter"):
        _quiet(ndm.remove_small_objects, a, min_size=3, max_size=3)
    from skimage._shared.utils import DEPRECATED as SK_DEPRECATED

    with warnings.catch_warnings():
        warnings.simplefilter("error")   # scikit-image's own marker passed on means 'not given'
        np.testing.assert_array_equal(ndm.remove_small_objects(a, SK_DEPRECATED, max_size=3),
                                      skm.remove_small_objects(a, max_size=3))
    with pytest.warns(FutureWarning, match="`area_threshold` is deprecated"):
        got = ndm.remove_small_holes(~a, area_threshold=4)
    np.testing.assert_array_equal(got, _quiet(skm.remove_small_holes, ~a, area_threshold=4))


def test_remove_small_objects_labels_out_and_warnings():
    lab = sk_measure.label(_objects()).astype(np.int32)
    out = np.empty_like(lab)
    res = ndm.remove_small_objects(lab, max_size=3, out=out)
    assert res is out
    np.testing.assert_array_equal(out, skm.remove_small_objects(lab, max_size=3))
    with pytest.warns(UserWarning, match="Only one label"):
        ndm.remove_small_objects(_objects().astype(np.uint8))
    with pytest.warns(UserWarning, match="Any labeled images"):
        got = ndm.remove_small_holes(lab, max_size=2)
    assert got.dtype == bool
    np.testing.assert_array_equal(got, _quiet(skm.remove_small_holes, lab, max_size=2))
    with pytest.raises(TypeError, match="out dtype must be bool"):
        ndm.remove_small_holes(_objects(), out=np.empty((6, 7), np.uint8))


def test_remove_objects_by_distance_priority_spacing_in_place(rng):
    lab = sk_measure.label(rng.random((60, 50)) > 0.75).astype(np.int32)
    prio = rng.random(lab.max() + 1)
    for kw in (dict(priority=prio), dict(spacing=(3.0, 0.5)), dict(p_norm=1)):
        np.testing.assert_array_equal(ndm.remove_objects_by_distance(lab, 4, **kw),
                                      skm.remove_objects_by_distance(lab, 4, **kw))
    mine = lab.copy()
    assert ndm.remove_objects_by_distance(mine, 3, out=mine) is mine
    np.testing.assert_array_equal(mine, skm.remove_objects_by_distance(lab, 3))
    with pytest.raises(ValueError, match="shape of `priority`"):
        ndm.remove_objects_by_distance(lab, 3, priority=np.ones(2))


# ---------------------------------------------------------------------------------------------------
# Dask: labels and sizes across chunks
# ---------------------------------------------------------------------------------------------------
def test_dask_across_chunks(rng):
    da = pytest.importorskip("dask.array")
    mask = rng.random((37, 29)) > 0.55
    values = rng.integers(0, 3, (37, 29)).astype(np.int16)
    dm, dv = da.from_array(mask, chunks=(7, 6)), da.from_array(values, chunks=(10, 4))
    for c in (1, 2):
        np.testing.assert_array_equal(ndm.label(dm, connectivity=c).compute(), sk_measure.label(mask, connectivity=c))
        np.testing.assert_array_equal(ndm.label(dv, connectivity=c).compute(), sk_measure.label(values, connectivity=c))
        np.testing.assert_array_equal(ndm.remove_small_objects(dm, max_size=4, connectivity=c).compute(),
                                      skm.remove_small_objects(mask, max_size=4, connectivity=c))
        np.testing.assert_array_equal(ndm.remove_small_holes(dm, max_size=4, connectivity=c).compute(),
                                      skm.remove_small_holes(mask, max_size=4, connectivity=c))
    lab = sk_measure.label(mask)
    np.testing.assert_array_equal(ndm.remove_small_objects(da.from_array(lab, chunks=8), max_size=5).compute(),
                                  skm.remove_small_objects(lab, max_size=5))
    labels, n = ndm.label(dm, return_num=True)
    assert int(n.compute()) == sk_measure.label(mask, return_num=True)[1]
    with pytest.raises(NotImplementedError, match="h_maxima"):
        ndm.h_maxima(dm.astype(float), 0.5)
