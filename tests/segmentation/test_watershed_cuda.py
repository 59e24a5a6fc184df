"""segmentation.watershed on the CUDA engine against scikit-image 0.26, label for label, where the generated
cases are too small to reach: wide plateaus flooded in many fronts, markers tied on one value (one label:
any order; several labels: the host's heap where their floods touch), large flat regions, many markers,
3-D, connectivity 2, masks, images of many levels (the device's buckets) and of too many (the host), and the
arguments the device hands to the host (compactness, watershed lines, NaN): every result a CuPy array."""
import numpy as np
import pytest
from scipy import ndimage as ndi
from skimage import segmentation as sk

from helpers import cupy_or_skip, serpentine
from ndimg.segmentation import watershed


def same(image, markers, mask=None, **kwargs):
    cp = cupy_or_skip()
    ref = sk.watershed(image, markers, mask=mask, **kwargs)
    on_gpu = lambda a: cp.asarray(a) if isinstance(a, np.ndarray) else a
    got = watershed(cp.asarray(image), on_gpu(markers), mask=on_gpu(mask), **kwargs)
    assert isinstance(got, cp.ndarray)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(cp.asnumpy(got), ref)


def quantized(rng, shape, levels, sigma, dtype=np.uint8):
    """A smooth random field quantized to `levels` values: plateaus thousands of elements wide."""
    field = ndi.gaussian_filter(rng.standard_normal(shape), sigma)
    edges = np.quantile(field, np.linspace(0, 1, levels + 1)[1:-1])
    return np.digitize(field, edges).astype(dtype)


def markers_at(rng, image, count, labels=None, dtype=np.int32):
    """`count` markers at distinct random places labelled 1..count, or by labels(value of the place)."""
    markers = np.zeros(image.shape, dtype)
    where = rng.choice(image.size, count, replace=False)
    markers.flat[where] = np.arange(1, count + 1) if labels is None else labels(image.flat[where])
    return markers


@pytest.mark.parametrize("levels", [2, 4, 16, 256])
@pytest.mark.parametrize("count", [3, 40, 2000])
def test_plateaus(levels, count):
    rng = np.random.default_rng(levels * 7919 + count)
    image = quantized(rng, (384, 320), levels, 6)
    same(image, markers_at(rng, image, count))


def test_tied_markers_one_label_per_value():
    rng = np.random.default_rng(1)
    image = quantized(rng, (300, 300), 6, 5)
    same(image, markers_at(rng, image, 500, labels=lambda v: v.astype(np.int32) + 1))


@pytest.mark.parametrize("seed", range(6))
def test_tied_markers_several_labels(seed):
    # a few labels on few values: many ties, some whose floods touch (the heap's arrangement decides)
    rng = np.random.default_rng(seed)
    image = quantized(rng, (200, 180), 3, 3)
    same(image, markers_at(rng, image, 30, labels=lambda v: rng.integers(1, 4, v.size)))


def test_adjacent_tied_markers():
    image = np.zeros((40, 40), np.uint8)
    markers = np.zeros((40, 40), np.int64)
    markers[20, 19], markers[20, 20], markers[5, 5] = 1, 2, 3
    same(image, markers)


@pytest.mark.parametrize("shape", [(1000, 1000), (100000,)])
def test_large_flat_region(shape):
    rng = np.random.default_rng(2)
    image = np.full(shape, 7, np.uint8)
    same(image, markers_at(rng, image, 5))


def test_long_corridor():
    # one plateau flooded along a winding path from both ends: thousands of fronts of one or two elements
    floor, start = serpentine(101)
    markers = np.zeros(floor.shape, np.int32)
    markers[start] = 1
    markers[floor == floor[floor > 0].min()] = 2
    same(np.zeros(floor.shape, np.uint8), markers, mask=floor > 0)
    same((floor * 8).astype(np.uint8), markers, mask=floor > 0)


@pytest.mark.parametrize("connectivity", [1, 2, 3])
def test_3d(connectivity):
    rng = np.random.default_rng(connectivity)
    image = quantized(rng, (48, 56, 40), 12, 3)
    same(image, markers_at(rng, image, 60), connectivity=connectivity)


@pytest.mark.parametrize("levels", [5, 64])
def test_connectivity_2(levels):
    rng = np.random.default_rng(levels)
    image = quantized(rng, (257, 263), levels, 4)
    same(image, markers_at(rng, image, 120), connectivity=2)


