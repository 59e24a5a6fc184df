"""The max-tree family on CuPy input (cpp/src/morphology/maxtree_cuda.cu) against scikit-image: the parent
array and traverser exactly, over tiles of a few rows forced through the private _TILE_ROWS knob (a thread per
tile, borders joined in rounds), plateaus across tile borders, 3-D and 4-D, every connectivity, given trees,
the host fallbacks (NaN, a side below 3, one-way footprints, many distinct values) and the levels of the
attribute passes (one narrow level after another in a block, wide levels on a grid of their own)."""
import numpy as np
import pytest
import skimage.morphology as skm

from helpers import CUDA_READY, max_tree_images, tile_rows  # noqa: F401 (a fixture)
import ndimg.morphology as nm

pytestmark = pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")


@pytest.fixture
def cp():
    import cupy

    return cupy


def _images(shape, seed):
    yield from max_tree_images(shape, seed)
    rng = np.random.default_rng(seed)
    yield rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64)   # all values distinct


CASES = [((23, 19), 1), ((23, 19), 2), ((9, 7, 8), 1), ((9, 7, 8), 2), ((9, 7, 8), 3), ((6, 3, 4, 5), 1),
         ((6, 3, 4, 5), 4)]


def _check_tree(cp, image, connectivity):
    parent, traverser = nm.max_tree(cp.asarray(image), connectivity)
    assert isinstance(parent, cp.ndarray) and isinstance(traverser, cp.ndarray)
    ref_parent, ref_traverser = skm.max_tree(image, connectivity)
    np.testing.assert_array_equal(cp.asnumpy(traverser), ref_traverser)
    np.testing.assert_array_equal(cp.asnumpy(parent), ref_parent)


@pytest.mark.parametrize("tile_rows", [0, 1, 2, 5], indirect=True)
@pytest.mark.parametrize("shape,connectivity", CASES)
def test_tree_matches_skimage(cp, tile_rows, shape, connectivity):
    for image in _images(shape, sum(shape) + connectivity):
        _check_tree(cp, image, connectivity)


@pytest.mark.parametrize("tile_rows", [0, 1, 3], indirect=True)
@pytest.mark.parametrize("shape,connectivity", CASES)
def test_filters_match_skimage(cp, tile_rows, shape, connectivity):
    for image in _images(shape, 7 * sum(shape) + connectivity):
        if image.dtype == bool:
            image = image.astype(np.uint8)
        for name, threshold in [("area_opening", 6), ("area_closing", 6), ("diameter_opening", 3),
                                ("diameter_closing", 3), ("area_opening", 0.5), ("diameter_closing", 100)]:
            got = getattr(nm, name)(cp.asarray(image), threshold, connectivity)
            assert isinstance(got, cp.ndarray) and got.dtype == image.dtype
            np.testing.assert_array_equal(cp.asnumpy(got), getattr(skm, name)(image, threshold, connectivity),
                                          err_msg=f"{name} {image.dtype}")
        got = nm.max_tree_local_maxima(cp.asarray(image), connectivity)
        assert isinstance(got, cp.ndarray) and got.dtype == np.uint64
        np.testing.assert_array_equal(cp.asnumpy(got), skm.max_tree_local_maxima(image, connectivity))


@pytest.mark.parametrize("shape", [(57,), (30, 2), (12, 9), (4, 2, 5)])
def test_host_built_trees_match_skimage(cp, shape):
    """NaN (equality not transitive), a side below 3 and 1-D images build on the host, the rest on the device."""
    rng = np.random.default_rng(3)
    image = rng.integers(0, 3, shape).astype(np.float64)
    image[rng.random(shape) < 0.2] = np.nan
    for connectivity in range(1, len(shape) + 1):
        _check_tree(cp, image, connectivity)
        _check_tree(cp, np.nan_to_num(image, nan=1.5), connectivity)


@pytest.mark.parametrize("tile_rows", [0, 2], indirect=True)
@pytest.mark.parametrize("footprint", [np.array([[0, 1, 0], [1, 1, 1], [0, 0, 0]], bool), np.ones((1, 5), bool),
                                       np.ones((3, 1), bool), 0])
