"""scipy.ndimage's label, find_objects, value_indices and watershed_ift: the corners the generated registry
cases do not reach (every structure, 4-D, many components, outputs, Dask chunk borders), against scipy."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as ndi

from helpers import assert_raises_like, check_result, to_engine, to_host
from ndimg import ndimage as nd


def _structures(ndim, rng):
    """Every connectivity, and random centrosymmetric structures (a structure OR its point reflection)."""
    out = [ndi.generate_binary_structure(ndim, c) for c in range(0, ndim + 1)]
    for _ in range(3):
        s = rng.random((3,) * ndim) < 0.4
        out.append(s | s[(slice(None, None, -1),) * ndim])
    return out


# (700, 97) and (64, 33, 40): enough rows for the CPU engine's slabs (one per thread), joined at their seams
@pytest.mark.parametrize("shape", [(1,), (2,), (100001,), (1, 1), (1, 40), (40, 1), (37, 53), (300, 200), (700, 97),
                                   (5, 6, 7), (40, 30, 20), (64, 33, 40), (3, 4, 5, 6)])
@pytest.mark.parametrize("density", [0.3, 0.55, 0.9])
def test_label_every_structure(engine, rng, shape, density):
    a = rng.random(shape) < density
    for s in _structures(len(shape), rng):
        expected = ndi.label(a, s)
        got = nd.label(to_engine(a, engine), s)
        check_result("ndimage.label", got, expected, engine)


def test_label_numbering_is_raster_order(engine):
    # components whose first elements come in another order than their other elements (a U shape first
    # reached at its right arm's top would be numbered wrong by a root that is not the first element)
    a = np.array([[0, 0, 0, 0, 1],
                  [1, 0, 1, 0, 1],
                  [1, 0, 1, 1, 1],
                  [1, 1, 1, 0, 0]], dtype=np.uint8)
    got, n = nd.label(to_engine(a, engine))
    expected, m = ndi.label(a)
    assert n == m == 1
    np.testing.assert_array_equal(to_host(got), expected)
    b = np.eye(6, dtype=bool)[::-1] | np.eye(6, k=2, dtype=bool)
    for s in (None, np.ones((3, 3), bool)):
        check_result("ndimage.label", nd.label(to_engine(b, engine), s), ndi.label(b, s), engine)


def test_label_many_components_and_slabs(engine, rng):
    # a checkerboard under face connectivity: every member its own component (half the elements), across
    # the CPU engine's slabs and the CUDA engine's init tiles
    a = (np.indices((517, 613)).sum(axis=0) % 2).astype(bool)
    check_result("ndimage.label", nd.label(to_engine(a, engine)), ndi.label(a), engine)
    # one component snaking through every row (long union chains)
    snake = np.zeros((301, 257), bool)
    snake[::2] = True
    snake[1::4, -1] = True
    snake[3::4, 0] = True
    check_result("ndimage.label", nd.label(to_engine(snake, engine)), ndi.label(snake), engine)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64"])
def test_label_values_are_nonzero(engine, rng, dtype):
    a = (rng.standard_normal((31, 29)) * (rng.random((31, 29)) < 0.5)).astype(dtype)
    if dtype.startswith("float"):
        a[3, 4] = np.nan   # nonzero, a member
        a[5, 5] = -0.0
    check_result("ndimage.label", nd.label(to_engine(a, engine)), ndi.label(a), engine)


@pytest.mark.parametrize("out", ["int16", "uint8", "int64", "uint64", "float64", "bool"])
def test_label_output(engine, rng, out):
    a = rng.random((23, 19)) < 0.4
    check_result("ndimage.label", nd.label(to_engine(a, engine), output=out), ndi.label(a, output=out), engine)
    # an output array: filled in place (also a strided one), the count returned
    for mine, theirs in ((np.zeros(a.shape, out), np.zeros(a.shape, out)),
                         (np.zeros((23, 38), out)[:, ::2], np.zeros((23, 38), out)[:, ::2])):
        mine = to_engine(mine, engine)
        n = nd.label(to_engine(a, engine), output=mine)
        assert n == ndi.label(a, output=theirs)
        np.testing.assert_array_equal(to_host(mine), theirs)


def test_label_in_place_and_errors(engine, rng):
    a = (rng.random((20, 20)) < 0.4).astype(np.int32)
    expected, n = ndi.label(a)
    mine = to_engine(a.copy(), engine)
    assert nd.label(mine, output=mine) == n
    np.testing.assert_array_equal(to_host(mine), expected)
    big = rng.random((60, 60)) < 0.3
    for kw in (dict(output="int8"), dict(output=np.zeros((3, 3), np.int32)), dict(structure=np.ones((3, 3, 3))),
               dict(structure=np.ones((3, 4))), dict(structure=[[0, 1, 0], [1, 1, 0], [0, 0, 0]])):
        assert_raises_like(lambda: ndi.label(big, **kw), lambda: nd.label(to_engine(big, engine), **kw))


def test_label_small_and_empty():
    for a in (np.array(0), np.array(3.5), np.zeros((0, 4)), np.ones((1, 1, 1)), [1, 0, 1, 1]):
        check_result("ndimage.label", nd.label(a), ndi.label(a))
    # scipy checks the structure's symmetry only where there is something to label
    asym = [[0, 1, 0], [1, 1, 0], [0, 0, 0]]
    check_result("ndimage.label", nd.label(np.zeros((0, 3)), asym), ndi.label(np.zeros((0, 3)), asym))


# ---------------------------------------------------------------------------------------------------
# Dask: chunk borders
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, chunks", [
    ((23, 31), 1),                                   # every element its own chunk
    ((40, 50), ((1, 2, 30, 7), (13, 1, 1, 35))),     # uneven, with chunks of one
    ((9, 10, 11), (2, 3, 4)),
    ((6, 5, 4, 3), (2, 2, 3, 1)),
    ((301,), (7,)),
])
@pytest.mark.parametrize("density", [0.35, 0.65])
def test_label_dask_chunk_borders(engine, rng, shape, chunks, density):
    da = pytest.importorskip("dask.array")
    a = rng.random(shape) < density
    for s in _structures(len(shape), rng):
        lazy, n = nd.label(da.from_array(to_engine(a, engine), chunks=chunks, asarray=False), s)
        got, count = lazy.compute(scheduler="sync"), n.compute(scheduler="sync")
        expected, m = ndi.label(a, s)
        assert int(count) == m
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(to_host(got), expected)


def test_label_dask_objects_across_many_chunks(engine):
    da = pytest.importorskip("dask.array")
    # a spiral and a diagonal line through every chunk: joined only across chunk faces (the spiral) and
    # only across chunk corners (the diagonal, under full connectivity)
    a = np.zeros((64, 64), bool)
    for k in range(0, 32, 4):
        a[k, k:64 - k] = a[k:64 - k, 63 - k] = a[63 - k, k + 2:64 - k] = a[k + 2:64 - k, k + 2] = True
    d = np.eye(64, dtype=bool)
    for img, s in ((a, None), (d, np.ones((3, 3), bool)), (d, None)):
        lazy, n = nd.label(da.from_array(to_engine(img, engine), chunks=5, asarray=False), s)
        expected, m = ndi.label(img, s)
        assert int(n.compute()) == m
        np.testing.assert_array_equal(to_host(lazy.compute()), expected)


def test_label_dask_refuses_output_array():
    da = pytest.importorskip("dask.array")
    with pytest.raises(NotImplementedError, match="output"):
        nd.label(da.zeros((4, 4), chunks=2), output=np.zeros((4, 4), np.int32))


# ---------------------------------------------------------------------------------------------------
# find_objects, value_indices
# ---------------------------------------------------------------------------------------------------
def test_find_objects(engine, rng):
    labels = ndi.label(rng.random((41, 37)) < 0.5, np.ones((3, 3)))[0]
    for max_label in (0, 1, 5, labels.max() + 3):
        got = nd.find_objects(to_engine(labels, engine), max_label)
        assert got == ndi.find_objects(labels, max_label)
    vol = rng.integers(-2, 9, size=(6, 7, 8, 5)).astype(np.int16)
    assert nd.find_objects(to_engine(vol, engine)) == ndi.find_objects(vol)
    # floats are truncated as scipy casts them (0.5 is label 1); uint64 beyond int64 is ignored
    f = np.array([[0.5, 2.7, 0.0], [-0.4, 3.0, 1.2]])
    assert nd.find_objects(to_engine(f, engine), 4) == ndi.find_objects(f, 4)
    u = np.array([[2**63 + 1, 1], [2, 2**64 - 1]], dtype=np.uint64)
    assert nd.find_objects(to_engine(u, engine), 3) == ndi.find_objects(u, 3)
    assert nd.find_objects(np.array(2)) == ndi.find_objects(np.array(2))


def test_value_indices(engine, rng):
    a = rng.integers(-5, 5, size=(13, 17)).astype(np.int8)
    for ignore in (None, 0, -5, 100):
        expected = ndi.value_indices(a, ignore_value=ignore)
        check_result("ndimage.value_indices", nd.value_indices(to_engine(a, engine), ignore_value=ignore),
                     expected, engine)
    f = np.asfortranarray(rng.integers(0, 3, size=(5, 6, 7)).astype(np.uint64))
    check_result("ndimage.value_indices", nd.value_indices(to_engine(f, engine)), ndi.value_indices(f), engine)
    assert_raises_like(lambda: ndi.value_indices(a, ignore_value=300), lambda: nd.value_indices(a, ignore_value=300),
                       OverflowError)


# ---------------------------------------------------------------------------------------------------
# watershed_ift: scipy's queue order exactly
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(40,), (23, 31), (9, 10, 11), (4, 5, 6, 3)])
def test_watershed_ift_ties_and_wrap(engine, rng, shape):
    # few grey levels: many equal costs, where the order of the queue decides; markers on the borders, where
    # scipy's neighbours wrap across lines
    for levels in (2, 5, 256):
        img = rng.integers(0, levels, size=shape).astype(np.uint8)
        markers = np.where(rng.random(shape) < 0.05, rng.integers(-3, 6, size=shape), 0).astype(np.int16)
        for s in (None, ndi.generate_binary_structure(len(shape), len(shape))):
            expected = ndi.watershed_ift(img, markers, s)
            got = nd.watershed_ift(to_engine(img, engine), to_engine(markers, engine), s)
            check_result("ndimage.watershed_ift", got, expected, engine)


def test_watershed_ift_outputs(engine, rng):
    img = (rng.random((19, 21)) * 65535).astype(np.uint16)
    markers = np.zeros(img.shape, np.int64)
    markers[3, 4], markers[15, 17], markers[0, 20], markers[10, 10] = 300, -1, 2**33 + 7, 5
    for out in (np.int8, np.int32):
        mine, theirs = to_engine(np.zeros(img.shape, out), engine), np.zeros(img.shape, out)
        got = nd.watershed_ift(to_engine(img, engine), to_engine(markers, engine), output=mine)
        assert got is mine
        np.testing.assert_array_equal(to_host(got), ndi.watershed_ift(img, markers, output=theirs))
    for kw in (dict(output=np.zeros(img.shape, np.uint8)), dict(structure=np.ones((3, 3, 3)))):
        assert_raises_like(lambda: ndi.watershed_ift(img, markers, **kw),
                           lambda: nd.watershed_ift(img, markers, **kw), RuntimeError)
