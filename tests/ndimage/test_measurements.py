"""scipy.ndimage's measurements: the corners the generated registry cases do not reach, each against scipy
(or, where scipy leaves a choice open, against its rule computed here with NumPy)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from helpers import assert_close, assert_raises_like, check_result, to_engine, to_host

STATS = ["sum", "sum_labels", "mean", "variance", "standard_deviation", "minimum", "maximum", "median"]
POSITIONS = ["minimum_position", "maximum_position", "extrema", "center_of_mass"]


def _labels(rng, shape, n):
    coarse = rng.integers(0, n, size=tuple(-(-s // 2) for s in shape))
    for ax in range(len(shape)):
        coarse = np.repeat(coarse, 2, axis=ax)
    return coarse[tuple(slice(0, s) for s in shape)]


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _same(name, engine, *args, **kw):
    """ndimg's `name` on `engine` against scipy's on the host arguments."""
    expected = _quiet(getattr(ndi, name), *args, **kw)
    got = _quiet(getattr(nd, name), *[to_engine(a, engine) for a in args], **kw)
    check_result(f"ndimage.{name}", got, expected, engine)
    return got


@pytest.mark.parametrize("name", STATS + POSITIONS)
def test_sparse_and_negative_labels(engine, rng, name):
    """Labels far apart (a sorted look-up, not a dense table), negative ones, an index with repeats."""
    lab = _labels(rng, (31, 27), 8)
    labels = np.array([-7, 0, 3, 10**12, 5, -(10**11), 42, 9])[lab]
    image = rng.random(labels.shape)
    _same(name, engine, image, labels, [10**12, -7, 42, 42, 3, 77, -(10**11)])


@pytest.mark.parametrize("name", STATS + POSITIONS)
def test_float_labels(engine, rng, name):
    """Float labels match index values exactly (0.5 matches 0.5, 1 matches 1.0, nothing matches 1.25)."""
    labels = np.array([0.0, 0.5, 1.0, 2.5, 3.0])[_labels(rng, (19, 23), 5)]
    image = rng.random(labels.shape).astype(np.float32)
    _same(name, engine, image, labels, [0.5, 1, 1.25, 3.0])


@pytest.mark.parametrize("name", STATS + ["center_of_mass"])
def test_broadcast_labels(engine, rng, name):
    image = rng.random((13, 17))
    labels = rng.integers(0, 4, (1, 17))
    _same(name, engine, image, labels, [1, 2, 3])
    _same(name, engine, image, labels)


@pytest.mark.parametrize("name", STATS + POSITIONS)
def test_fractional_index(engine, rng, name):
    """scipy truncates fractional index values where it counts integer labels in [0, size] with bincount
    (1.5 is label 1), and matches them exactly elsewhere (negative labels, uint64, float)."""
    image = rng.random((9, 11))
    labels = _labels(rng, image.shape, 4)
    for lab in (labels, labels - 1, labels.astype(np.uint64), labels.astype(np.float32) / 2):
        _same(name, engine, image, lab, np.array([1.5, 2.5, -0.5, 0.5]))


@pytest.mark.parametrize("name", STATS + POSITIONS)
def test_empty_index(engine, rng, name):
    image, labels = rng.random((9, 11)), rng.integers(0, 3, (9, 11))
    _same(name, engine, image, labels, np.array([], dtype=np.int64))


def test_mismatched_shapes_raise_value_error(engine, rng):
    for name in STATS + POSITIONS:
        with pytest.raises(ValueError):
            ndi.sum(np.ones((4, 5)), np.ones((3, 5), int))
        with pytest.raises(ValueError):
            getattr(nd, name)(to_engine(np.ones((4, 5)), engine), to_engine(np.ones((3, 5), int), engine))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "bool"])
def test_positions_of_ties_are_first_in_c_order(engine, rng, dtype):
    """Tied extremes: one region (scipy: the first in C order) against scipy; an index sequence (scipy's
    unstable argsort leaves the choice open) against the first in C order, found here with NumPy."""
    image = rng.integers(0, 3, (23, 29)).astype(dtype)
    labels = _labels(rng, image.shape, 5)
    for index in (None, 2):
        _same("minimum_position", engine, image, labels, index)
        _same("maximum_position", engine, image, labels, index)
    got_min = nd.minimum_position(to_engine(image, engine), to_engine(labels, engine), [0, 1, 2, 3, 4])
    got_max = nd.maximum_position(to_engine(image, engine), to_engine(labels, engine), [0, 1, 2, 3, 4])
    for i in range(5):
        region = labels == i
        assert got_min[i] == tuple(np.argwhere(region & (image == image[region].min()))[0])
        assert got_max[i] == tuple(np.argwhere(region & (image == image[region].max()))[0])


def test_nan(engine, rng):
    """One region: NaN propagates (minimum NaN, its position scipy's IndexError, median NaN); an index
    sequence: scipy's sort puts NaN last (a minimum ignores NaN unless all are, a maximum is NaN)."""
    image = rng.random((15, 16))
    labels = _labels(rng, image.shape, 4)
    image[labels == 1] = np.nan
    image[3, 5] = np.nan
    for name in ("minimum", "maximum", "median", "sum", "mean"):
        _same(name, engine, image, labels)
        _same(name, engine, image, labels, [0, 1, 2, 3])
    for name in ("minimum_position", "maximum_position", "extrema"):
        with pytest.raises(IndexError):
            ndi.minimum_position(image, labels)
        with pytest.raises(IndexError):
            getattr(nd, name)(to_engine(image, engine), to_engine(labels, engine))
    got = nd.minimum_position(to_engine(image, engine), to_engine(labels, engine), [0, 2, 3])
    assert got == _quiet(ndi.minimum_position, image, labels, [0, 2, 3])


def test_empty_region(engine, rng):
    image, labels = rng.random((7, 8)), rng.integers(1, 3, (7, 8))
    for name in ("sum", "mean", "variance", "median", "center_of_mass"):
        _same(name, engine, image, labels, 5)
    with pytest.warns(RuntimeWarning):
        ndi.mean(image, labels, 5)
    if engine == "cpu":
        with pytest.warns(RuntimeWarning):
            nd.mean(image, labels, 5)
    for name in ("minimum", "maximum", "minimum_position", "extrema"):
        with pytest.raises(ValueError):
            getattr(ndi, name)(image, labels, 5)
        with pytest.raises(ValueError):
            getattr(nd, name)(to_engine(image, engine), to_engine(labels, engine), 5)


def test_median_of_absent_label(engine, rng):
    """scipy's median of an absent index value: the smallest value of the smallest label."""
    image = rng.random((11, 13))
    labels = _labels(rng, image.shape, 4) - 1   # the smallest label, -1, is not in the index
    _same("median", engine, image, labels, [0, 7, 2])


def test_many_labels(engine, rng):
    image = rng.random((700, 900)).astype(np.float32)
    labels = rng.permutation(image.size).reshape(image.shape) // 3   # 210000 labels of 3 pixels
    index = np.arange(0, labels.max() + 5)
    for name in ("sum", "mean", "variance", "minimum", "maximum", "median", "center_of_mass"):
        _same(name, engine, image, labels, index)


def test_integer_sums_are_exact(engine):
    image = np.array([2**62, 2**62, 3, -(2**62)], dtype=np.int64)
    labels = np.array([1, 1, 1, 1])
    got = nd.sum(to_engine(image, engine), to_engine(labels, engine))
    assert int(to_host(got)) == int(ndi.sum(image, labels)) == 2**62 + 3
    u = np.array([2**63, 2**63 - 1, 7], dtype=np.uint64)
    got = nd.sum(to_engine(u, engine))
    expected = ndi.sum(u)
    assert np.asarray(to_host(got)).dtype == expected.dtype and int(to_host(got)) == int(expected)


@pytest.mark.parametrize("index", [1, [1, 2, 9]])
def test_histogram_with_index(rng, index):
    """An index makes scipy's result an object array of counts, None for an absent label (CPU engine)."""
    image = rng.random((17, 19))
    labels = _labels(rng, image.shape, 3)
    expected = ndi.histogram(image, 0.1, 0.8, 6, labels, index)
    got = nd.histogram(image, 0.1, 0.8, 6, labels, index)
    if np.isscalar(index):
        np.testing.assert_array_equal(got, expected)
        assert nd.histogram(image, 0, 1, 6, labels, 99) is None is ndi.histogram(image, 0, 1, 6, labels, 99)
        return
    assert got.dtype == object and got.shape == expected.shape
    for g, x in zip(got.ravel(), expected.ravel()):
        assert (g is None) == (x is None)
        if x is not None:
            np.testing.assert_array_equal(g, x)


def test_histogram_errors():
    image = np.ones((4, 4))
    with pytest.raises(ValueError):
        ndi.histogram(image, 0, 1, 3, None, 1)
    with pytest.raises(ValueError):
        nd.histogram(image, 0, 1, 3, None, 1)


def test_labeled_comprehension(rng):
    image = rng.random((13, 11))
    labels = _labels(rng, image.shape, 4)

    def span(values, positions):
        return positions.max() - positions.min() + values.size

    for kw in (dict(func=np.sum, out_dtype=float, default=-1.0),
               dict(func=span, out_dtype=np.int64, default=0, pass_positions=True)):
        assert_close(nd.labeled_comprehension(image, labels, [1, 3, 8], **kw),
                     ndi.labeled_comprehension(image, labels, [1, 3, 8], **kw), (1e-12, 1e-12))
        # scipy fails on an index of two dimensions
        assert_raises_like(lambda: ndi.labeled_comprehension(image, labels, np.array([[0, 2], [3, 1]]), **kw),
                           lambda: nd.labeled_comprehension(image, labels, np.array([[0, 2], [3, 1]]), **kw))
    assert_raises_like(lambda: ndi.histogram(image, 0, 1, 4, labels, np.array([[0, 2], [3, 1]])),
                       lambda: nd.histogram(image, 0, 1, 4, labels, np.array([[0, 2], [3, 1]])))
    with pytest.raises(ValueError, match="without loss of precision"):
        ndi.labeled_comprehension(image, labels, [1.5], np.sum, float, 0)
    with pytest.raises(ValueError, match="without loss of precision"):
        nd.labeled_comprehension(image, labels, [1.5], np.sum, float, 0)
    with pytest.raises(ValueError, match="index without defined labels"):
        nd.labeled_comprehension(image, None, 1, np.sum, float, 0)


# ---------------------------------------------------------------------------------------------------
# Dask: chunk tables merged (ties across chunks: the first in the whole image's C order)
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [None, 2, [0, 1, 2, 3, 9]])
def test_dask_ties_across_chunks(engine, rng, index):
    da = pytest.importorskip("dask.array")
    image = rng.integers(0, 3, (24, 30)).astype(np.uint8)   # many ties, between chunks too
    labels = _labels(rng, image.shape, 4)
    dimage = da.from_array(to_engine(image, engine), chunks=(7, 11), asarray=False)
    dlabels = da.from_array(to_engine(labels, engine), chunks=(5, 13), asarray=False)
    for name in ("minimum_position", "maximum_position", "extrema", "center_of_mass", "variance", "sum", "maximum"):
        lazy = getattr(nd, name)(dimage, dlabels, index)
        got = _quiet(lambda: __import__("dask").compute(lazy, scheduler="sync")[0])
        in_memory = _quiet(getattr(nd, name), to_engine(image, engine), to_engine(labels, engine), index)
        check_result(f"ndimage.{name}", got, to_host(in_memory), engine, tol=(1e-12, 1e-12))


