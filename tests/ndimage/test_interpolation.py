"""Interpolation beyond the generated cases: identity transforms reproduce their input exactly, results equal
scipy's bit for bit on the CPU (scipy's summation order), integer outputs rounded and clipped as scipy's, odd
coordinates (NaN, far outside, an empty axis), rotate of n-D arrays, and geometric_transform's two ways of
calling its mapping."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.ndimage as ndi

from helpers import CUDA_READY, to_engine, to_host
from ndimg import ndimage as nd
from ndimg.ndimage import _interpolation as I

MODES = ("reflect", "grid-mirror", "constant", "grid-constant", "nearest", "mirror", "wrap", "grid-wrap")
# float32 data are weighted in float on CUDA: within a few float32 units of the result's scale
TOL = {"cpu": 0.0, "cuda": 1e-5}


def _close(engine, got, expected):
    got = to_host(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype == bool:  # scipy leaves the raw byte of its C cast (154 for -358.2): compare truth
        got, expected = got.view(np.uint8) != 0, expected.view(np.uint8) != 0
    if TOL[engine] == 0 or expected.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=TOL[engine], atol=TOL[engine])


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("mode", MODES)
def test_identity_transforms_reproduce_the_input(engine, rng, ndim, mode):
    """At integer coordinates orders 0 and 1 read the input's values: every identity map returns the input,
    bit for bit, in its dtype."""
    shape = (9, 7, 5, 4)[:ndim]
    for dtype in (np.float32, np.float64, np.uint8, np.int16):
        a = (rng.standard_normal(shape) * 50).astype(dtype)
        x = to_engine(a, engine)
        for order in (0, 1):
            kw = dict(order=order, mode=mode, cval=3.0)
            grid = to_engine(np.indices(shape, dtype=np.float64), engine)
            for got in (I.map_coordinates(x, grid, **kw), I.affine_transform(x, np.eye(ndim), **kw),
                        I.affine_transform(x, np.ones(ndim), **kw), I.shift(x, 0.0, **kw),
                        I.zoom(x, 1.0, prefilter=False, **kw),
                        I.geometric_transform(x, lambda c: c, **kw)):
                np.testing.assert_array_equal(to_host(got), a)
            if ndim >= 2:
                np.testing.assert_array_equal(to_host(I.rotate(x, 0.0, **kw)), a)


@pytest.mark.parametrize("order", [2, 3, 4, 5])
def test_identity_with_prefilter_is_the_input_to_rounding(engine, rng, order):
    """Higher orders interpolate the spline coefficients the prefilter makes: the input back to rounding where
    the mode's boundary is exact (the others approximate it near the edges, as scipy's), scipy's result in all."""
    a = rng.standard_normal((12, 10))
    for mode in MODES:
        got = to_host(I.affine_transform(to_engine(a, engine), np.eye(2), order=order, mode=mode))
        _close(engine, got, ndi.affine_transform(a, np.eye(2), order=order, mode=mode))
        if mode in ("mirror", "reflect", "grid-mirror", "grid-wrap"):
            np.testing.assert_allclose(got, a, rtol=0, atol=1e-6)  # scipy's prefilter truncates its sums


@pytest.mark.parametrize("order", range(6))
def test_integer_outputs_round_and_clip_as_scipy(engine, rng, order):
    """Integer outputs: rounded half away from zero, then clipped to the dtype's range (values far outside
    it included), for every integer dtype and bool."""
    a = rng.uniform(-700, 700, (15, 13)).astype(np.float64)
    a[3, :] = np.array([0.5, -0.5, 1.5, -1.5, 2.5, 1e30, -1e30, 255.5, -128.5, 4e9, -4e9, 127.5, 0.0])
    for out in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.int64, np.uint64, bool):
        for kw in (dict(shift=(0.0, 0.5)), dict(shift=(0.25, -1.0))):
            expected = ndi.shift(a, order=order, mode="nearest", output=out, **kw)
            _close(engine, I.shift(to_engine(a, engine), order=order, mode="nearest", output=out, **kw), expected)


