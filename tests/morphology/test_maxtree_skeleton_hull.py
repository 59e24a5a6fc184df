"""Max-tree, skeletons and convex hulls against scikit-image: what the generated registry cases cannot say
(larger images through the CPU schedules' queues and sorts, ties and plateaus, thread counts, given trees,
the GPU engines and refusals, warnings)."""
import warnings

import numpy as np
import pytest

from helpers import cupy_or_skip
import skimage.morphology as sm

import ndimg
from ndimg import morphology as nm
from ndimg.ndimage import gaussian_filter


def _blobs(shape, sigma, seed, level=0.5):
    rng = np.random.default_rng(seed)
    return gaussian_filter(rng.random(shape), sigma) > level


@pytest.fixture
def threads():
    yield
    ndimg.set_num_threads(None)


# ---- max-tree ----

@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64", "bool"])
@pytest.mark.parametrize("connectivity", [1, 2])
def test_max_tree_plateaus_exact(dtype, connectivity):
    """Few grey levels: big plateaus, many ties in the stable order and canonical pixels to choose."""
    rng = np.random.default_rng(1)
    image = (gaussian_filter(rng.random((120, 150)), 3) * 40).astype(np.int64) % 4
    image = image.astype(dtype)
    for got, want in zip(nm.max_tree(image, connectivity), sm.max_tree(image, connectivity)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(nm.max_tree_local_maxima(image, connectivity),
                                  sm.max_tree_local_maxima(image, connectivity))


def test_max_tree_float_ties_nan_and_signed_zero():
    """NumPy's stable order: -0.0 ties with 0.0, every NaN after +inf (canonical tests: NaN != NaN)."""
    rng = np.random.default_rng(2)
    image = rng.choice(np.array([-0.0, 0.0, 1.5, -np.inf, np.inf, np.nan, -2.0]), size=(40, 50)).astype(np.float64)
    for got, want in zip(nm.max_tree(image), sm.max_tree(image)):
        np.testing.assert_array_equal(got, want)
    for name in ("area_opening", "area_closing", "diameter_opening", "diameter_closing"):
        np.testing.assert_array_equal(getattr(nm, name)(image, 9), getattr(sm, name)(image, 9), err_msg=name)


@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_max_tree_any_thread_count(threads, nthreads):
    """The radix sort's chunks per thread: the same order whatever the count (an image above one chunk)."""
    ndimg.set_num_threads(nthreads)
    rng = np.random.default_rng(3)
    image = (rng.random((400, 500)) * 1000).astype(np.uint16)
    parent, traverser = nm.max_tree(image)
    want_parent, want_traverser = sm.max_tree(image)
    np.testing.assert_array_equal(traverser, want_traverser)
    np.testing.assert_array_equal(parent, want_parent)


@pytest.mark.parametrize("name, threshold", [("area_opening", 30), ("area_closing", 30), ("diameter_opening", 6),
                                             ("diameter_closing", 6)])
def test_attribute_filters_3d(name, threshold):
    rng = np.random.default_rng(4)
    image = (gaussian_filter(rng.random((24, 30, 28)), 1.5) * 255).astype(np.uint8)
    np.testing.assert_array_equal(getattr(nm, name)(image, threshold, connectivity=3),
                                  getattr(sm, name)(image, threshold, connectivity=3))


def test_given_tree_reused_and_checked():
    rng = np.random.default_rng(5)
    image = rng.random((30, 40)).astype(np.float32)
    parent, traverser = nm.max_tree(image)
    np.testing.assert_array_equal(nm.area_opening(image, 8, parent=parent, tree_traverser=traverser),
                                  sm.area_opening(image, 8))
    with pytest.raises(ValueError):    # scikit-image's buffer dtype check
        nm.area_opening(image, 8, parent=parent.astype(np.int32), tree_traverser=traverser)
    broken = parent.copy()
    broken[3, 4] = image.size + 7      # scikit-image would read out of bounds: ndimg refuses
    with pytest.raises(ValueError, match="pixel indices"):
        nm.area_opening(image, 8, parent=broken, tree_traverser=traverser)


# ---- skeletons ----

@pytest.mark.parametrize("seed", [0, 1])
def test_skeletonize_and_thin_large(seed, threads):
    """Blobs wide enough for many subiterations: the CPU queues reach scikit-image's fixed point."""
    image = _blobs((300, 420), 6, seed)
    np.testing.assert_array_equal(nm.skeletonize(image), sm.skeletonize(image))
    np.testing.assert_array_equal(nm.skeletonize(image, method="lee"), sm.skeletonize(image, method="lee"))
    ndimg.set_num_threads(3)
    np.testing.assert_array_equal(nm.thin(image), sm.thin(image))
    for n in (1, 4, np.inf):
        np.testing.assert_array_equal(nm.thin(image, max_num_iter=n), sm.thin(image, max_num_iter=n))


def test_skeletonize_3d_large():
    volume = _blobs((40, 48, 44), 3, 7)
    np.testing.assert_array_equal(nm.skeletonize(volume), sm.skeletonize(volume))


def test_thin_max_num_iter_semantics():
    image = _blobs((60, 80), 4, 8)
    for n in (None, 0, 1.5, -3, np.nan):  # 0 and None: no limit; fractions round up; negative/NaN: no pass
        np.testing.assert_array_equal(nm.thin(image, max_num_iter=n), sm.thin(image, max_num_iter=n), err_msg=str(n))


def test_medial_axis_generator_draws_like_scikit_image():
    image = _blobs((200, 260), 5, 9)
    mask = _blobs((200, 260), 2, 10, 0.45)
    ours, theirs = np.random.default_rng(42), np.random.default_rng(42)
    got, got_d = nm.medial_axis(image, mask=mask, return_distance=True, rng=ours)
    want, want_d = sm.medial_axis(image, mask=mask, return_distance=True, rng=theirs)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_d, want_d)
    assert ours.random() == theirs.random()   # the same number of draws