def test_dask_refuses_median_and_index_histograms(rng):
    da = pytest.importorskip("dask.array")
    image = da.from_array(rng.random((8, 8)), chunks=4)
    labels = da.from_array(_labels(rng, (8, 8), 3), chunks=4)
    with pytest.raises(NotImplementedError, match="ndimg.ndimage.median "):
        nd.median(image, labels)
    with pytest.raises(NotImplementedError, match="ndimg.ndimage.histogram"):
        nd.histogram(image, 0, 1, 4, labels, [1, 2])


def test_primitives_never_write_out_of_bounds():
    """Slots beyond the tables count nowhere, inconsistent counts and tables are refused (no crash)."""
    from ndimg import _core

    image = np.ones((5, 6))
    slots = np.full(image.shape, 7, np.int32)
    slots[0, 0] = 1
    counts, sums, isums = np.zeros(2, np.int64), np.zeros(2), np.zeros(2, np.int64)
    _core.measure_moments(image, slots, counts, sums, isums)
    assert counts.tolist() == [0, 1] and sums.tolist() == [0.0, 1.0]
    out = np.full(2, -5.0)
    _core.measure_median(image, slots, out, False)
    assert out.tolist() == [-5.0, 1.0]
    with pytest.raises(ValueError):
        _core.measure_order(slots, counts, np.zeros(1, np.int64))   # slot 7 beyond the counts
    with pytest.raises(ValueError):
        _core.measure_moments(image, slots[:, :5].copy(), counts, sums, isums)   # not the input's shape
    with pytest.raises(ValueError):
        _core.measure_slots(image, _core.SlotMap.dense, 0, np.zeros(3, np.int64), slots)   # not an int32 table
