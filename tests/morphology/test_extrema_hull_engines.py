"""local_maxima/local_minima and the convex hulls on both engines against scikit-image: the paths the
generated registry cases do not reach (plateaus on borders, ties, NaN, wide integers, footprints; float
images cast to uint8 by the 2-D hull, many objects, n-D tolerances)."""
import warnings

import numpy as np
import pytest
import skimage.morphology as sm

import ndimg.morphology as nm
from helpers import array_type, to_engine, to_host

def _host(engine, x):
    """x on the host, after checking it is the engine's array type."""
    assert isinstance(x, array_type(engine)), type(x)
    return to_host(x)


# ---- local maxima and minima ----

def _plateau_image(rng, shape, dtype):
    """Few levels (wide plateaus, ties across borders), in the dtype's own range."""
    levels = rng.integers(0, 3, shape)
    if dtype == "bool":
        return levels > 1
    if dtype == "int64":
        return (levels - 1) * (2**63 - 1)
    if dtype == "uint64":
        return levels.astype(np.uint64) * np.uint64(2**63 + 5)
    return (levels - (np.dtype(dtype).kind != "u")).astype(dtype)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("shape", [(40,), (9, 11), (5, 6, 7)])
def test_local_extrema_plateaus(engine, dtype, shape):
    rng = np.random.default_rng(len(shape))
    image = _plateau_image(rng, shape, dtype)
    for kw in ({}, {"allow_borders": False}, {"connectivity": 1}, {"connectivity": 1, "allow_borders": False}):
        for name in ("local_maxima", "local_minima"):
            got = getattr(nm, name)(to_engine(image, engine), **kw)
            np.testing.assert_array_equal(_host(engine, got), getattr(sm, name)(image, **kw), err_msg=f"{name} {kw}")


@pytest.mark.parametrize("dtype, nan", [("bool", False), ("uint8", False), ("int64", False), ("uint64", False),
                                        ("float32", False), ("float32", True)])
def test_plateau_label_formulation_on_the_host(dtype, nan):
    """The GPU's formulation (plateau labels, flags per plateau: the core's plateau_flags/plateau_top on
    either engine) run on NumPy arrays, against scikit-image."""
    from ndimg.morphology import _extrema as ex

    rng = np.random.default_rng(23)
    for shape in ((25,), (8, 9), (4, 5, 6)):
        image = _plateau_image(rng, shape, dtype)
        if nan:
            image[rng.random(shape) < 0.2] = np.nan
        for allow_borders in (True, False):
            for connectivity in range(1, len(shape) + 1):
                padded = np.pad(image, 1, constant_values=image.min()) if allow_borders else image
                fp = ex.resolve_neighborhood(None, connectivity, image.ndim)
                steps, offsets = ex.neighbour_steps(padded.shape, fp, (1,) * image.ndim)
                offsets = offsets.tolist()
                got = ex._device_maxima(padded, steps, offsets, -1 in offsets and 1 in offsets)
                got = got[(slice(1, -1),) * image.ndim] if allow_borders else got
                np.testing.assert_array_equal(got, sm.local_maxima(image, connectivity=connectivity,
                                                                   allow_borders=allow_borders))


def test_local_maxima_border_plateaus_and_indices(engine):
    image = np.zeros((7, 8), np.uint8)
    image[0, 2:5] = 5        # a plateau on the border
    image[1, 3] = 5          # joined to it from inside
    image[4:6, 4:6] = 3      # an inner plateau
    image[6, 0] = 9          # a corner maximum
    for allow_borders in (True, False):
        expected = sm.local_maxima(image, allow_borders=allow_borders)
        np.testing.assert_array_equal(
            _host(engine, nm.local_maxima(to_engine(image, engine), allow_borders=allow_borders)), expected)
        got = nm.local_maxima(to_engine(image, engine), indices=True, allow_borders=allow_borders)
        assert len(got) == 2
        for g, e in zip(got, np.nonzero(expected)):
            np.testing.assert_array_equal(_host(engine, g), e)


@pytest.mark.parametrize("connectivity", [1, 2])
def test_local_extrema_nan_and_signed_zero(engine, connectivity):
    # NaN compares false both ways: scikit-image's line candidates decide which plateaus next to it count
    rng = np.random.default_rng(11)
    for shape in ((30,), (10, 12), (5, 6, 4)):
        image = rng.integers(0, 3, shape).astype(np.float64)
        image[rng.random(shape) < 0.2] = np.nan
        image[rng.random(shape) < 0.1] = -0.0
        kw = dict(connectivity=min(connectivity, len(shape)))
        for allow_borders in (True, False):
            for name in ("local_maxima", "local_minima"):
                got = getattr(nm, name)(to_engine(image, engine), allow_borders=allow_borders, **kw)
                np.testing.assert_array_equal(_host(engine, got),
                                              getattr(sm, name)(image, allow_borders=allow_borders, **kw))


@pytest.mark.parametrize("footprint", [np.eye(3, dtype=bool), np.array([[0, 1, 0], [0, 1, 0], [0, 1, 0]], bool),
                                       np.array([[0, 0, 0], [0, 1, 1], [0, 1, 0]], bool)],
                         ids=["diagonal", "no_line", "asymmetric"])
def test_local_maxima_footprints(engine, footprint):
    rng = np.random.default_rng(13)
    image = rng.integers(0, 3, (12, 14)).astype(np.float32)
    image[rng.random(image.shape) < 0.1] = np.nan
    for allow_borders in (True, False):
        np.testing.assert_array_equal(
            _host(engine, nm.local_maxima(to_engine(image, engine), footprint=footprint, allow_borders=allow_borders)),
            sm.local_maxima(image, footprint=footprint, allow_borders=allow_borders))


