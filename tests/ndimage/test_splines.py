"""spline_filter1d / spline_filter / prefilter_for_interpolation against the installed scipy.ndimage: what the
generated registry cases do not say (long lines that the CUDA engine cuts into many segments, output
arrays and in-place calls, complex input, integer outputs bit for bit, the interpolation helper, Dask)."""
import numpy as np
import pytest
import scipy.ndimage as ndi
from scipy.ndimage._interpolation import _prepad_for_spline_filter

from helpers import NDIMAGE_MODES, assert_close, to_engine, to_host
from ndimg import ndimage as nd
from ndimg.ndimage._splines import prefilter_for_interpolation

TOL = (1e-12, 1e-12)


@pytest.mark.parametrize("mode", NDIMAGE_MODES)
@pytest.mark.parametrize("order", [2, 3, 4, 5])
@pytest.mark.parametrize("shape, axis", [((20000,), 0), ((3, 5000), 1), ((700, 6), 0), ((40, 33, 17), 1)])
def test_long_lines(engine, rng, mode, order, shape, axis):
    """Lines long enough for the CUDA engine's segments (and lines of any length between 2 and 20000)."""
    x = rng.standard_normal(shape)
    got = nd.spline_filter1d(to_engine(x, engine), order, axis, mode=mode)
    assert_close(got, ndi.spline_filter1d(x, order, axis, mode=mode), (1e-12, 1e-11))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 17])
@pytest.mark.parametrize("mode", NDIMAGE_MODES)
def test_short_lines(engine, rng, n, mode):
    """Short lines, where every initial condition's sum reaches the other end (the installed scipy's reflect
    sum, aliased before 1.18, included)."""
    x = rng.standard_normal((4, n))
    for order in (2, 3, 4, 5):
        assert_close(nd.spline_filter(to_engine(x, engine), order, mode=mode),
                     ndi.spline_filter(x, order, mode=mode), TOL)


