"""morphology.reconstruction on Dask arrays (issue 26): exact across chunks however often a flooding path
crosses their borders, lazy (building the call computes no chunk), NumPy chunks on the cpu engine and CuPy
chunks on cuda. Each result equals scikit-image's and ndimg's in memory bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
import skimage.morphology as skm

import ndimg.morphology as ndm
from helpers import serpentine, sparse_seed, to_engine, to_host
from ndimg import _core
from ndimg.morphology import _reconstruction
from ndimg.morphology import _reconstruction_dask as rd
from test_dask_global import Counter, chunked

da = pytest.importorskip("dask.array")

_CROSS = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool)
_X = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]], bool)


def check(seed, mask, chunks, engine, **kw):
    """The Dask result (built without computing a chunk) against scikit-image and ndimg in memory."""
    cs, cm = Counter(chunked(seed, chunks, engine)), Counter(chunked(mask, chunks, engine))
    lazy = ndm.reconstruction(cs.array, cm.array, **kw)
    assert cs.calls == cm.calls == 0, "computed before .compute()"
    assert isinstance(lazy, da.Array) and lazy.chunks == cs.array.chunks
    got = lazy.compute()
    assert type(got) is type(to_engine(mask, engine))
    got = to_host(got)
    expected = skm.reconstruction(seed, mask, **kw)
    in_memory = to_host(ndm.reconstruction(to_engine(seed, engine), to_engine(mask, engine), **kw))
    assert got.dtype == expected.dtype == in_memory.dtype == lazy.dtype
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got, in_memory)


@pytest.mark.parametrize("method", ["dilation", "erosion"])
@pytest.mark.parametrize("shape, chunks", [((41, 37), (7, 5)), ((41, 37), (1, 9)), ((41, 37), ((20, 1, 20), (36, 1))),
                                           ((13, 11, 12), (4, 3, 5)), ((13, 11, 12), (13, 1, 6)), ((61,), (4,))])
def test_random_images(engine, rng, method, shape, chunks):
    mask = rng.random(shape)
    check(sparse_seed(rng, mask, method), mask, chunks, engine, method=method)


@pytest.mark.parametrize("footprint", [_CROSS, _X, np.ones((3, 5), bool), np.ones((1, 3), bool), np.ones((1, 1), bool),
                                       np.array([[0, 0, 1], [0, 0, 1], [1, 0, 0]], bool)])
@pytest.mark.parametrize("method", ["dilation", "erosion"])
def test_footprints(engine, rng, footprint, method):
    """Footprints of reach 1 and 2 (chunks of 1 and 2 elements: a step jumps over a chunk), a lone centre, and a
    one-way footprint (values flow one way: the image as one chunk)."""
    mask = rng.random((23, 29))
    check(sparse_seed(rng, mask, method, 0.03), mask, ((5, 1, 2, 15), (3, 2, 1, 1, 22)), engine,
          method=method, footprint=footprint)


@pytest.mark.parametrize("footprint, offset", [(np.ones(3), np.array([1])), (np.ones(5), np.array([2])),
                                               (np.array([1, 0, 1, 1]), np.array([1])), (np.ones(4), np.array([0])),
                                               (np.array([1, 1, 0]), np.array([2]))])
@pytest.mark.parametrize("method", ["dilation", "erosion"])
def test_offsets(engine, rng, footprint, offset, method):
    """scikit-image takes offsets of 1-D footprints only (it compares the offset's ndim with the
    footprint's): centred ones stay symmetric, the others make values flow one way."""
    mask = rng.random(83)
    check(sparse_seed(rng, mask, method, 0.05), mask, ((5, 1, 2, 1, 30, 44),), engine,
          method=method, footprint=footprint, offset=offset)


@pytest.mark.parametrize("chunks", [(3, 4), (1, 7), (8, 1), (5, 5)])
@pytest.mark.parametrize("footprint", [None, _CROSS])
def test_serpentine_corridor_crosses_chunks_many_times(engine, chunks, footprint):
    mask, start = serpentine(31)
    seed = np.zeros_like(mask)
    seed[start] = mask[start]
    check(seed, mask, chunks, engine, footprint=footprint)
    # erosion: the same corridor as a valley
    check(1 - seed, 1 - mask, chunks, engine, footprint=footprint, method="erosion")


def test_seed_in_a_corner_reaches_the_far_corner(engine, rng):
    """One seed in the first chunk; the values reaching the last chunk pass through many chunk borders."""
    for shape, chunks in (((64, 64), (6, 7)), ((17, 18, 19), (4, 5, 3))):
        mask = 0.5 + 0.5 * rng.random(shape)
        seed = np.zeros(shape)
        seed[(0,) * len(shape)] = 1.0
        mask[(0,) * len(shape)] = 1.0
        check(seed, mask, chunks, engine)
        check(mask.max() - seed, mask.max() - mask, chunks, engine, method="erosion")


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "uint64", "float16", "float32", "float64"])
def test_dtypes(engine, rng, dtype):
    shape = (30, 26)
    if dtype == "bool":
        mask = rng.random(shape) > 0.4
        seed = mask & (rng.random(shape) > 0.97)
    else:
        mask = (rng.random(shape) * 100).astype(dtype)
        seed = sparse_seed(rng, mask, "dilation", 0.03)
    check(seed, mask, (4, 7), engine)
    check(np.maximum(seed, mask) if dtype == "bool" else mask.max() - seed + mask.min(),
          mask if dtype == "bool" else mask.max() - mask + mask.min(), (9, 1), engine, method="erosion")