def test_one_way_and_wide_footprints(cp, tile_rows, footprint):
    """One-way footprints and steps of two wrap or see an edge from one side only: not tiled."""
    image = np.random.default_rng(5).integers(0, 4, (23, 19)).astype(np.uint8)
    _check_tree(cp, image, footprint)
    np.testing.assert_array_equal(cp.asnumpy(nm.area_opening(cp.asarray(image), 5, footprint)),
                                  skm.area_opening(image, 5, footprint))
    np.testing.assert_array_equal(cp.asnumpy(nm.max_tree_local_maxima(cp.asarray(image), footprint)),
                                  skm.max_tree_local_maxima(image, footprint))


@pytest.mark.parametrize("connectivity", [1, 2])
def test_given_tree(cp, connectivity):
    """parent/tree_traverser passed in, as NumPy or CuPy arrays, from scikit-image's max_tree."""
    image = np.random.default_rng(9).integers(0, 5, (31, 27)).astype(np.uint16)
    parent, traverser = skm.max_tree(image, connectivity)
    for p, t in [(parent, traverser), (cp.asarray(parent), cp.asarray(traverser))]:
        for name, threshold in [("area_opening", 4), ("diameter_opening", 3)]:
            got = getattr(nm, name)(cp.asarray(image), threshold, connectivity, parent=p, tree_traverser=t)
            np.testing.assert_array_equal(cp.asnumpy(got), getattr(skm, name)(image, threshold, connectivity))
        got = nm.max_tree_local_maxima(cp.asarray(image), connectivity, parent=p, tree_traverser=t)
        np.testing.assert_array_equal(cp.asnumpy(got), skm.max_tree_local_maxima(image, connectivity))


def test_given_tree_out_of_range_raises(cp):
    image = cp.zeros((5, 6), np.uint8)
    parent = cp.full((5, 6), 30, np.int64)
    traverser = cp.arange(30, dtype=np.int64)
    with pytest.raises(ValueError, match="pixel indices"):
        nm.area_opening(image, 4, parent=parent, tree_traverser=traverser)
    with pytest.raises(ValueError, match="pixel indices"):
        nm.max_tree_local_maxima(image, parent=parent, tree_traverser=traverser)


def test_wide_and_narrow_levels(cp):
    """Levels of over 2**15 pixels get a grid each, runs of smaller ones one block: a few big plateaus of
    values around many small levels."""
    rng = np.random.default_rng(11)
    image = np.where(rng.random((300, 320)) < 0.6, rng.integers(0, 3, (300, 320)) * 100,
                     rng.integers(0, 2000, (300, 320))).astype(np.int32)
    for name, threshold in [("area_opening", 30), ("area_closing", 30), ("diameter_opening", 7),
                            ("diameter_closing", 7)]:
        got = getattr(nm, name)(cp.asarray(image), threshold, 2)
        np.testing.assert_array_equal(cp.asnumpy(got), getattr(skm, name)(image, threshold, 2), err_msg=name)


def test_automatic_tiles_large_image(cp):
    """The automatic device tiles (about 4096 pixels each) of an image of few levels, and a 3-D volume."""
    rng = np.random.default_rng(13)
    image = (rng.integers(0, 6, (700, 530)) + np.arange(530) // 40).astype(np.uint8)
    _check_tree(cp, image, 2)
    np.testing.assert_array_equal(cp.asnumpy(nm.area_opening(cp.asarray(image), 20)), skm.area_opening(image, 20))
    volume = rng.integers(0, 4, (40, 30, 50)).astype(np.uint8)
    for connectivity in (1, 3):
        _check_tree(cp, volume, connectivity)
        np.testing.assert_array_equal(cp.asnumpy(nm.diameter_closing(cp.asarray(volume), 4, connectivity)),
                                      skm.diameter_closing(volume, 4, connectivity))


def test_many_levels_fall_back_to_the_host(cp):
    """Over 65,536 distinct values: the tree (automatic tiles) and the attributes run on the host."""
    image = np.random.default_rng(17).random((300, 260))
    _check_tree(cp, image, 1)
    np.testing.assert_array_equal(cp.asnumpy(nm.area_opening(cp.asarray(image), 50)), skm.area_opening(image, 50))
    np.testing.assert_array_equal(cp.asnumpy(nm.max_tree_local_maxima(cp.asarray(image))),
                                  skm.max_tree_local_maxima(image))