@pytest.mark.parametrize("order", [2, 3, 4, 5])
@pytest.mark.parametrize("shape", [(3, 5, 4, 6), (9, 4, 22), (21, 5)])
def test_zoom_of_short_lines_equals_scipy_bit_for_bit(engine, rng, order, shape):
    """A bool image zoomed at a higher order is 1 to rounding inside a run of ones, and the bool output's
    truncation shows that last bit: the prefilter's initial conditions take scipy's powers z^(n-1) and z^n of
    the line lengths (z^3 of order 3's pole, z^8 and z^21 of order 5's lie within 0.03 units in the last place
    of half way). On the CPU engine the bool and float64 results equal scipy's exactly. On CUDA (its prefilter
    sums in another order) the float64 results are within 16 units in the last place of the largest value
    (orders 4 and 5 were 11 off on the H200), and a bool differs only where scipy's value lies within those
    units of +-1, where the C cast's truncation flips."""
    a = rng.random(shape) > 0.4
    eps = np.finfo(float).eps
    for mode in ("constant", "mirror", "reflect", "nearest"):
        got_bool = to_host(I.zoom(to_engine(a, engine), 1.7, order=order, mode=mode))
        want_bool = ndi.zoom(a, 1.7, order=order, mode=mode)
        got = to_host(I.zoom(to_engine(a, engine), 1.7, order=order, mode=mode, output=np.float64))
        expected = ndi.zoom(a, 1.7, order=order, mode=mode, output=np.float64)
        if engine == "cpu":
            _close(engine, got_bool, want_bool)
            np.testing.assert_array_equal(got, expected)
        else:
            flips = (got_bool.view(np.uint8) != 0) != (want_bool.view(np.uint8) != 0)
            tol = 16 * eps * np.abs(expected).max()
            assert np.all(np.abs(np.abs(expected[flips]) - 1) <= tol), expected[flips]
            np.testing.assert_allclose(got, expected, rtol=0, atol=tol)


@pytest.mark.parametrize("mode", MODES)
def test_nan_and_far_coordinates(engine, rng, mode):
    """NaN coordinates give scipy's value (cval, or NaN through the weights); coordinates far outside the
    input map back as scipy's do, and the process never reads outside the input."""
    a = rng.standard_normal((8, 9))
    c = rng.uniform(-30, 40, (2, 6, 7))
    c[0, 0, :3] = np.nan
    c[1, 1, 2:5] = np.nan
    c[0, 2, :] = [1e6, -1e6, 3e7, -3e7, 1e9, -1e9, 5.5]
    for order in range(6):
        expected = ndi.map_coordinates(a, c, order=order, mode=mode, cval=-1.5, prefilter=False)
        got = to_host(I.map_coordinates(to_engine(a, engine), to_engine(c, engine), order=order, mode=mode,
                                        cval=-1.5, prefilter=False))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True)
    far = np.full((2, 3), 1e300)
    far[1, 1] = -1e300
    got = to_host(I.map_coordinates(to_engine(a, engine), to_engine(far, engine), order=3, mode=mode))
    assert got.shape == (3,)


def test_empty_input_axis_gives_cval(engine):
    a = np.zeros((0, 5))
    got = to_host(I.affine_transform(to_engine(a, engine), np.eye(2), output_shape=(3, 4), order=1, cval=2.0))
    np.testing.assert_array_equal(got, np.full((3, 4), 2.0))


@pytest.mark.parametrize("shape, axes", [((6, 7, 5), (0, 2)), ((5, 6, 4, 3), (3, 1)), ((4, 9, 8), (1, 2))])
@pytest.mark.parametrize("order", [0, 1, 2, 3, 5])
def test_rotate_nd_equals_scipy_planewise(engine, rng, shape, axes, order):
    """n-D rotate runs as one affine map with order-0 taps off the plane: scipy's plane by plane result
    (prefiltered along the plane's axes only), for every mode and with or without reshape."""
    a = rng.standard_normal(shape)
    for mode in ("constant", "nearest", "grid-wrap", "reflect"):
        for reshape in (True, False):
            expected = ndi.rotate(a, 27, axes=axes, reshape=reshape, order=order, mode=mode, cval=0.5)
            got = to_host(I.rotate(to_engine(a, engine), 27, axes=axes, reshape=reshape, order=order, mode=mode,
                                   cval=0.5))
            np.testing.assert_allclose(got, expected, rtol=0, atol=0 if engine == "cpu" else 1e-12)


def test_complex_input_and_cval(engine, rng):
    a = rng.standard_normal((9, 8)) + 1j * rng.standard_normal((9, 8))
    for order in (1, 3):
        for fn, ref, kw in ((I.zoom, ndi.zoom, dict(zoom=1.6)), (I.shift, ndi.shift, dict(shift=(0.4, -1.2))),
                            (I.rotate, ndi.rotate, dict(angle=33)),
                            (I.affine_transform, ndi.affine_transform, dict(matrix=[[1.1, 0.2], [0.0, 0.9]]))):
            expected = ref(a, order=order, cval=1 - 2j, **kw)
            got = to_host(fn(to_engine(a, engine), order=order, cval=1 - 2j, **kw))
            assert got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_zoom_grid_mode_warns_like_scipy():
    a = np.ones((4, 5))
    for mode in ("constant", "wrap"):
        with pytest.warns(UserWarning, match="grid-"):
            I.zoom(a, 2, mode=mode, grid_mode=True)


