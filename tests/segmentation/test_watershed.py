"""segmentation.watershed against scikit-image 0.26, label for label: the corners where the result depends on
the queue's order (plateaus, markers of equal value, compactness, watershed lines) and the argument forms the
generated cases do not reach."""
import numpy as np
import pytest
from skimage import segmentation as sk

from ndimg.segmentation._watershed import watershed


def same(*args, **kwargs):
    ref = sk.watershed(*args, **kwargs)
    got = watershed(*args, **kwargs)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)
    return got


def sparse_markers(rng, shape, count, dtype=np.int32):
    markers = np.zeros(shape, dtype)
    markers.flat[rng.choice(int(np.prod(shape)), count, replace=False)] = rng.integers(1, 6, count)
    return markers


@pytest.mark.parametrize("kw", [{}, {"connectivity": 2}, {"watershed_line": True},
                                {"connectivity": 2, "watershed_line": True}, {"compactness": 0.3},
                                {"compactness": 0.01, "watershed_line": True}])
def test_plateaus_and_equal_markers(kw):
    # few levels: wide plateaus, many markers on equal values (the heap's own order decides among them)
    rng = np.random.default_rng(0)
    image = rng.integers(0, 3, (60, 70)).astype(np.float64)
    same(image, sparse_markers(rng, image.shape, 80), **kw)


@pytest.mark.parametrize("kw", [{}, {"watershed_line": True}, {"compactness": 0.05}])
def test_flat_image_big_markers(kw):
    image = np.zeros((40, 50))
    markers = np.zeros(image.shape, np.int64)
    markers[:5], markers[-5:], markers[:, :3] = 1, 2, 3
    markers[20, 25] = 4
    same(image, markers, **kw)


def test_random_small_cases():
    rng = np.random.default_rng(1)
    for _ in range(300):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(2, 8, ndim))
        image = rng.integers(0, int(rng.choice([2, 5, 100])), shape).astype(rng.choice([np.float32, np.uint8]))
        kw = dict(connectivity=int(rng.integers(1, ndim + 1)), compactness=float(rng.choice([0, 0, 0.5, 0.01])),
                  watershed_line=bool(rng.integers(0, 2)))
        if rng.integers(0, 2):
            kw["mask"] = rng.random(shape) < 0.8
        same(image, sparse_markers(rng, shape, min(4, image.size), rng.choice([np.int16, np.uint8, np.int64])), **kw)


@pytest.mark.parametrize("connectivity", [1, 2])
def test_markers_from_local_minima(connectivity):
    rng = np.random.default_rng(2)
    image = rng.integers(0, 6, (40, 40)).astype(np.uint8)
    got = same(image, None, connectivity=connectivity)
    assert got.dtype == np.int32
    same(image, None, connectivity=connectivity, mask=rng.random(image.shape) < 0.7)


def test_marker_count_and_mask():
    rng = np.random.default_rng(3)
    image = rng.random((30, 45))
    same(image, 9)
    same(image, 9, mask=rng.random(image.shape) < 0.5)


def test_three_d_and_footprint_with_offset():
    rng = np.random.default_rng(4)
    image = rng.integers(0, 4, (12, 13, 14)).astype(np.float64)
    markers = sparse_markers(rng, image.shape, 30)
    same(image, markers, connectivity=3)
    same(image, markers, compactness=0.2)
    footprint = np.array([[0, 1, 0], [1, 1, 1], [1, 1, 0]], bool)
    same(image[0], markers[0], connectivity=footprint)
    same(image[0], markers[0], connectivity=np.ones((3, 3), bool), offset=(1, 1))


def test_nan_values_and_bool_markers():
    rng = np.random.default_rng(5)
    image = rng.integers(0, 4, (30, 30)).astype(np.float64)
    image[rng.random(image.shape) < 0.05] = np.nan
    same(image, sparse_markers(rng, image.shape, 20))
    same(image, sparse_markers(rng, image.shape, 20), compactness=1.0)
    same(rng.random((10, 10)), np.eye(10, dtype=bool))


def test_errors():
    image = np.zeros((5, 6))
    with pytest.raises(ValueError, match="must have same shape"):
        watershed(image, np.zeros((5, 5), int), mask=np.ones((4, 6), bool))
    with pytest.raises(ValueError, match="unambiguous center"):
        watershed(image, np.eye(5, 6, dtype=int), connectivity=np.ones((2, 2)))
    with pytest.raises(ValueError, match="Connectivity dimension"):
        watershed(image, np.eye(5, 6, dtype=int), connectivity=np.ones((3, 3, 3)))
    with pytest.raises(TypeError):
        watershed(image, np.eye(5, 6))   # float markers (scikit-image: no matching signature)
    # an offset leaving neighbours past the padding: scikit-image reads outside its buffers, ndimg refuses
    with pytest.raises(ValueError, match="outside the image"):
        watershed(image, np.eye(5, 6, dtype=int), connectivity=np.ones((3, 3), bool), offset=(0, 2))


@pytest.mark.parametrize("kw", [{}, {"watershed_line": True}, {"compactness": 0.001}])
def test_tied_markers_then_unique_keys(kw):
    # markers on equal values replay scikit-image's heap, the rest of the flooding runs on unique keys: a noisy
    # image with a few marker pairs on one value, and marker regions (their interiors never flood)
    rng = np.random.default_rng(6)
    image = rng.random((150, 170)).astype(np.float32)
    markers = sparse_markers(rng, image.shape, 300)
    pairs = np.flatnonzero(markers)[:20]
    image.flat[pairs] = image.flat[pairs[::-1]]
    markers[10:30, 10:40] = 7
    markers[100:130, 50:60] = -3
    same(image, markers, **kw)


def test_labels_beyond_32_bits():
    rng = np.random.default_rng(7)
    image = rng.integers(0, 3, (40, 40)).astype(np.float64)
    for values, dtype in (([2**40, -2**35, 5], np.int64), ([2**63 + 5, 1, 2**40], np.uint64)):
        markers = np.zeros(image.shape, dtype)
        markers.flat[rng.choice(image.size, 30, replace=False)] = rng.choice(np.array(values, dtype), 30)
        same(image, markers)
        same(image, markers, watershed_line=True)