def test_footprint_and_offset():
    rng = np.random.default_rng(3)
    image = quantized(rng, (150, 170), 8, 3)
    footprint = np.array([[0, 1, 0], [1, 1, 1], [1, 1, 0]], bool)
    same(image, markers_at(rng, image, 25), connectivity=footprint)
    same(image, markers_at(rng, image, 25), connectivity=np.ones((5, 5), bool), offset=(2, 2))


def test_mask():
    rng = np.random.default_rng(4)
    image = quantized(rng, (300, 280), 10, 4)
    mask = ndi.binary_opening(rng.random(image.shape) < 0.7)
    same(image, markers_at(rng, image, 80), mask=mask)


@pytest.mark.parametrize("levels", [3000, 40000])
def test_many_levels(levels):
    # uint16: 3,000 levels flood on the device (a bucket each), 40,000 on the host
    rng = np.random.default_rng(levels)
    image = quantized(rng, (256, 256), levels, 2, np.uint16)
    same(image, markers_at(rng, image, 50))


def test_negative_values_and_signed_zero():
    rng = np.random.default_rng(5)
    image = -quantized(rng, (120, 130), 6, 3).astype(np.float64)  # -0.0 beside the other values
    image[::7, ::5] = 0.0
    same(image, markers_at(rng, image, 20, labels=lambda v: (v == 0) + 1))


@pytest.mark.parametrize("connectivity", [1, 2])
def test_float_image(connectivity):
    # levels a handful of elements each: flooded by regions of one flood level
    rng = np.random.default_rng(6)
    image = ndi.gaussian_filter(rng.random((300, 300)), 3).astype(np.float32)
    same(image, markers_at(rng, image, 40), connectivity=connectivity)


@pytest.mark.parametrize("shape", [(512, 384), (64, 72, 56)])
def test_float_noise(shape):
    # the benchmark's kind: noise, sparse markers of a few labels (negative ones too), pits everywhere
    rng = np.random.default_rng(11)
    image = rng.random(shape, dtype=np.float32)
    markers = np.where(rng.random(shape) < 0.002, rng.integers(-2, 6, size=shape), 0).astype(np.int32)
    same(image, markers)
    same(image, markers, connectivity=len(shape))


def test_float_mask_and_footprint():
    rng = np.random.default_rng(12)
    image = rng.random((260, 240)).astype(np.float64)
    mask = ndi.binary_opening(rng.random(image.shape) < 0.8)
    same(image, markers_at(rng, image, 60), mask=mask)
    footprint = np.array([[0, 1, 0], [1, 1, 1], [1, 1, 0]], bool)
    same(image, markers_at(rng, image, 60), connectivity=footprint)


@pytest.mark.parametrize("decimals", [3, 4])
def test_float_repeated_values(decimals):
    # many levels, many shared by regions of different labels (their order decides: the host's heap then)
    rng = np.random.default_rng(decimals)
    image = np.round(rng.random((300, 300)), decimals)
    same(image, markers_at(rng, image, 200, labels=lambda v: rng.integers(1, 4, v.size)))


def test_markers_from_minima_and_count():
    cp = cupy_or_skip()
    rng = np.random.default_rng(7)
    image = quantized(rng, (200, 200), 20, 4)
    same(image, None)
    same(image, 30)
    mask = rng.random(image.shape) < 0.8
    same(image, 12, mask=mask)
    assert isinstance(watershed(cp.asarray(image)), cp.ndarray)


@pytest.mark.parametrize("kwargs", [dict(compactness=0.1), dict(watershed_line=True),
                                    dict(compactness=0.01, watershed_line=True, connectivity=2)])
def test_host_arguments(kwargs):
    rng = np.random.default_rng(8)
    image = quantized(rng, (150, 160), 9, 3)
    same(image, markers_at(rng, image, 30), **kwargs)


def test_nan():
    rng = np.random.default_rng(9)
    image = quantized(rng, (90, 80), 5, 2).astype(np.float64)
    image[rng.random(image.shape) < 0.05] = np.nan
    same(image, markers_at(rng, image, 15))


def test_markers_dtype_and_big_labels():
    rng = np.random.default_rng(10)
    image = quantized(rng, (100, 100), 7, 3)
    markers = markers_at(rng, image, 20, dtype=np.int64)
    markers[markers > 0] += 2**40
    same(image, markers)
    same(image, markers_at(rng, image, 20, dtype=np.uint8))