def _bspline_at_integers(order):
    """The centred B-spline of `order` at the integers -order//2..order//2 (its closed form)."""
    from math import comb, factorial

    half = (order + 1) / 2
    return {k: sum((-1) ** j * comb(order + 1, j) * max(k + half - j, 0) ** order for j in range(order + 2))
            / factorial(order) for k in range(-(order // 2), order // 2 + 1)}


@pytest.mark.parametrize("n", [2, 3, 4, 6])
@pytest.mark.parametrize("order", [2, 3, 4, 5])
def test_reflect_coefficients_interpolate(engine, rng, n, order):
    """Whatever scipy is installed, the exact reflect boundary (scipy 1.18's, scipy#24615) gives coefficients
    whose spline, extended half-sample symmetrically, passes through every sample of a short line."""
    from ndimg import _core
    from ndimg._engine import stream_ptr

    x = rng.standard_normal((3, n))
    c = to_engine(np.empty_like(x), engine)
    _core.spline_filter(to_engine(x, engine), c, order, [1], _core.SplineBoundary.reflect, stream_ptr(c))
    c = to_host(c)
    ext = np.concatenate([c[:, ::-1], c, c[:, ::-1]], axis=1)   # reflect: c[-1] = c[0], c[n] = c[n-1]
    back = sum(w * ext[:, n + k:2 * n + k] for k, w in _bspline_at_integers(order).items())
    np.testing.assert_allclose(back, x, rtol=0, atol=1e-12)


def _reflect_line_scipy118(c, z):
    """One pole of scipy 1.18's prefilter of line `c` (already times the gain) under reflect, in its C
    order of operations (Python floats are IEEE doubles, math.pow the C library's)."""
    import math

    n = len(c)
    zi, zn = z, math.pow(z, n)
    s = c[0] + zn * c[n - 1]
    for i in range(1, n):
        s += zi * (c[i] + zn * c[n - 1 - i])
        zi *= z
    c[0] += s * z / (1 - zn * zn)
    for i in range(1, n):
        c[i] += z * c[i - 1]
    c[n - 1] *= z / (z - 1)
    for i in range(n - 2, -1, -1):
        c[i] = z * (c[i + 1] - c[i])


@pytest.mark.parametrize("seed", range(6))
def test_reflect_bitwise_scipy118(engine, seed):
    """The exact reflect boundary is scipy 1.18's to the last bit, whatever scipy is installed: int8 4-D
    lines of 3-6 values through int32 passes (the intermediate truncations see the last bit of its
    (sum z) / (1 - z^2n)), and float64."""
    from ndimg import _core
    from ndimg._engine import stream_ptr

    z = -0.171572875253809902396622551580603843   # order 2's pole
    gain = (1.0 - z) * (1.0 - 1.0 / z)
    x = np.random.default_rng(seed).integers(-128, 128, (3, 5, 4, 6)).astype(np.int8)
    for dtype in (np.int32, np.float64):
        exp = x
        for ax in range(x.ndim):
            lines = np.moveaxis(exp.astype(np.float64), ax, -1).copy()
            for idx in np.ndindex(lines.shape[:-1]):
                line = [v * gain for v in lines[idx].tolist()]
                _reflect_line_scipy118(line, z)
                lines[idx] = line
            exp = np.moveaxis(lines, -1, ax).astype(dtype)
        got = to_engine(np.empty(x.shape, dtype), engine)
        _core.spline_filter(to_engine(x, engine), got, 2, list(range(x.ndim)), _core.SplineBoundary.reflect,
                            stream_ptr(got))
        assert np.array_equal(to_host(got), exp)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "float32"])
def test_integer_and_float32_outputs_bitwise_cpu(rng, dtype):
    """Intermediate results in the output dtype, cast like scipy's C: the CPU engine is bit for bit."""
    x = (rng.standard_normal((13, 11, 9)) * 40 + 100).astype(dtype)
    for mode in ("mirror", "reflect", "grid-wrap"):
        got = nd.spline_filter(x, 3, output=dtype, mode=mode)
        exp = ndi.spline_filter(x, 3, output=dtype, mode=mode)
        assert got.dtype == exp.dtype and np.array_equal(got, exp)


def test_output_array_and_in_place(engine, rng):
    x = rng.standard_normal((12, 10))
    exp = ndi.spline_filter(x, 4, mode="reflect")
    gx = to_engine(x.copy(), engine)
    out = to_engine(np.zeros_like(x), engine)
    assert nd.spline_filter(gx, 4, output=out, mode="reflect") is out
    assert_close(out, exp, TOL)
    assert nd.spline_filter(gx, 4, output=gx, mode="reflect") is gx   # scipy filters in place too
    assert_close(gx, exp, TOL)
    y = to_engine(x.copy(), engine)
    nd.spline_filter1d(y[:, 1:], 3, axis=0, output=y[:, :-1])   # overlapping, not identical
    ref = x.copy()
    ndi.spline_filter1d(ref[:, 1:], 3, axis=0, output=ref[:, :-1])
    assert_close(y, ref, TOL)


def test_complex(engine, rng):
    x = rng.standard_normal((9, 14)) + 1j * rng.standard_normal((9, 14))
    with pytest.warns(UserWarning):
        exp = ndi.spline_filter(x, 5, mode="grid-wrap")
    with pytest.warns(UserWarning):   # scipy's: the float64 output dtype promoted to complex
        got = nd.spline_filter(to_engine(x, engine), 5, mode="grid-wrap")
    assert to_host(got).dtype == np.complex128
    assert_close(got, exp, TOL)
    got1 = nd.spline_filter1d(to_engine(x.astype(np.complex64), engine), 2, axis=0, output=np.complex64)
    assert_close(got1, ndi.spline_filter1d(x.astype(np.complex64), 2, axis=0, output=np.complex64), (1e-6, 1e-6))


def test_orders_0_1_copy(engine, rng):
    """spline_filter1d copies for orders 0 and 1 without checking mode or axis, as scipy does."""
    x = rng.integers(0, 100, (5, 6)).astype(np.int16)
    got = nd.spline_filter1d(to_engine(x, engine), 1, axis=9, mode="bogus")
    assert_close(got, ndi.spline_filter1d(x, 1, axis=9, mode="bogus"), TOL)
    with pytest.raises(RuntimeError):
        nd.spline_filter(to_engine(x, engine), 1)


def test_zero_d_and_empty(engine):
    assert_close(nd.spline_filter(to_engine(np.array(2.5), engine)), ndi.spline_filter(np.array(2.5)), TOL)
    with pytest.raises(np.exceptions.AxisError):
        nd.spline_filter1d(to_engine(np.array(2.5), engine))
    e = np.zeros((0, 4))
    assert to_host(nd.spline_filter(to_engine(e, engine))).shape == (0, 4)


@pytest.mark.parametrize("mode", NDIMAGE_MODES)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "complex128"])
def test_prefilter_for_interpolation(engine, rng, mode, dtype):
    """scipy's coefficients for an interpolation: padding for 'nearest'/'grid-constant' (cval in the input's
    dtype), then spline_filter in float64 (complex128 for complex input)."""
    x = (rng.standard_normal((7, 9)) * 50 + 60).astype(dtype)
    for order in (2, 3, 5):
        coef, npad = prefilter_for_interpolation(to_engine(x, engine), order, mode, 3.7)
        padded, ref_pad = _prepad_for_spline_filter(x, mode, 3.7)
        if x.dtype.kind == "c":
            exp = ndi.spline_filter(padded.real, order, mode=mode) + 1j * ndi.spline_filter(padded.imag, order, mode=mode)
        else:
            exp = ndi.spline_filter(padded, order, output=np.float64, mode=mode)
        assert npad == ref_pad and type(coef) is type(to_engine(x, engine))
        assert_close(coef, exp, TOL)
    same, npad = prefilter_for_interpolation(x, 1, mode, 0.0)
    assert same is x and npad == 0


