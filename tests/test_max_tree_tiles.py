"""The max-tree over tiles of rows joined along their borders (cpp/src/morphology/maxtree.cpp) against
scikit-image: the parent array and traverser exactly, and the filters standing on them. The private
_TILE_ROWS knob forces tiles of a few rows on small images."""
import numpy as np
import pytest
import skimage.morphology as skm

from helpers import max_tree_images, tile_rows  # noqa: F401 (a fixture)

import ndimg
import ndimg.morphology as nm


CASES = [((57,), 1), ((23, 19), 1), ((23, 19), 2), ((9, 7, 8), 1), ((9, 7, 8), 2), ((9, 7, 8), 3),
         ((6, 3, 4, 5), 1), ((6, 3, 4, 5), 4)]


@pytest.mark.parametrize("tile_rows", [1, 2, 5], indirect=True)
@pytest.mark.parametrize("shape,connectivity", CASES)
def test_tree_matches_skimage(tile_rows, shape, connectivity):
    for image in max_tree_images(shape, sum(shape) + connectivity):
        parent, traverser = nm.max_tree(image, connectivity)
        ref_parent, ref_traverser = skm.max_tree(image, connectivity)
        np.testing.assert_array_equal(traverser, ref_traverser)
        np.testing.assert_array_equal(parent, ref_parent)


@pytest.mark.parametrize("tile_rows", [1, 3], indirect=True)
@pytest.mark.parametrize("shape,connectivity", CASES)
def test_filters_match_skimage(tile_rows, shape, connectivity):
    for image in max_tree_images(shape, 7 * sum(shape) + connectivity):
        if image.dtype == bool:
            image = image.astype(np.uint8)
        for name, threshold in [("area_opening", 6), ("area_closing", 6), ("diameter_opening", 3),
                                ("diameter_closing", 3)]:
            np.testing.assert_array_equal(getattr(nm, name)(image, threshold, connectivity),
                                          getattr(skm, name)(image, threshold, connectivity), err_msg=name)
        np.testing.assert_array_equal(nm.max_tree_local_maxima(image, connectivity),
                                      skm.max_tree_local_maxima(image, connectivity))


@pytest.mark.parametrize("tile_rows", [2], indirect=True)
@pytest.mark.parametrize("shape", [(30, 2), (12, 9)])
def test_untiled_cases_match_skimage(tile_rows, shape):
    """A side below 3 (neighbours that wrap one way) and NaN (equality not transitive) stay serial."""
    rng = np.random.default_rng(3)
    image = rng.integers(0, 3, shape).astype(np.float64)
    image[rng.random(shape) < 0.2] = np.nan
    for connectivity in (1, 2):
        parent, traverser = nm.max_tree(image, connectivity)
        ref_parent, ref_traverser = skm.max_tree(image, connectivity)
        np.testing.assert_array_equal(traverser, ref_traverser)
        np.testing.assert_array_equal(parent, ref_parent)


@pytest.mark.parametrize("threads", [1, 3, 8])
def test_automatic_tiles_match_skimage(threads):
    """The automatic tiling of images large enough for it (few levels: tiles of 2**17 pixels, at least one
    per thread)."""
    rng = np.random.default_rng(threads)
    image = (rng.integers(0, 6, (520, 530)) + np.arange(530) // 40).astype(np.uint8)
    before = ndimg.get_num_threads()
    ndimg.set_num_threads(threads)
    try:
        parent, traverser = nm.max_tree(image, 2)
        opened = nm.area_opening(image, 20)
    finally:
        ndimg.set_num_threads(before)
    ref_parent, ref_traverser = skm.max_tree(image, 2)
    np.testing.assert_array_equal(traverser, ref_traverser)
    np.testing.assert_array_equal(parent, ref_parent)
    np.testing.assert_array_equal(opened, skm.area_opening(image, 20))


@pytest.mark.parametrize("tile_rows", [1, 2, 5], indirect=True)
@pytest.mark.parametrize("footprint", [np.array([[0, 1, 0], [1, 1, 1], [0, 0, 0]], bool), np.ones((1, 5), bool),
                                       np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0]], bool)])
def test_one_way_and_wide_footprints_stay_serial(tile_rows, footprint):
    """A one-way footprint (scikit-image reads its edges only from the later pixel in the order) and steps of
    two (which wrap around a row) are not tiled: the joins would read other edges."""
    rng = np.random.default_rng(tile_rows)
    for _ in range(3):
        image = rng.integers(0, 4, (23, 19)).astype(np.uint8)
        parent, traverser = nm.max_tree(image, footprint)
        ref_parent, ref_traverser = skm.max_tree(image, footprint)
        np.testing.assert_array_equal(traverser, ref_traverser)
        np.testing.assert_array_equal(parent, ref_parent)
