"""segmentation.watershed's flooding by flood levels in parts (the CPU engine from 4 threads, on images of many
levels) against scikit-image 0.26, label for label: the slabs hand floods over to each other for rounds, and
the labels stand only where every element's lowest pushers agree (else the serial flooding runs): noise with
sparse markers of a few labels, smooth fields, 3-D, masks, an asymmetric footprint, infinities, and values
repeated often enough that the order among lowest pushers decides."""
import numpy as np
import pytest
from scipy import ndimage as ndi
from skimage import segmentation as sk

from ndimg.segmentation._watershed import watershed
from helpers import threads_fixture


threads = threads_fixture(4, 7)


def same(image, markers, **kwargs):
    np.testing.assert_array_equal(watershed(image, markers, **kwargs), sk.watershed(image, markers, **kwargs))


def sparse_markers(rng, shape, density, labels=range(-2, 6)):
    labels = np.asarray(list(labels))
    return np.where(rng.random(shape) < density, rng.choice(labels, size=shape), 0).astype(np.int32)


@pytest.mark.parametrize("density", [0.0005, 0.005, 0.05])
def test_noise(threads, density):
    rng = np.random.default_rng(int(density * 1e4))
    image = rng.random((700, 600), dtype=np.float32)
    markers = sparse_markers(rng, image.shape, density)
    same(image, markers)
    same(image, markers, connectivity=2)


def test_smooth_3d(threads):
    rng = np.random.default_rng(1)
    image = ndi.gaussian_filter(rng.random((60, 70, 80)), 2)
    markers = sparse_markers(rng, image.shape, 0.001, range(1, 40))
    same(image, markers)
    same(image, markers, connectivity=3)


def test_mask_and_footprint(threads):
    rng = np.random.default_rng(2)
    image = rng.random((400, 380))
    mask = ndi.binary_opening(rng.random(image.shape) < 0.75)
    markers = sparse_markers(rng, image.shape, 0.002)
    same(image, markers, mask=mask)
    same(image, markers, connectivity=np.array([[0, 1, 0], [1, 1, 1], [1, 1, 0]], bool))
    same(image, markers, connectivity=np.ones((5, 5), bool), offset=(2, 2))


def test_infinities_and_signed_zero(threads):
    rng = np.random.default_rng(3)
    image = rng.standard_normal((300, 320))
    image[rng.random(image.shape) < 0.01] = np.inf
    image[rng.random(image.shape) < 0.01] = -np.inf
    image[rng.random(image.shape) < 0.01] = -0.0
    same(image, sparse_markers(rng, image.shape, 0.003))


@pytest.mark.parametrize("decimals", [5, 6])
def test_repeated_values(threads, decimals):
    # many levels, but ties between lowest pushers of different labels (the serial flooding decides)
    rng = np.random.default_rng(decimals)
    image = np.round(rng.random((500, 500)), decimals)
    same(image, sparse_markers(rng, image.shape, 0.02, range(1, 4)))
