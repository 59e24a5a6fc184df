"""segmentation.watershed's level-by-level flooding (the plain case: no compactness, no watershed lines)
against scikit-image 0.26, label for label: wide plateaus whose fronts are taken in parallel, markers of one
value and one label (which leave in any order), markers of one value and different labels (scikit-image's
heap decides), at one thread and at several."""
import numpy as np
import pytest
from scipy import ndimage as ndi
from skimage import segmentation as sk

from ndimg.segmentation._watershed import watershed
from helpers import threads_fixture


threads = threads_fixture(1, 2, 4)


def same(image, markers, **kwargs):
    ref = sk.watershed(image, markers, **kwargs)
    got = watershed(image, markers, **kwargs)
    np.testing.assert_array_equal(got, ref)


def smooth_levels(rng, shape, levels, sigma):
    """A smooth random field quantized to `levels` uint8 values: plateaus thousands of elements wide."""
    field = ndi.gaussian_filter(rng.standard_normal(shape), sigma)
    edges = np.quantile(field, np.linspace(0, 1, levels + 1)[1:-1])
    return np.digitize(field, edges).astype(np.uint8)


def markers_at(rng, image, count, label_of_value=None, dtype=np.int32):
    """`count` markers at random places; label_of_value(value) gives each its label (one label a value: every
    tie is between markers of one label), else random labels 1..9."""
    markers = np.zeros(image.shape, dtype)
    where = rng.choice(image.size, count, replace=False)
    values = image.flat[where]
    markers.flat[where] = (label_of_value(values) if label_of_value else rng.integers(1, 10, count))
    return markers


@pytest.mark.parametrize("connectivity", [1, 2])
def test_wide_plateaus_one_label_a_value(threads, connectivity):
    # few levels, many markers sharing values but one label a value: no replay of the heap, fronts of
    # thousands of elements (taken in parallel at 2 and 4 threads)
    rng = np.random.default_rng(10)
    image = smooth_levels(rng, (400, 500), 6, 12)
    same(image, markers_at(rng, image, 60, lambda v: 3 * v.astype(np.int32) - 7), connectivity=connectivity)


def test_wide_plateaus_mask_3d(threads):
    rng = np.random.default_rng(11)
    image = smooth_levels(rng, (40, 60, 70), 5, 4)
    mask = rng.random(image.shape) < 0.9
    markers = markers_at(rng, image, 40, lambda v: v.astype(np.int32) + 1)
    same(image, markers, mask=mask)
    same(image, markers, connectivity=3, mask=mask)


def test_unmarked_basins_spill_on_one_level(threads):
    # one marker a side on a high plateau; everything below it is flooded on that one level, in breadth-first
    # order from the two markers (which of them reaches an element first decides its label)
    rng = np.random.default_rng(12)
    image = rng.integers(0, 3, (300, 400)).astype(np.uint8)
    image[:, 200] = 9   # a ridge, crossed by a gap
    image[150:160, 200] = 7
    markers = np.zeros(image.shape, np.int32)
    markers[0, 0], markers[-1, -1] = 1, 2
    image[0, 0], image[-1, -1] = 5, 6
    same(image, markers)
    same(image, markers, connectivity=2)


def test_ties_across_labels_below_then_levels(threads):
    # markers of different labels tie on low values only: the heap is replayed up to them, the rest runs
    # level by level
    rng = np.random.default_rng(13)
    image = smooth_levels(rng, (500, 600), 8, 20)
    markers = markers_at(rng, image, 16, lambda v: v.astype(np.int32) + 10)
    low = np.flatnonzero((image.ravel() <= 1) & (markers.ravel() == 0))[:6]
    markers.flat[low] = [1, 2, 3, 1, 2, 3]
    same(image, markers)


def test_ties_across_labels_everywhere(threads):
    # random labels on few levels: markers of different labels tie on every level (the heap throughout)
    rng = np.random.default_rng(14)
    image = smooth_levels(rng, (200, 250), 6, 6)
    same(image, markers_at(rng, image, 300))


def test_marker_regions_on_plateaus(threads):
    # marker regions (one label each) whose borders lie on plateaus shared with other regions
    rng = np.random.default_rng(15)
    image = smooth_levels(rng, (256, 256), 4, 16)
    markers = np.zeros(image.shape, np.int64)
    for k in range(12):
        r, c = rng.integers(10, 240, 2)
        markers[r:r + 8, c:c + 6] = k + 1
    same(image, markers)
    same(image, markers, mask=image < 3)


@pytest.mark.parametrize("seed", range(40))
def test_random_one_label_a_value(seed):
    # small random images and markers where every tie is within one label, at 2 threads with tiny fronts
    rng = np.random.default_rng(100 + seed)
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(3, 12, ndim))
    image = rng.integers(0, int(rng.choice([2, 3, 6])), shape).astype(rng.choice([np.uint8, np.float32]))
    count = int(rng.integers(1, max(2, image.size // 4)))
    perm = rng.permutation(10) + 1
    markers = markers_at(rng, image, count, lambda v: perm[v.astype(int)].astype(np.int32), np.int16)
    kw = dict(connectivity=int(rng.integers(1, ndim + 1)))
    if rng.integers(0, 2):
        kw["mask"] = rng.random(shape) < 0.8
    same(image, markers, **kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_infinities_negative_values(dtype):
    # scikit-image's heap replayed on keys of values whose float32 order packs into one integer (float32 and
    # float64 holding float32 values), or on the values themselves (float64 off the float32 grid): -0.0 and
    # 0.0 are one value, the infinities order like the rest
    rng = np.random.default_rng(16)
    values = np.array([-np.inf, -2.5, -0.0, 0.0, 1.5, 1e30, np.inf], dtype)
    image = values[rng.integers(0, len(values), (60, 70))]
    if dtype == np.float64:
        image[rng.random(image.shape) < 0.3] += 1e-9
    markers = markers_at(rng, image, 120)
    same(image, markers)
    same(image, markers, connectivity=2)


@pytest.mark.parametrize("kw", [{}, {"connectivity": 2}, {"mask": "mask"}])
def test_chance_ties_apart_and_meeting(threads, kw):
    # a noisy float image with a few pairs of markers of different labels on one value: flooded without the
    # heap and kept where the pairs' floods lie apart, flooded again with it where they meet (the pair made
    # neighbours)
    rng = np.random.default_rng(17)
    image = rng.random((120, 140)).astype(np.float32)
    if kw.get("mask"):
        kw = dict(mask=rng.random(image.shape) < 0.9)
    markers = markers_at(rng, image, 400)
    where = np.flatnonzero(markers)
    for a, b in ((where[0], where[-1]), (where[5], where[200]), (where[9], where[300])):
        image.flat[b] = image.flat[a]
        markers.flat[b] = markers.flat[a] % 9 + 1
    same(image, markers, **kw)
    # a pair side by side: their floods touch
    r, c = np.unravel_index(where[0], image.shape)
    c2 = c + 1 if c + 1 < image.shape[1] else c - 1
    markers[r, c2] = markers[r, c] % 9 + 1
    image[r, c2] = image[r, c]
    same(image, markers, **kw)
