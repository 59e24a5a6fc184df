"""segmentation.watershed over Dask arrays: labels equal to scikit-image's on the whole array, for chunks
smaller than the basins, basins across 3+ chunks, plateaus and ties across chunk borders, masks, both
connectivities, 1-3 dimensions; lazy; and what raises NotImplementedError.

Most checks run with the whole-image fallback off (_WHOLE = 0), so that the chunked scheme itself is what is
compared: markers of one value and different labels whose floods meet at once raise there instead."""
from __future__ import annotations

import numpy as np
import pytest
from skimage.segmentation import watershed as sk_watershed

from helpers import dask_tasks
import ndimg
import ndimg.segmentation._watershed_dask as wd

da = pytest.importorskip("dask.array")


@pytest.fixture
def chunked_only(monkeypatch):
    monkeypatch.setattr(wd, "_WHOLE", 0)


def _dask(x, chunks):
    return da.from_array(x, chunks=chunks) if isinstance(x, np.ndarray) else x


def check(image, markers, chunks, dask_markers=True, **kw):
    """The lazy Dask result equals scikit-image's on the whole arrays (dtype and values)."""
    expected = sk_watershed(image, markers, **kw)
    dkw = {k: _dask(v, chunks) if k == "mask" and v is not None else v for k, v in kw.items()}
    with dask_tasks() as tasks:
        lazy = ndimg.segmentation.watershed(_dask(image, chunks), _dask(markers, chunks) if dask_markers else markers,
                                            **dkw)
    assert not tasks.keys, "tasks ran while the call was built"
    assert isinstance(lazy, da.Array)
    assert lazy.chunks == da.from_array(image, chunks=chunks).chunks
    got = lazy.compute(scheduler="sync")
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def _markers(rng, shape, count, dtype=np.int32):
    m = np.zeros(shape, dtype)
    flat = rng.choice(m.size, count, replace=False)
    m.flat[flat] = np.arange(1, count + 1)
    return m


@pytest.mark.parametrize("chunks", [(5, 7), (13, 4), (1, 40), (40, 50)])
@pytest.mark.parametrize("connectivity", [1, 2])
def test_float_noise(chunked_only, chunks, connectivity):
    rng = np.random.default_rng(0)
    image = rng.random((40, 50))
    check(image, _markers(rng, image.shape, 12), chunks, connectivity=connectivity)


@pytest.mark.parametrize("connectivity", [1, 2])
def test_basins_across_many_chunks(chunked_only, connectivity):
    # three wide bowls over a 10 x 12 grid of chunks: each basin spans many chunks, borders cross them
    y, x = np.mgrid[:60, :72]
    image = np.minimum.reduce([(y - cy) ** 2 + (x - cx) ** 2 for cy, cx in ((10, 10), (45, 20), (30, 60))])
    image = image.astype(np.float32) + np.float32(0.001) * x
    markers = np.zeros(image.shape, np.uint16)
    markers[10, 10], markers[45, 20], markers[30, 60] = 3, 1, 2
    check(image, markers, (6, 6), connectivity=connectivity)


@pytest.mark.parametrize("chunks", [(3, 3), (4, 11), (1, 25)])
@pytest.mark.parametrize("connectivity", [1, 2])
def test_plateau_split_by_distance_across_chunks(chunked_only, chunks, connectivity):
    # one flat plateau flooded from markers of different values: the split follows hop distance, then the
    # marker's value where distances tie; the fronts meet on chunk borders
    image = np.full((21, 25), 7, np.uint8)
    markers = np.zeros(image.shape, np.int64)
    for label, (r, c, v) in enumerate([(2, 3, 0), (17, 4, 1), (10, 22, 2), (3, 20, 3), (10, 10, 4)], start=1):
        markers[r, c] = label
        image[r, c] = v
    check(image, markers, chunks, connectivity=connectivity)


