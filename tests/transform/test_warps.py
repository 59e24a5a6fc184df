"""transform.warp and friends against scikit-image 0.26 where the generated registry cases cannot reach:
transform objects (scikit-image's and ndimg's, duck-typed, and their inverses), the homography loop's
scikit-image arithmetic (float32 exactly), channel images, order-0 ties, the bi-quadratic warning, Dask."""
import itertools
import warnings

import numpy as np
import pytest
import skimage.transform as st

import ndimg.transform as nt
from helpers import assert_close, to_engine, to_host

MODES = ("constant", "edge", "symmetric", "reflect", "wrap")


def _transforms(lib):
    return [lib.AffineTransform(scale=(1.1, 0.9), rotation=0.3, translation=(3, -2), shear=0.1),
            lib.SimilarityTransform(scale=0.8, rotation=-0.5, translation=(5, 1)),
            lib.EuclideanTransform(rotation=0.2, translation=(-2, 4)),
            lib.ProjectiveTransform(np.array([[1.0, 0.1, 2], [0.05, 0.95, -1], [0.001, 0.0005, 1]]))]


def _warp_both(image, engine, tform, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_host(nt.warp(to_engine(image, engine), tform, **kw)), st.warp(image, tform, **kw)


@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
@pytest.mark.parametrize("order", range(6))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i", range(4))
def test_transform_objects(engine, rng, dtype, order, mode, i):
    image = (rng.random((31, 44)) * (255 if dtype == "uint8" else 1)).astype(dtype)
    for tform in (_transforms(st)[i], _transforms(st)[i].inverse):
        got, expected = _warp_both(image, engine, tform, order=order, mode=mode, cval=0.3)
        assert_close(got, expected, (1e-5, 1e-6))


@pytest.mark.parametrize("i", range(4))
def test_ndimg_transform_objects(engine, rng, i):
    """ndimg's transform classes take scikit-image's paths (same matrices, same results)."""
    image = rng.random((25, 30, 3)).astype(np.float32)
    for order in (0, 1, 3, 4):
        got = to_host(nt.warp(to_engine(image, engine), _transforms(nt)[i], order=order))
        assert_close(got, st.warp(image, _transforms(st)[i], order=order), (1e-5, 1e-6))


@pytest.mark.parametrize("order", [1, 3])
@pytest.mark.parametrize("mode", MODES)
def test_fast_loop_float32_exact(engine, rng, order, mode):
    """Orders 1 and 3 by a homography: scikit-image's loop, its coordinates and sums in float32, bit for bit
    (a B-spline of order 3 would differ by ~0.1)."""
    image = rng.random((64, 80)).astype(np.float32)
    for tform in _transforms(st):
        got, expected = _warp_both(image, engine, tform, order=order, mode=mode, cval=0.25, output_shape=(70, 75))
        np.testing.assert_array_equal(got, expected)


def test_order0_ties_like_skimage(engine):
    """A 90-degree rotation of a bool image whose sides differ by an odd count puts every coordinate on a
    half-pixel tie: the coordinates must round as scikit-image's do."""
    image = np.random.default_rng(3).random((17, 24)) > 0.5
    for angle in (90, 30, -60):
        got = to_host(nt.rotate(to_engine(image, engine), angle))
        np.testing.assert_array_equal(got, st.rotate(image, angle))


def test_callable_and_map_args(engine, rng):
    image = rng.random((20, 26, 3))

    def shift(xy, dx=0.0):
        return xy + np.array([dx, -1.5])

    got, expected = _warp_both(image, engine, shift, map_args={"dx": 2.25}, order=3, mode="reflect")
    assert_close(got, expected, (1e-5, 1e-6))


def test_biquadratic_warns():
    with pytest.warns(UserWarning, match="Bi-quadratic"):
        nt.warp(np.ones((5, 5)), np.eye(3), order=2)


def test_warp_coords_like_skimage():
    def fn(xy):
        return xy * 1.1 - 0.5

    for shape, dtype in (((7, 9), np.float64), ((7, 9, 2), np.float32)):
        got, expected = nt.warp_coords(fn, shape, dtype), st.warp_coords(fn, shape, dtype)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_rotate_resize_center(engine, rng):
    image = rng.random((30, 41)).astype(np.float32)
    for kw in (dict(resize=True), dict(center=(5, 20)), dict(resize=True, center=(0, 0), order=3)):
        got = to_host(nt.rotate(to_engine(image, engine), 37, **kw))
        assert_close(got, st.rotate(image, 37, **kw), (1e-5, 1e-6))


def test_integral_image_threads_like_numpy(rng):
    """Large images sum in slabs on the engine's threads: each line's sums are NumPy's own."""
    for dtype in ("float32", "uint8", "int16"):
        image = (rng.random((600, 700)) * 100).astype(dtype)
        np.testing.assert_array_equal(nt.integral_image(image), st.integral_image(image))


def test_integral_image_dask(rng):
    da = pytest.importorskip("dask.array")
    image = rng.random((50, 61)).astype(np.float32)
    got = nt.integral_image(da.from_array(image, chunks=(17, 20)))
    assert isinstance(got, da.Array)
    assert_close(got.compute(), st.integral_image(image), (1e-6, 1e-6))


def test_dask_refused_clearly():
    da = pytest.importorskip("dask.array")
    with pytest.raises(NotImplementedError, match="integrate"):
        nt.integrate(da.zeros((20, 20), chunks=10), (0, 0), (5, 5))


@pytest.mark.parametrize("order", [1, 3])
@pytest.mark.parametrize("mode", MODES)
def test_fast_loop_dask_by_output_chunk(rng, order, mode):
    """The homography loop over Dask, each output chunk from its window of the input: bit for bit the
    in-memory result (and scikit-image's), folding modes across the border included."""
    da = pytest.importorskip("dask.array")
    for image in (rng.random((61, 47, 2)).astype(np.float32), rng.random((61, 47)).astype(np.float32)):
        for tform, shape in itertools.product(_transforms(st), (None, (80, 30))):
            lazy = nt.warp(da.from_array(image, chunks=(16, 13, 1)[:image.ndim]), tform, order=order, mode=mode,
                           cval=0.2, output_shape=shape)
            assert isinstance(lazy, da.Array)
            expected = st.warp(image, tform, order=order, mode=mode, cval=0.2, output_shape=shape)
            np.testing.assert_array_equal(lazy.compute(scheduler="sync"), expected)


def test_resize_local_mean_nonfinite_lines(rng):
    """A NaN anywhere on a line, or an infinity outside a cell's run, makes the cell NaN, as scikit-image's
    dense product gives it."""
    image = rng.random((30, 41))
    image[3, 5], image[7, 2], image[8, 4] = np.nan, np.inf, -np.inf
    for shape in ((12, 17), (30, 1), (1, 41), (45, 60)):
        for grid_mode in (True, False):
            got = nt.resize_local_mean(image, shape, grid_mode=grid_mode)
            expected = st.resize_local_mean(image, shape, grid_mode=grid_mode)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
            np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "uint8", "int16", "bool"])
def test_downscale_local_mean_dtypes(rng, dtype):
    image = (rng.random((23, 30)) * 100).astype(dtype)
    for factors, cval in (((2, 3), 0), ((4, 7), 1.5), ((1, 1), 0), ((30, 1), 2)):
        got = nt.downscale_local_mean(image, factors, cval=cval)
        expected = st.downscale_local_mean(image, factors, cval=cval)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=2e-3 if dtype == "float16" else 1e-6)
