"""The iterative segmentations (random walker, Chan-Vese, morphological snakes, active contours): what the
generated registry tests cannot say -- scikit-image's state carried across calls, callbacks, in-place label
updates, warnings, and the tolerances of the rebuilt spline."""
import contextlib
import warnings
from itertools import cycle

import numpy as np
import pytest
import skimage.segmentation as sks
from scipy.interpolate import RectBivariateSpline
from skimage.segmentation import morphsnakes as sk_morphsnakes

import ndimg.segmentation as nds
from helpers import two_label_seeds
from ndimg.segmentation import morphsnakes
from ndimg.segmentation.active_contour_model import _gradient, _spline


@pytest.fixture
def same_turn():
    """Both curvature operators at the start of their cycle (scikit-image keeps its turn in a module global)."""
    def restart():
        sk_morphsnakes._curvop.funcs = cycle([lambda u: sk_morphsnakes.sup_inf(sk_morphsnakes.inf_sup(u)),
                                              lambda u: sk_morphsnakes.inf_sup(sk_morphsnakes.sup_inf(u))])
        morphsnakes._curvop.__init__()
    restart()
    yield restart
    restart()


def _blob(shape, seed=0):
    rng = np.random.default_rng(seed)
    grid = np.indices(shape)
    centre = np.array(shape)[(slice(None),) + (None,) * len(shape)] / 2
    r = np.sqrt(((grid - centre) ** 2).sum(0))
    return (r < min(shape) / 4) + 0.3 * rng.standard_normal(shape)


@pytest.mark.parametrize("shape", [(40, 50), (14, 16, 18)])
def test_morphological_chan_vese_turn_carries_over_calls(same_turn, shape):
    """An odd number of curvature steps leaves the next call starting with the other operator, as there."""
    img = _blob(shape)
    for num_iter, smoothing in ((3, 1), (2, 3), (1, 1)):
        ref = sks.morphological_chan_vese(img, num_iter, smoothing=smoothing)
        got = nds.morphological_chan_vese(img, num_iter, smoothing=smoothing)
        assert got.dtype == ref.dtype == np.int8
        np.testing.assert_array_equal(got, ref)


def test_morphological_snakes_callbacks_see_every_level_set(same_turn):
    img = _blob((40, 50))
    gimg = nds.inverse_gaussian_gradient(img, sigma=2.0)
    for fn in ("morphological_chan_vese", "morphological_geodesic_active_contour"):
        ref, got = [], []
        getattr(sks, fn)(gimg, 5, smoothing=2, iter_callback=lambda u: ref.append(u.copy()))
        getattr(nds, fn)(gimg, 5, smoothing=2, iter_callback=lambda u: got.append(u.copy()))
        assert len(got) == len(ref) == 6
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g, r)


def test_geodesic_active_contour_balloon_and_threshold(same_turn):
    gimg = nds.inverse_gaussian_gradient(_blob((14, 16, 18)), sigma=1.0)
    init = np.zeros(gimg.shape, np.int8)
    init[5:9, 6:10, 7:11] = 1
    for balloon, threshold in ((1, "auto"), (-1, 0.2), (2.5, 0.4)):
        ref = sks.morphological_geodesic_active_contour(gimg, 4, init, smoothing=1, balloon=balloon, threshold=threshold)
        got = nds.morphological_geodesic_active_contour(gimg, 4, init, smoothing=1, balloon=balloon, threshold=threshold)
        np.testing.assert_array_equal(got, ref)


def test_geodesic_active_contour_integer_image_fails_as_there():
    with pytest.raises(TypeError):   # NumPy's UFuncTypeError: float gradients added to an integer array
        nds.morphological_geodesic_active_contour(np.ones((9, 9), np.uint8), 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
def test_chan_vese_extended_output_is_scikit_images(dtype):
    img = (_blob((30, 35)) * 100).clip(0, 255).astype(dtype)
    for init in ("checkerboard", "disk", "small disk"):
        ref = sks.chan_vese(img, max_num_iter=12, init_level_set=init, extended_output=True, tol=1e-5)
        got = nds.chan_vese(img, max_num_iter=12, init_level_set=init, extended_output=True, tol=1e-5)
        np.testing.assert_array_equal(got[0], ref[0])
        assert got[1].dtype == ref[1].dtype
        np.testing.assert_array_equal(got[1], ref[1])   # the same expressions in the same order: equal
        assert got[2] == ref[2] and [type(e) for e in got[2]] == [type(e) for e in ref[2]]


def test_chan_vese_stops_at_tolerance_after_as_many_iterations():
    img = _blob((30, 35))
    ref = sks.chan_vese(img, tol=5e-3, extended_output=True)
    got = nds.chan_vese(img, tol=5e-3, extended_output=True)
    assert 1 < len(got[2]) == len(ref[2]) < 500


@contextlib.contextmanager
def _no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize("mode", ["cg", "cg_j", "bf"])
def test_random_walker_probabilities(mode):
    data = _blob((30, 40))
    labels = two_label_seeds(data.shape)
    with pytest.warns(UserWarning) if mode == "cg" else _no_warning():
        ref = sks.random_walker(data, labels, mode=mode, return_full_prob=True, tol=1e-6)
    with pytest.warns(UserWarning) if mode == "cg" else _no_warning():
        got = nds.random_walker(data, labels, mode=mode, return_full_prob=True, tol=1e-6)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-8)