def test_infinite_and_nan_mask(engine, rng):
    """An infinite mask element; a NaN one ranks above every value (scikit-image's order): it does not stop
    the flood."""
    mask = rng.random((20, 20))
    mask[5, :] = np.inf
    mask[0, 0] = 1.0
    seed = np.zeros_like(mask)
    seed[0, 0] = 0.9
    check(seed, mask, (3, 4), engine)
    mask2 = mask.copy()
    mask2[10, :] = np.nan
    cs, cm = chunked(seed, (3, 4), engine), chunked(mask2, (3, 4), engine)
    np.testing.assert_array_equal(to_host(ndm.reconstruction(cs, cm).compute()),
                                  to_host(ndm.reconstruction(to_engine(seed, engine), to_engine(mask2, engine))))


def test_one_array_in_memory(engine, rng):
    """A Dask seed under an in-memory mask (and the reverse): the Dask array's chunks."""
    mask = rng.random((19, 21))
    seed = sparse_seed(rng, mask, "dilation")
    expected = skm.reconstruction(seed, mask)
    got = ndm.reconstruction(chunked(seed, (4, 5), engine), to_engine(mask, engine))
    assert got.chunks == ((4, 4, 4, 4, 3), (5, 5, 5, 5, 1))
    np.testing.assert_array_equal(to_host(got.compute()), expected)
    got = ndm.reconstruction(to_engine(seed, engine), chunked(mask, (7, 3), engine))
    np.testing.assert_array_equal(to_host(got.compute()), expected)
    # chunked differently: the seed's chunks
    got = ndm.reconstruction(chunked(seed, (4, 5), engine), chunked(mask, (7, 3), engine))
    assert got.chunks == ((4, 4, 4, 4, 3), (5, 5, 5, 5, 1))
    np.testing.assert_array_equal(to_host(got.compute()), expected)


def test_errors(engine, rng):
    """Argument errors when the call is built; a seed above the mask (data) when it is computed."""
    mask = rng.random((10, 12))
    cm = chunked(mask, 4, engine)
    with pytest.raises(ValueError, match="method"):
        ndm.reconstruction(cm * 0, cm, method="bogus")
    with pytest.raises(ValueError, match="odd"):
        ndm.reconstruction(cm * 0, cm, footprint=np.ones((2, 2), bool))
    with pytest.raises(ValueError, match="Offset"):
        ndm.reconstruction(cm * 0, cm, footprint=np.ones((3, 3), bool), offset=np.array([1, 3]))
    lazy = ndm.reconstruction(cm + 1, cm)
    with pytest.raises(ValueError, match="less than that of the mask"):
        lazy.compute()
    with pytest.raises(ValueError, match="greater than that of the mask"):
        ndm.reconstruction(cm - 1, cm, method="erosion").compute()
    empty = chunked(np.zeros((0, 3)), 2, engine)
    with pytest.raises(ValueError):
        ndm.reconstruction(empty, empty)


def test_chunk_summary_bottlenecks(rng):
    """A chunk's summary, against scikit-image: its values are its own reconstruction at the border elements,
    and from one border element alone, widest paths over its forest are the bottlenecks from it (the
    reconstruction of that element's value over a flat seed)."""
    mask = rng.random((12, 10))
    seed = np.where(rng.random(mask.shape) < 0.1, mask, 0.0)
    steps, pad = _reconstruction._neighbourhood(None, None, 2)
    halves = rd._halves(steps)
    sides = ((True, False), (True, True))
    border = rd._border(mask.shape, sides, (1, 1))
    values, level, _, _ = rd._summary(seed, mask, "dilation", steps, pad, halves, (1, 1), sides)
    np.testing.assert_array_equal(values, skm.reconstruction(seed, mask).ravel()[border])
    np.testing.assert_array_equal(level, mask.ravel()[border])
    edges, weights = rd._forest(mask, np.ones(mask.shape, bool), border, halves, (1, 1))
    assert len(edges) == border.size - 1   # one component: a spanning tree
    for a in rng.choice(border.size, 6, replace=False):
        got = np.full(border.size, -np.inf)
        got[a] = mask.ravel()[border[a]]
        _core.widest_paths(got, edges, weights)
        flat = np.full_like(mask, mask.min())
        flat.ravel()[border[a]] = got[a]
        np.testing.assert_array_equal(got, skm.reconstruction(flat, mask).ravel()[border])


def test_summary_primitives_refuse_bad_input():
    mask = np.zeros((4, 5))
    ids = np.full((4, 5), -1, np.int32)
    ids[0, 0] = 3   # at most 2 border elements for one edge
    edges, weights = np.empty((1, 2), np.int64), np.empty(1)
    with pytest.raises(ValueError, match="border id"):
        _core.bottleneck_forest(mask, ids, [1], edges, weights)
    with pytest.raises(TypeError):
        _core.bottleneck_forest(mask, ids.astype(np.int64), [1], edges, weights)
    with pytest.raises(ValueError, match="offset"):
        _core.bottleneck_forest(mask, np.full((4, 5), -1, np.int32), [20], edges, weights)
    with pytest.raises(ValueError, match="vertex"):
        _core.widest_paths(np.zeros(2), np.array([[0, 2]], np.int64), np.zeros(1))