def test_medial_axis_core_float_distances():
    """The core's fallback for distances that are not square roots of integers (their float order, after the
    corner count): distances scaled by 1.1 keep scikit-image's order and so its skeleton."""
    from scipy.ndimage import distance_transform_edt

    from ndimg import _core

    image = _blobs((150, 170), 4, 16)
    want = sm.medial_axis(image, rng=3)
    tiebreak = np.random.default_rng(3).permutation(np.arange(image.sum()))
    got = np.ascontiguousarray(image, np.uint8)
    _core.medial_axis_thin(got, distance_transform_edt(image) * 1.1, tiebreak.astype(np.int64))
    np.testing.assert_array_equal(got.astype(bool), want)


# ---- convex hulls ----

@pytest.mark.parametrize("offset_coordinates", [True, False])
@pytest.mark.parametrize("include_borders", [True, False])
def test_convex_hull_image_large(offset_coordinates, include_borders):
    image = _blobs((260, 330), 8, 11, 0.53)
    np.testing.assert_array_equal(
        nm.convex_hull_image(image, offset_coordinates=offset_coordinates, include_borders=include_borders),
        sm.convex_hull_image(image, offset_coordinates=offset_coordinates, include_borders=include_borders))


def test_convex_hull_image_3d_tolerance():
    volume = _blobs((20, 22, 18), 2, 12, 0.53)
    for tol in (1e-10, 0.3):
        np.testing.assert_array_equal(nm.convex_hull_image(volume, tolerance=tol),
                                      sm.convex_hull_image(volume, tolerance=tol))


def test_convex_hull_object_many_objects():
    image = _blobs((200, 240), 2, 13, 0.52)
    for connectivity in (1, 2):
        np.testing.assert_array_equal(nm.convex_hull_object(image, connectivity=connectivity),
                                      sm.convex_hull_object(image, connectivity=connectivity))


def test_convex_hull_warnings():
    with pytest.warns(UserWarning, match="entirely zero"):
        out = nm.convex_hull_image(np.zeros((5, 6), bool))
    assert out.dtype == bool and not out.any()
    with pytest.warns(UserWarning, match="Failed to get convex hull"):   # collinear pixel centres: Qhull fails
        out = nm.convex_hull_image(np.eye(6, dtype=bool), offset_coordinates=False)
    assert not out.any()


# ---- engines ----

@pytest.mark.parametrize("name", ["skeletonize", "thin"])
def test_thinning_cuda_matches_cpu(name):
    cp = cupy_or_skip()
    image = _blobs((300, 420), 6, 14)
    got = getattr(nm, name)(cp.asarray(image))
    assert isinstance(got, cp.ndarray) and got.dtype == bool
    np.testing.assert_array_equal(cp.asnumpy(got), getattr(sm, name)(image))


@pytest.mark.parametrize("call", [lambda x: nm.medial_axis(x)])
def test_host_only_functions_refuse_gpu_arrays(call):
    cp = cupy_or_skip()
    with pytest.raises(TypeError, match="GPU engine"):
        call(cp.asarray(_blobs((20, 30), 2, 15)))