def test_terraces_and_passes(chunked_only):
    # integer terraces: basins meet on passes of equal level, reached at equal and unequal hop counts
    rng = np.random.default_rng(3)
    y, x = np.mgrid[:36, :36]
    image = ((np.abs(y - 18) + np.abs(x - 18)) // 4).astype(np.int16)
    image[rng.random(image.shape) < 0.05] += 1
    markers = np.zeros(image.shape, np.int32)
    for label, (r, c) in enumerate([(0, 0), (0, 35), (35, 0), (35, 35)], start=1):
        markers[r, c] = label
        image[r, c] = -label   # markers of different values: their order never needs scikit-image's heap
    for chunks in ((5, 5), (7, 12), (36, 1)):
        check(image, markers, chunks, connectivity=1)
        check(image, markers, chunks, connectivity=2)


@pytest.mark.parametrize("chunks", [(4, 5, 3), (2, 9, 9), (9, 1, 9)])
@pytest.mark.parametrize("connectivity", [1, 3])
def test_3d(chunked_only, chunks, connectivity):
    rng = np.random.default_rng(1)
    image = rng.random((9, 9, 9))
    check(image, _markers(rng, image.shape, 6), chunks, connectivity=connectivity)
    steps = (rng.integers(0, 4, image.shape) + rng.random(image.shape) * (rng.random(image.shape) < 0.02))
    markers = _markers(rng, image.shape, 6)
    steps[markers > 0] = -np.arange(1, 7)   # distinct marker values
    check(steps, markers, chunks, connectivity=connectivity)


def test_1d(chunked_only):
    image = np.array([3, 2, 2, 2, 2, 5, 1, 1, 1, 1, 1, 1, 4, 0, 4, 4, 4], float)
    markers = np.zeros(image.size, int)
    markers[[1, 7, 13]] = [1, 2, 3]
    for chunks in ((1,), (2,), (5,), (17,)):
        check(image, markers, chunks)


@pytest.mark.parametrize("connectivity", [1, 2])
def test_mask(chunked_only, connectivity):
    rng = np.random.default_rng(2)
    image = rng.random((30, 33))
    mask = rng.random(image.shape) < 0.7
    mask[:, 15] = False   # a wall the floods cannot cross (connectivity 1) on a chunk border
    markers = _markers(rng, image.shape, 8)
    check(image, markers, (10, 15), mask=mask, connectivity=connectivity)
    check(image, markers, (10, 16), dask_markers=False, mask=mask, connectivity=connectivity)
    unreached = np.zeros(image.shape, bool)
    unreached[:, :10] = True   # markers outside the mask are dropped; masked elements no flood reaches stay 0
    check(image, markers, (7, 8), mask=unreached, connectivity=connectivity)


def test_labels_shared_by_markers_and_dtypes(chunked_only):
    rng = np.random.default_rng(4)
    image = (rng.random((24, 24)) * 50).astype(np.uint8)
    markers = np.zeros(image.shape, np.uint8)
    markers[::6, ::6] = 1 + (np.arange(16).reshape(4, 4) % 3)   # one label at several markers
    image[::6, ::6] = np.arange(16).reshape(4, 4)                # (values apart)
    check(image, markers, (5, 7))
    check(image.astype(np.float64), markers.astype(bool), (5, 7))


def test_random_ties(chunked_only):
    """Few-level images, markers of equal values: each call equals scikit-image or, where only scikit-image's
    heap order among tied markers decides, raises NotImplementedError (with the fallback on: equal)."""
    rng = np.random.default_rng(5)
    equal = 0
    for t in range(24):
        shape = (int(rng.integers(5, 25)), int(rng.integers(5, 25)))
        image = rng.integers(0, 3, shape).astype(np.uint8)
        markers = _markers(rng, shape, int(rng.integers(1, 6)))
        chunks = tuple(int(rng.integers(1, s)) for s in shape)
        conn = int(rng.integers(1, 3))
        try:
            check(image, markers, chunks, connectivity=conn)
            equal += 1
        except NotImplementedError as e:
            assert "heap" in str(e)
            wd._WHOLE = 1 << 24
            try:
                check(image, markers, chunks, connectivity=conn)
            finally:
                wd._WHOLE = 0
    assert equal >= 8


def test_markers_from_a_number_and_minima():
    rng = np.random.default_rng(6)
    image = rng.random((25, 31))
    mask = rng.random(image.shape) < 0.8
    for markers in (None, 9):
        for conn in (1, 2):
            check(image, markers, (6, 8), connectivity=conn)
            check(image, markers, (6, 8), connectivity=conn, mask=mask)
    plateaus = (rng.integers(0, 4, (20, 22)) * 3).astype(np.int16)   # flat minima across chunk borders
    check(plateaus, None, (3, 4))
    check(np.zeros((6, 7)), None, (2, 3))   # no minima in a constant image


def test_footprint_one_way_steps():
    rng = np.random.default_rng(7)
    image = rng.random((15, 16))
    footprint = np.array([[0, 1, 0], [1, 1, 1], [1, 1, 0]], bool)
    check(image, _markers(rng, image.shape, 5), (4, 5), connectivity=footprint)
    check(image, _markers(rng, image.shape, 5), (4, 5), connectivity=np.ones((3, 3), bool), offset=(1, 1))


def test_tied_markers_raise_without_fallback(chunked_only):
    # a symmetric plateau between two markers of one value: the middle element goes to whichever scikit-image's
    # heap gives first
    image = np.zeros((1, 9))
    markers = np.zeros(image.shape, int)
    markers[0, 0], markers[0, 8] = 1, 2
    image[0, 1:8] = 5
    lazy = ndimg.segmentation.watershed(da.from_array(image, chunks=(1, 3)), markers)
    with pytest.raises(NotImplementedError, match="ndimg.segmentation.watershed .*heap"):
        lazy.compute()
    wd._WHOLE = 1 << 24
    try:
        check(image, markers, (1, 3))
    finally:
        wd._WHOLE = 0


def test_refusals():
    image = da.from_array(np.random.default_rng(8).random((10, 10)), chunks=5)
    markers = np.zeros((10, 10), int)
    markers[2, 2], markers[7, 7] = 1, 2
    for kw, name in ((dict(compactness=0.5), "compactness"), (dict(watershed_line=True), "watershed_line")):
        with dask_tasks() as tasks, pytest.raises(NotImplementedError, match=f"ndimg.segmentation.watershed .*{name}"):
            ndimg.segmentation.watershed(image, markers, **kw)
        assert not tasks.keys
    nan = np.ones((10, 10))
    nan[4, 4] = np.nan
    with pytest.raises(NotImplementedError, match="NaN"):
        ndimg.segmentation.watershed(da.from_array(nan, chunks=5), markers).compute()
    with pytest.raises(ValueError):
        ndimg.segmentation.watershed(image, np.zeros((3, 3), int))
    with pytest.raises(ValueError):
        ndimg.segmentation.watershed(image, markers, mask=np.ones((3, 3), bool))
    with pytest.raises(TypeError):
        ndimg.segmentation.watershed(image, markers.astype(float))
