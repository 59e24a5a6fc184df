"""local_maxima/local_minima and the convex hulls on both engines against scikit-image: the paths the
generated registry cases do not reach (plateaus on borders, ties, NaN, wide integers, footprints; float
images cast to uint8 by the 2-D hull, many objects, n-D tolerances)."""
import warnings

import numpy as np
import pytest
import skimage.morphology as sm

import ndimg.morphology as nm

ENGINES = ["cpu", "cuda"]


def _on(engine, a):
    """a as the engine's array (skips cuda without a device)."""
    if engine == "cpu":
        return a
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device")
    return cp.asarray(a)


def _host(engine, x):
    if engine == "cpu":
        assert isinstance(x, np.ndarray)
        return x
    import cupy as cp

    assert isinstance(x, cp.ndarray)
    return cp.asnumpy(x)


# ---- convex hulls ----

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("offset_coordinates", [True, False])
@pytest.mark.parametrize("include_borders", [True, False])
def test_convex_hull_image_2d(engine, offset_coordinates, include_borders):
    rng = np.random.default_rng(3)
    for shape, density in (((60, 45), 0.01), ((7, 300), 0.02), ((128, 96), 0.3), ((5, 5), 0.5)):
        image = rng.random(shape) < density
        kw = dict(offset_coordinates=offset_coordinates, include_borders=include_borders)
        np.testing.assert_array_equal(_host(engine, nm.convex_hull_image(_on(engine, image), **kw)),
                                      sm.convex_hull_image(image, **kw))


@pytest.mark.parametrize("engine", ENGINES)
def test_convex_hull_image_float_cast(engine):
    # scikit-image reads a 2-D image cast to uint8: 0.5, 256.0, 2**31 + 1 and NaN are background there, -1.0
    # and 257.0 foreground
    image = np.zeros((20, 30))
    for (r, c), v in {(2, 3): 0.5, (15, 25): 256.0, (17, 2): 2.0**31 + 1, (1, 28): np.nan, (4, 4): -1.0,
                      (12, 9): 257.0, (6, 20): 1.0, (18, 28): np.inf}.items():
        image[r, c] = v
    for dtype in (np.float32, np.float64):
        a = image.astype(dtype)
        np.testing.assert_array_equal(_host(engine, nm.convex_hull_image(_on(engine, a))), sm.convex_hull_image(a))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("tolerance", [1e-10, 0.5])
@pytest.mark.parametrize("offset_coordinates", [True, False])
def test_convex_hull_image_3d(engine, tolerance, offset_coordinates):
    rng = np.random.default_rng(5)
    for shape, density in (((9, 12, 10), 0.02), ((20, 18, 16), 0.002), ((6, 7, 8), 0.4)):
        image = rng.random(shape) < density
        kw = dict(offset_coordinates=offset_coordinates, tolerance=tolerance)
        np.testing.assert_array_equal(_host(engine, nm.convex_hull_image(_on(engine, image), **kw)),
                                      sm.convex_hull_image(image, **kw))


@pytest.mark.parametrize("engine", ENGINES)
def test_convex_hull_image_empty_and_degenerate(engine):
    with pytest.warns(UserWarning, match="entirely zero"):
        out = _host(engine, nm.convex_hull_image(_on(engine, np.zeros((5, 6), bool))))
    assert out.shape == (5, 6) and not out.any()
    with pytest.warns(UserWarning, match="Failed to get convex hull"):   # coplanar pixel centres
        out = _host(engine, nm.convex_hull_image(_on(engine, np.ones((1, 4, 5), bool)), offset_coordinates=False))
    assert not out.any()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("connectivity", [1, 2])
@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int32, np.float64])
def test_convex_hull_object_many_objects(engine, connectivity, dtype):
    rng = np.random.default_rng(7)
    image = (rng.integers(1, 4, (90, 70)) * (rng.random((90, 70)) < 0.15)).astype(dtype)
    if dtype == np.float64:
        image[rng.random(image.shape) < 0.03] = 0.5   # labelled apart from 0 and 1 (values cast to intp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sm.convex_hull_object(image, connectivity=connectivity)
    np.testing.assert_array_equal(
        _host(engine, nm.convex_hull_object(_on(engine, image), connectivity=connectivity)), expected)
    empty = np.zeros((8, 9), dtype)
    np.testing.assert_array_equal(_host(engine, nm.convex_hull_object(_on(engine, empty))), np.zeros((8, 9), bool))
