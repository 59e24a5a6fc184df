"""shift, zoom, rotate, affine_transform and map_coordinates on Dask arrays (issue 25): chunk-correct against
scipy.ndimage and ndimg's in-memory result, over chunkings with chunks of size 1 and uneven chunks, orders
0-5, every mode, 2-D and 3-D; lazy; each output chunk reads only the input it needs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.ndimage as sn

from helpers import dask_tasks, to_engine, to_host

da = pytest.importorskip("dask.array")

import ndimg.ndimage as nd  # noqa: E402

MODES = ("constant", "grid-constant", "nearest", "mirror", "reflect", "grid-mirror", "wrap", "grid-wrap")
ORDERS = (0, 1, 3, 5)
CHUNKS_2D = ((5, 7), (1, 31), ((10, 1, 12), (4, 20, 7)))
CASES_2D = (
    ("shift", ((2.3, -4.6),), {}),
    ("shift", ((0.5, 40.5),), {}),                               # far outside: every mode's folding
    ("zoom", ((2.1, 0.6),), {}),
    ("zoom", ((0.5, 1.7),), dict(grid_mode=True)),
    ("zoom", (0.45,), {}),
    ("rotate", (17,), {}),
    ("rotate", (30,), dict(reshape=False)),
    ("rotate", (-125,), dict(reshape=True)),
    ("affine_transform", ([[0.9, 0.2], [-0.3, 1.1]], (3, -5)), dict(output_shape=(30, 20))),
    ("affine_transform", ([1.3, 0.7], (2, 1)), {}),              # a diagonal: scipy's zoom/shift arithmetic
    ("affine_transform", ([[1.1, 0.3, -40], [0.2, 0.8, 50], [0, 0, 1]],), {}),   # homogeneous, far outside
)


def _ref(name, img, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sn, name)(img, *args, **kw)


def _dask(name, x, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = getattr(nd, name)(x, *args, **kw)
    assert isinstance(out, da.Array)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_host(out.compute(scheduler="sync"))


def _in_memory(name, img, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_host(getattr(nd, name)(img, *args, **kw))


def _check(got, ref, mem):
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, ref.shape, got.dtype, ref.dtype)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got, mem, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name, args, kw", CASES_2D, ids=lambda v: v if isinstance(v, str) else None)
def test_2d_matches_scipy(engine, rng, name, args, kw, order, mode):
    img = rng.random((23, 31))
    kw = dict(kw, order=order, mode=mode, cval=0.3)
    ref = _ref(name, img, args, kw)
    mem = _in_memory(name, to_engine(img, engine), args, kw)
    for chunks in CHUNKS_2D:
        x = da.from_array(to_engine(img, engine), chunks=chunks, asarray=False)
        _check(_dask(name, x, args, kw), ref, mem)


CASES_3D = (
    ("shift", ((-1.5, 2.25, 7.0),), {}),
    ("zoom", ((1.6, 0.7, 2.2),), dict(grid_mode=True)),
    ("zoom", ((0.5, 1.5, 1.0),), {}),
    ("rotate", (25,), dict(axes=(2, 0))),
    ("rotate", (-40,), dict(reshape=False)),
    ("affine_transform", (np.eye(3)[:, :2] * 1.2 + 0.1,), dict(offset=(1, -2, 3), output_shape=(8, 25))),
)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", (0, 1, 2, 3, 4, 5))
@pytest.mark.parametrize("name, args, kw", CASES_3D, ids=lambda v: v if isinstance(v, str) else None)
def test_3d_matches_scipy(rng, name, args, kw, order, mode):
    img = rng.random((13, 17, 11))
    kw = dict(kw, order=order, mode=mode, cval=-0.7)
    ref, mem = _ref(name, img, args, kw), _in_memory(name, img, args, kw)
    for chunks in ((4, 5, 11), ((6, 1, 6), 17, (3, 8))):
        _check(_dask(name, da.from_array(img, chunks=chunks), args, kw), ref, mem)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", ORDERS)
def test_map_coordinates(rng, order, mode):
    img = rng.random((13, 17, 11))
    grids = np.meshgrid(*[np.linspace(-6, s + 5, 9) for s in img.shape], indexing="ij")
    coords = np.stack(grids) + rng.normal(0, 0.3, (3, 9, 9, 9))
    kw = dict(order=order, mode=mode, cval=0.25)
    ref, mem = _ref("map_coordinates", img, (coords,), kw), _in_memory("map_coordinates", img, (coords,), kw)
    x = da.from_array(img, chunks=((6, 1, 6), (5, 12), 11))
    _check(_dask("map_coordinates", x, (coords,), kw), ref, mem)   # NumPy coordinates
    dc = da.from_array(coords, chunks=(1, 4, (2, 7), 9))
    _check(_dask("map_coordinates", x, (dc,), kw), ref, mem)       # Dask coordinates
    # a 2-D sampling of a 3-D image; a NumPy image with Dask coordinates
    plane = coords[:, :, :, 4]
    ref2 = _ref("map_coordinates", img, (plane,), kw)
    _check(_dask("map_coordinates", img, (da.from_array(plane, chunks=(3, 4, 5)),), kw), ref2,
           _in_memory("map_coordinates", img, (plane,), kw))


@pytest.mark.parametrize("dtype, output", [("uint8", None), ("float32", None), ("int16", np.uint8),
                                           ("bool", None), ("complex128", None), ("float64", "float32")])
def test_dtypes_are_the_in_memory_ones(rng, dtype, output):
    img = rng.random((19, 22)) * 200
    img = (img + 1j * img[::-1]).astype(dtype) if dtype.startswith("complex") else img.astype(dtype)
    cval = 1 + 2j if dtype.startswith("complex") else 3
    x = da.from_array(img, chunks=((1, 9, 9), (7, 15)))
    for name, args, kw in (("zoom", (1.7,), {}), ("rotate", (33,), {}), ("shift", ((2.5, -1.2),), {}),
                           ("affine_transform", ([[1.0, 0.1], [0.05, 0.9]], 1.5), {})):
        for order in (0, 1, 3):
            kw2 = dict(kw, order=order, mode="nearest", cval=cval, output=output)
            ref = _ref(name, img, args, kw2)
            got = _dask(name, x, args, kw2)
            assert got.dtype == ref.dtype
            # bool and integer outputs exactly (bool: a value of about 1 truncates to 0 or 1 as scipy's cast)
            if ref.dtype.kind in "biu":
                np.testing.assert_array_equal(got, ref)
            else:
                np.testing.assert_allclose(got, ref, rtol=1e-6 if ref.dtype == np.float32 else 1e-9, atol=1e-5)


def test_prefilter_false_and_unit_zoom(rng):
    img = rng.random((20, 18))
    x = da.from_array(img, chunks=(6, 5))
    for kw in (dict(order=3, prefilter=False, mode="mirror"), dict(order=5, prefilter=False, mode="grid-wrap")):
        _check(_dask("shift", x, ((1.25, -3.5),), kw), _ref("shift", img, ((1.25, -3.5),), kw),
               _in_memory("shift", img, ((1.25, -3.5),), kw))
    out = nd.zoom(x, 1.0, output=np.int32)   # scipy returns the image itself, cast
    np.testing.assert_array_equal(out.compute(), sn.zoom(img, 1.0, output=np.int32))
    _check(_dask("zoom", x, (1.0,), dict(prefilter=False)), _ref("zoom", img, (1.0,), dict(prefilter=False)),
           _in_memory("zoom", img, (1.0,), dict(prefilter=False)))


def test_chunks_of_the_output(rng):
    x = da.from_array(rng.random((40, 30)), chunks=((10, 1, 29), 7))
    assert nd.shift(x, 1.5).chunks == x.chunks
    assert nd.rotate(x, 20, reshape=False).chunks == x.chunks
    assert nd.affine_transform(x, np.eye(2) * 0.9).chunks == x.chunks
    z = nd.zoom(x, 2)
    assert z.shape == (80, 60) and max(z.chunks[0]) == 58 and max(z.chunks[1]) == 14


def test_lazy_and_reads_only_its_region(rng):
    img = rng.random((64, 64))
    x = da.from_array(img, chunks=16)
    with dask_tasks() as tasks:
        lazy = [nd.shift(x, (2.5, -1.5), order=3), nd.zoom(x, 1.5, order=1), nd.rotate(x, 10, order=1),
                nd.map_coordinates(x, np.indices((8, 8)) * 7.5, order=3)]
    assert not tasks.keys, "tasks ran while the calls were built"
    # one output chunk of a shift reads the input chunks its points reach (order 1: no prefilter), not the
    # whole image
    read = set()

    def record(block, block_info=None):
        read.add(tuple(block_info[0]["chunk-location"]))
        return block

    watched = x.map_blocks(record, dtype=x.dtype)
    block = nd.shift(watched, (2.5, -1.5), order=1, mode="mirror").blocks[1, 1].compute(scheduler="sync")
    np.testing.assert_allclose(block, sn.shift(img, (2.5, -1.5), order=1, mode="mirror")[16:32, 16:32])
    assert read and read <= {(0, 1), (0, 2), (1, 1), (1, 2)}, read
    for out, ref in zip(lazy, (sn.shift(img, (2.5, -1.5), order=3), sn.zoom(img, 1.5, order=1),
                               sn.rotate(img, 10, order=1), sn.map_coordinates(img, np.indices((8, 8)) * 7.5))):
        np.testing.assert_allclose(out.compute(), ref, rtol=1e-9, atol=1e-12)


def test_errors(rng):
    x = da.from_array(rng.random((10, 12)), chunks=5)
    with pytest.raises(NotImplementedError, match="output= arrays"):
        nd.zoom(x, 2, output=np.empty((20, 24)))
    with pytest.raises(NotImplementedError, match="output= arrays"):
        nd.map_coordinates(x, np.zeros((2, 3)), output=np.empty(3))
    with pytest.raises(RuntimeError, match="spline order"):
        nd.shift(x, 1, order=6)
    with pytest.raises(RuntimeError, match="boundary mode"):
        nd.affine_transform(x, np.eye(2), mode="bogus")
    with pytest.raises(RuntimeError, match="coordinate array"):
        nd.map_coordinates(x, da.zeros((3, 4), chunks=2))
    with pytest.raises(ValueError, match="invalid rotation plane"):
        nd.rotate(x, 10, axes=(0, 3))
    with pytest.raises(NotImplementedError, match="geometric_transform"):
        nd.geometric_transform(x, lambda c: c)


def test_empty(rng):
    x = da.zeros((0, 5), chunks=2)
    assert nd.shift(x, 1).compute().shape == (0, 5)
    assert nd.zoom(da.ones((4, 4), chunks=2), 0.1).compute().shape == sn.zoom(np.ones((4, 4)), 0.1).shape