def test_dask_matches_scipy(rng):
    da = pytest.importorskip("dask.array")
    x = rng.standard_normal((37, 29, 11)).astype(np.float32)
    dx = da.from_array(x, chunks=(10, 7, 4))
    for mode in ("mirror", "grid-wrap", "nearest"):
        lazy = nd.spline_filter(dx, 3, mode=mode)
        assert lazy.chunks == dx.chunks and lazy.dtype == np.float64
        assert_close(lazy.compute(), ndi.spline_filter(x, 3, mode=mode), TOL)
        lazy1 = nd.spline_filter1d(dx, 5, axis=1, output=np.float32, mode=mode)
        assert_close(lazy1.compute(), ndi.spline_filter1d(x, 5, axis=1, output=np.float32, mode=mode), (1e-6, 1e-6))
    with pytest.raises(TypeError):
        nd.spline_filter(dx, 3, output=np.empty(x.shape))


@pytest.mark.parametrize("mode", ["mirror", "reflect", "grid-wrap"])
def test_non_finite_long_lines(engine, rng, mode):
    """Infinities, NaN and values that overflow when scaled, in lines long enough for the CUDA segments:
    the results (inf, -inf and NaN where they fall) are scipy's."""
    x = rng.standard_normal((6, 3000))
    x[1, 1500] = np.inf
    x[2, 10] = -np.inf
    x[3, 2000] = np.nan
    x[4, 700] = 1e308
    for axis in (1, 0):
        a = x if axis == 1 else np.ascontiguousarray(x.T)
        got = to_host(nd.spline_filter1d(to_engine(a, engine), 3, axis=axis, mode=mode))
        exp = ndi.spline_filter1d(a, 3, axis=axis, mode=mode)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(exp))
        np.testing.assert_array_equal(np.isinf(got) * np.sign(got), np.isinf(exp) * np.sign(exp))
        fin = np.isfinite(exp)
        assert_close(got[fin], exp[fin], (1e-12, 1e-11))