def test_random_walker_cg_mg_without_pyamg_warns_and_runs_cg_j():
    from ndimg.segmentation import random_walker_segmentation as rw
    if rw.ruge_stuben_solver is not None:
        pytest.skip("pyamg is installed")
    data, labels = _blob((20, 25)), two_label_seeds((20, 25))
    with pytest.warns(UserWarning, match="cg_mg"):
        got = nds.random_walker(data, labels, mode="cg_mg")
    np.testing.assert_array_equal(got, nds.random_walker(data, labels, mode="cg_j"))


def test_random_walker_isolated_pixels_and_copy_false():
    """Unlabeled pixels no seed reaches become -1 in the caller's labels with copy=False, as there."""
    data = _blob((20, 25))
    labels = two_label_seeds(data.shape)
    labels[:, 10] = -1   # a wall: columns 11.. hold no seed of their own
    labels[:, 11:] = 0
    labels[5, 15] = 2
    labels[:, 18] = -1
    ref_labels, got_labels = labels.copy(), labels.copy()
    ref = sks.random_walker(data, ref_labels, copy=False)
    got = nds.random_walker(data, got_labels, copy=False)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got_labels, ref_labels)


def test_random_walker_without_unlabeled_pixels_returns_labels():
    labels = np.ones((6, 7), np.int64)
    labels[:, 3:] = 2
    with pytest.warns(UserWarning, match="No zero valued areas"):
        ref = sks.random_walker(np.zeros((6, 7)), labels, return_full_prob=True)
    with pytest.warns(UserWarning, match="No zero valued areas"):
        got = nds.random_walker(np.zeros((6, 7)), labels, return_full_prob=True)
    np.testing.assert_array_equal(got, ref)


def test_random_walker_channels_anywhere():
    data = np.stack([_blob((18, 21), s) for s in range(3)], axis=0)
    labels = two_label_seeds((18, 21))
    ref = sks.random_walker(data, labels, channel_axis=0, return_full_prob=True, tol=1e-6)
    got = nds.random_walker(data, labels, channel_axis=0, return_full_prob=True, tol=1e-6)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-8)


def test_active_contour_spline_is_fitpacks():
    """The rebuilt interpolating quadratic spline's derivatives equal RectBivariateSpline's to rounding, inside
    the image and clamped outside it."""
    rng = np.random.default_rng(3)
    field = rng.random((9, 13))
    ref = RectBivariateSpline(np.arange(13), np.arange(9), field.T, kx=2, ky=2, s=0)
    x, y = rng.uniform(-3, 16, 200), rng.uniform(-3, 12, 200)
    fx, fy = _gradient(_spline(field), x, y)
    np.testing.assert_allclose(fx, ref(x, y, dx=1, grid=False), rtol=0, atol=1e-12)
    np.testing.assert_allclose(fy, ref(x, y, dy=1, grid=False), rtol=0, atol=1e-12)


@pytest.mark.parametrize("bc", ["periodic", "free", "fixed", "free-fixed", "fixed-free"])
def test_active_contour_runs_scikit_images_iterations(bc):
    """Smooth image, snake converging: equal to rounding; float32 keeps float32 arithmetic."""
    from skimage.filters import gaussian
    img = gaussian(_blob((60, 70)), 2)
    t = np.linspace(0, 2 * np.pi, 60)
    snake = np.stack([30 + 22 * np.sin(t), 35 + 25 * np.cos(t)], axis=1)
    if bc != "periodic":
        snake = snake[:45]
    for dtype, atol in ((np.float64, 1e-8), (np.float32, 1e-3)):
        ref = sks.active_contour(img.astype(dtype), snake, alpha=0.05, beta=0.5, gamma=0.1, boundary_condition=bc)
        got = nds.active_contour(img.astype(dtype), snake, alpha=0.05, beta=0.5, gamma=0.1, boundary_condition=bc)
        assert got.dtype == ref.dtype
        np.testing.assert_allclose(got, ref, rtol=0, atol=atol)


def test_active_contour_refuses_as_there():
    snake = np.array([[2.0, 2.0], [3.0, 4.0], [5.0, 3.0]])
    with pytest.raises(ValueError, match="max_num_iter"):
        nds.active_contour(np.ones((9, 9)), snake, max_num_iter=0)
    with pytest.raises(ValueError, match="Invalid boundary condition"):
        nds.active_contour(np.ones((9, 9)), snake, boundary_condition="open")
    with pytest.raises(IndexError):
        nds.active_contour(np.ones(9), snake)


def test_random_walker_beyond_one_blas_thread():
    """Past 10000 unlabeled pixels the dot products are NumPy's sums of products (scikit-image's BLAS rounds by
    its thread count there): the probabilities agree to 1e-10 with tol=1e-8 (8e-15 measured), the labels exactly."""
    data = _blob((110, 120))
    labels = two_label_seeds(data.shape)
    assert (labels == 0).sum() > 10000
    ref = sks.random_walker(data, labels, beta=90, tol=1e-8, return_full_prob=True)
    got = nds.random_walker(data, labels, beta=90, tol=1e-8, return_full_prob=True)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(nds.random_walker(data, labels, beta=90, tol=1e-8),
                                  sks.random_walker(data, labels, beta=90, tol=1e-8))