def test_affine_errors_as_scipy():
    a = np.ones((4, 5))
    with pytest.raises(RuntimeError, match="wrong number of rows"):
        I.affine_transform(a, np.ones((3, 2)))
    with pytest.raises(RuntimeError, match="wrong number of columns"):
        I.affine_transform(a, np.ones((2, 3)), output_shape=(4, 5, 2, 2))
    with pytest.raises(ValueError, match="homogeneous"):
        I.affine_transform(a, np.ones((3, 3)))
    with pytest.raises(RuntimeError, match="no proper affine matrix"):
        I.affine_transform(a, np.ones((2, 2, 2)))
    with pytest.raises(RuntimeError, match="boundary mode"):
        I.affine_transform(a, np.eye(2), mode="bogus", order=1)
    with pytest.raises(RuntimeError, match="spline order"):
        I.affine_transform(a, np.eye(2), order=6)


class _Counting:
    """A mapping that counts its calls and whether it saw arrays."""

    def __init__(self, fn):
        self.fn, self.calls, self.arrays = fn, 0, False

    def __call__(self, c, *args, **kw):
        self.calls += 1
        self.arrays |= isinstance(c[0], np.ndarray)
        return self.fn(c, *args, **kw)


def test_geometric_transform_vectorized_mapping_runs_once(rng):
    a = rng.standard_normal((11, 9))
    m = _Counting(lambda c, s: (c[0] * s + 0.3, c[1] - 0.7 * s))
    got = I.geometric_transform(a, m, output_shape=(8, 12), extra_arguments=(0.9,), order=3, mode="nearest")
    expected = ndi.geometric_transform(a, lambda c, s: (c[0] * s + 0.3, c[1] - 0.7 * s), output_shape=(8, 12),
                                       extra_arguments=(0.9,), order=3, mode="nearest")
    assert m.calls == 1 and m.arrays
    np.testing.assert_array_equal(got, expected)


def test_geometric_transform_scalar_mapping_runs_per_point(rng):
    """A mapping written for scalars (math functions, branches) is called point by point, as scipy calls it."""
    a = rng.standard_normal((7, 8))

    def scalar(c, k=1.0):
        return (math.sqrt(c[0] + 1) * k, c[1] - 1 if c[1] > 3 else c[1] + 0.5, "ignored extra")

    m = _Counting(scalar)
    got = I.geometric_transform(a, m, output_shape=(5, 6), extra_keywords={"k": 1.5}, order=1, mode="mirror")
    expected = ndi.geometric_transform(a, scalar, output_shape=(5, 6), extra_keywords={"k": 1.5}, order=1,
                                       mode="mirror")
    assert m.calls == 1 + 5 * 6
    np.testing.assert_array_equal(got, expected)


def test_geometric_transform_mapping_errors_as_scipy():
    a = np.ones((4, 4))
    for bad_map in (lambda c: (c[0],), lambda c: (c[0], "x"), lambda c: list(c), lambda c: np.array(c)):
        with pytest.raises(Exception) as ours:
            I.geometric_transform(a, bad_map, order=1)
        with pytest.raises(Exception) as theirs:
            ndi.geometric_transform(a, bad_map, order=1)
        assert type(ours.value) is type(theirs.value)

    def boom(c):
        raise KeyError("mine")

    with pytest.raises(KeyError):
        I.geometric_transform(a, boom)


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
def test_geometric_transform_on_gpu_runs(rng):
    import cupy as cp

    a = rng.standard_normal((10, 9)).astype(np.float32)
    expected = ndi.geometric_transform(a, lambda c: (math.hypot(c[0], 1.0), c[1] * 0.8), order=3)
    got = I.geometric_transform(cp.asarray(a), lambda c: (math.hypot(c[0], 1.0), c[1] * 0.8), order=3)
    assert isinstance(got, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(got), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["capsule", "cython", "low_level"])
def test_geometric_transform_c_mapping(engine, kind):
    """A C mapping (scipy's test modules: a bare PyCapsule, a Cython one, a LowLevelCallable with its
    signature) called per point from C++: the same result as scipy with the same mapping."""
    from scipy import LowLevelCallable
    from scipy.ndimage import _ctest, _cytest

    make = {"capsule": lambda: _ctest.transform(0.5),
            "cython": lambda: _cytest.transform(0.5, with_signature=False),
            "low_level": lambda: LowLevelCallable(_cytest.transform(0.5, with_signature=True))}[kind]
    x = np.arange(35, dtype=np.float64).reshape(5, 7)
    expected = ndi.geometric_transform(x, make(), order=1, output_shape=(4, 6))
    got = nd.geometric_transform(to_engine(x, engine), make(), order=1, output_shape=(4, 6))
    np.testing.assert_array_equal(to_host(got), expected)


def test_geometric_transform_c_mapping_bad_signature():
    from scipy import LowLevelCallable
    from scipy.ndimage import _cytest

    wrong = LowLevelCallable(_cytest.filter1d(3, with_signature=True))
    with pytest.raises(ValueError, match="Invalid scipy.LowLevelCallable signature"):
        ndi.geometric_transform(np.ones((3, 3)), wrong)
    with pytest.raises(ValueError, match="Invalid scipy.LowLevelCallable signature"):
        nd.geometric_transform(np.ones((3, 3)), wrong)