def test_local_maxima_small_and_empty(engine):
    with pytest.warns(UserWarning, match="smaller 3"):
        out = _host(engine, nm.local_maxima(to_engine(np.array([[1, 3, 1]]), engine), allow_borders=False))
    assert out.shape == (1, 3) and not out.any()
    out = _host(engine, nm.local_maxima(to_engine(np.zeros((0, 4), np.float32), engine)))
    assert out.shape == (0, 4) and out.dtype == bool
    with pytest.raises(TypeError, match="float16"):
        nm.local_maxima(to_engine(np.ones((4, 4), np.float16), engine))


# ---- convex hulls ----

@pytest.mark.parametrize("offset_coordinates", [True, False])
@pytest.mark.parametrize("include_borders", [True, False])
def test_convex_hull_image_2d(engine, offset_coordinates, include_borders):
    rng = np.random.default_rng(3)
    for shape, density in (((60, 45), 0.01), ((7, 300), 0.02), ((128, 96), 0.3), ((5, 5), 0.5)):
        image = rng.random(shape) < density
        kw = dict(offset_coordinates=offset_coordinates, include_borders=include_borders)
        np.testing.assert_array_equal(_host(engine, nm.convex_hull_image(to_engine(image, engine), **kw)),
                                      sm.convex_hull_image(image, **kw))


def test_convex_hull_image_float_cast(engine):
    # scikit-image reads a 2-D image cast to uint8: 0.5, 256.0, 2**31 + 1 and NaN are background there, -1.0
    # and 257.0 foreground
    image = np.zeros((20, 30))
    for (r, c), v in {(2, 3): 0.5, (15, 25): 256.0, (17, 2): 2.0**31 + 1, (1, 28): np.nan, (4, 4): -1.0,
                      (12, 9): 257.0, (6, 20): 1.0, (18, 28): np.inf}.items():
        image[r, c] = v
    for dtype in (np.float32, np.float64):
        a = image.astype(dtype)
        np.testing.assert_array_equal(_host(engine, nm.convex_hull_image(to_engine(a, engine))),
                                      sm.convex_hull_image(a))


@pytest.mark.parametrize("tolerance", [1e-10, 0.5])
@pytest.mark.parametrize("offset_coordinates", [True, False])
def test_convex_hull_image_3d(engine, tolerance, offset_coordinates):
    rng = np.random.default_rng(5)
    for shape, density in (((9, 12, 10), 0.02), ((20, 18, 16), 0.002), ((6, 7, 8), 0.4)):
        image = rng.random(shape) < density
        kw = dict(offset_coordinates=offset_coordinates, tolerance=tolerance)
        np.testing.assert_array_equal(_host(engine, nm.convex_hull_image(to_engine(image, engine), **kw)),
                                      sm.convex_hull_image(image, **kw))


def test_convex_hull_image_empty_and_degenerate(engine):
    with pytest.warns(UserWarning, match="entirely zero"):
        out = _host(engine, nm.convex_hull_image(to_engine(np.zeros((5, 6), bool), engine)))
    assert out.shape == (5, 6) and not out.any()
    with pytest.warns(UserWarning, match="Failed to get convex hull"):   # coplanar pixel centres
        out = _host(engine, nm.convex_hull_image(to_engine(np.ones((1, 4, 5), bool), engine), offset_coordinates=False))
    assert not out.any()


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
        _host(engine, nm.convex_hull_object(to_engine(image, engine), connectivity=connectivity)), expected)
    empty = np.zeros((8, 9), dtype)
    np.testing.assert_array_equal(_host(engine, nm.convex_hull_object(to_engine(empty, engine))),
                                  np.zeros((8, 9), bool))


# ---- remove_objects_by_distance ----

@pytest.mark.parametrize("kw", [dict(min_distance=3), dict(min_distance=5, p_norm=1),
                                dict(min_distance=4, p_norm=np.inf),
                                dict(min_distance=3, spacing=(2.0, 0.5)), dict(min_distance=0)])
def test_remove_objects_by_distance(engine, kw):
    rng = np.random.default_rng(17)
    labels = np.zeros((60, 50), np.int32)
    for k in range(1, 40):   # small boxes, some touching, labels not in raster order
        r, c = rng.integers(0, 56), rng.integers(0, 46)
        labels[r:r + rng.integers(1, 5), c:c + rng.integers(1, 5)] = rng.integers(1, 30)
    np.testing.assert_array_equal(_host(engine, nm.remove_objects_by_distance(to_engine(labels, engine), **kw)),
                                  sm.remove_objects_by_distance(labels, **kw))
    priority = rng.random(int(labels.max()) + 1)
    np.testing.assert_array_equal(
        _host(engine, nm.remove_objects_by_distance(to_engine(labels, engine), priority=to_engine(priority, engine),
                                                    **kw)),
        sm.remove_objects_by_distance(labels, priority=priority, **kw))
    mine = to_engine(labels.copy(), engine)
    assert nm.remove_objects_by_distance(mine, out=mine, **kw) is mine
    np.testing.assert_array_equal(_host(engine, mine), sm.remove_objects_by_distance(labels, **kw))


def test_remove_objects_by_distance_3d_and_errors(engine):
    rng = np.random.default_rng(19)
    labels = (rng.integers(1, 9, (10, 12, 11)) * (rng.random((10, 12, 11)) < 0.05)).astype(np.int64)
    np.testing.assert_array_equal(_host(engine, nm.remove_objects_by_distance(to_engine(labels, engine), 3)),
                                  sm.remove_objects_by_distance(labels, 3))
    with pytest.raises(ValueError):
        nm.remove_objects_by_distance(to_engine(-labels, engine), 2)
    with pytest.raises(ValueError):
        nm.remove_objects_by_distance(to_engine(labels, engine), 2, priority=np.ones(2))
