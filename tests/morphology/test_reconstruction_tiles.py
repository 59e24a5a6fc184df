"""morphology.reconstruction's in-memory CPU engine over tiles of rows (issue 26, serial algorithms): each tile
reconstructed alone and summarised, the summaries joined by widest paths, the tiles flooded again from their
borders. Small tiles are forced through the private _TILE_ROWS knob; every result equals scikit-image's and
the serial engine's bit for bit, however often a flooding path crosses tile borders."""
from __future__ import annotations

import numpy as np
import pytest
import skimage.morphology as skm

import ndimg
import ndimg.morphology as ndm
from helpers import serpentine, sparse_seed
from ndimg.morphology import _reconstruction

_CROSS = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool)
_X = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]], bool)


def _run(seed, mask, tile_rows, **kw):
    saved = _reconstruction._TILE_ROWS
    _reconstruction._TILE_ROWS = tile_rows
    try:
        return ndm.reconstruction(seed, mask, **kw)
    finally:
        _reconstruction._TILE_ROWS = saved


def check(seed, mask, tile_rows=(1, 2, 3, 7), **kw):
    """Tiles of each depth (1: the least the footprint allows) against scikit-image and the serial engine."""
    expected = skm.reconstruction(seed, mask, **kw)
    with ndimg_threads(1):   # small images run serially by default
        serial = ndm.reconstruction(seed, mask, **kw)
    np.testing.assert_array_equal(serial, expected)
    for rows in tile_rows:
        got = _run(seed, mask, rows, **kw)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected, err_msg=f"tile_rows={rows}")


class ndimg_threads:
    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.saved = ndimg.get_num_threads()
        ndimg.set_num_threads(self.n)

    def __exit__(self, *exc):
        ndimg.set_num_threads(self.saved)


@pytest.mark.parametrize("method", ["dilation", "erosion"])
@pytest.mark.parametrize("shape", [(41, 37), (13, 11, 12), (64, 3), (5, 70)])
def test_random_images(rng, method, shape):
    mask = rng.random(shape)
    check(sparse_seed(rng, mask, method), mask, method=method)


@pytest.mark.parametrize("footprint", [None, _CROSS, _X, np.ones((3, 5), bool), np.ones((5, 3), bool),
                                       np.ones((5, 1), bool), np.ones((1, 3), bool), np.ones((1, 1), bool),
                                       np.array([[0, 0, 1], [0, 0, 1], [1, 0, 0]], bool)])
@pytest.mark.parametrize("method", ["dilation", "erosion"])
def test_footprints(rng, footprint, method):
    """Reach 1 and 2 along the tiled axis (a step may span a whole tile of the least depth), a lone centre, and a
    one-way footprint (values flow one way: no summary, the serial engine)."""
    mask = rng.random((37, 29))
    check(sparse_seed(rng, mask, method, 0.03), mask, tile_rows=(1, 2, 4, 5), method=method, footprint=footprint)


@pytest.mark.parametrize("footprint, offset", [(np.ones(3), np.array([1])), (np.array([1, 0, 1, 1]), np.array([1])),
                                               (np.array([1, 1, 0]), np.array([2]))])
def test_offsets_of_1d_footprints(rng, footprint, offset):
    """scikit-image takes offsets of 1-D footprints only: 1-D images stay serial whatever the knob says."""
    mask = rng.random(83)
    for method in ("dilation", "erosion"):
        check(sparse_seed(rng, mask, method, 0.05), mask, method=method, footprint=footprint, offset=offset)


@pytest.mark.parametrize("footprint", [None, _CROSS])
def test_serpentine_corridor_crosses_tiles_many_times(footprint):
    mask, start = serpentine(31)
    seed = np.zeros_like(mask)
    seed[start] = mask[start]
    check(seed, mask, footprint=footprint)
    check(1 - seed, 1 - mask, footprint=footprint, method="erosion")
    # the corridor along the tiled axis: down the columns
    check(seed.T.copy(), mask.T.copy(), footprint=footprint)


def test_seed_in_a_corner_reaches_the_far_corner(rng):
    for shape in ((64, 64), (17, 18, 19)):
        mask = 0.5 + 0.5 * rng.random(shape)
        seed = np.zeros(shape)
        seed[(0,) * len(shape)] = 1.0
        mask[(0,) * len(shape)] = 1.0
        check(seed, mask)
        check(mask.max() - seed, mask.max() - mask, method="erosion")


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "uint64", "float16", "float32", "float64"])
def test_dtypes(rng, dtype):
    shape = (30, 26)
    if dtype == "bool":
        mask = rng.random(shape) > 0.4
        seed = mask & (rng.random(shape) > 0.97)
    else:
        mask = (rng.random(shape) * 100).astype(dtype)
        seed = sparse_seed(rng, mask, "dilation", 0.03)
    check(seed, mask)
    check(np.maximum(seed, mask) if dtype == "bool" else mask.max() - seed + mask.min(),
          mask if dtype == "bool" else mask.max() - mask + mask.min(), method="erosion")


def test_plateaus_and_infinities(rng):
    """Equal mask values met in different tiles (ties in the summaries' order), infinite and NaN mask elements
    (NaN ranks above every value)."""
    mask = np.round(rng.random((40, 33)) * 4) / 4
    mask[7, :] = np.inf
    mask[20, 5:] = np.nan
    seed = np.where(rng.random(mask.shape) < 0.02, 0.5, 0.0)
    seed = np.minimum(seed, np.nan_to_num(mask, nan=1.0))
    expected = _run(seed, mask, 0)   # serial (small image)
    np.testing.assert_array_equal(expected, skm.reconstruction(seed, np.where(np.isnan(mask), np.inf, mask)))
    for rows in (1, 2, 3, 6):
        np.testing.assert_array_equal(_run(seed, mask, rows), expected)


def test_h_maxima_over_tiles(rng):
    image = (rng.random((48, 40)) * 50).astype(np.uint8)
    saved = _reconstruction._TILE_ROWS
    try:
        for rows in (1, 3):
            _reconstruction._TILE_ROWS = rows
            np.testing.assert_array_equal(ndm.h_maxima(image, 7), skm.h_maxima(image, 7))
            np.testing.assert_array_equal(ndm.h_minima(image, 7), skm.h_minima(image, 7))
    finally:
        _reconstruction._TILE_ROWS = saved


def test_automatic_tiles_of_a_large_image(rng):
    """The automatic choice (enough threads, a large image) tiles: the same result as one thread."""
    mask = rng.random((1100, 1000)).astype(np.float32)
    seed = sparse_seed(rng, mask, "dilation", 0.001)
    with ndimg_threads(1):
        serial = ndm.reconstruction(seed, mask)
    with ndimg_threads(8):
        np.testing.assert_array_equal(ndm.reconstruction(seed, mask), serial)
