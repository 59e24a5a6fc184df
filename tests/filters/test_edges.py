"""Sobel, Scharr, Prewitt and Farid edge filters against scikit-image 0.26."""
import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as f
from helpers import MODES, assert_raises_like, check_against_reference, random_image, to_engine, to_host

ND = ["sobel", "scharr", "prewitt", "farid"]
DIRECTIONAL = ["sobel_h", "sobel_v", "scharr_h", "scharr_v", "prewitt_h", "prewitt_v", "farid_h", "farid_v"]


def _check(engine, name, x, mask=None, **kw):
    check_against_reference(engine, f"filters.{name}", x, mask=mask, **kw)


@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (7, 2), (3, 1, 4)])
@pytest.mark.parametrize("name", ND)
def test_shapes_layouts(engine, rng, name, shape, layout):
    _check(engine, name, random_image(rng, shape, "float64", layout))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ND)
def test_axis_mode_cval(engine, rng, name, mode):
    x = random_image(rng, (9, 8, 5), "float32")
    for axis in (None, 0, -1, (0, 2), [1]):
        _check(engine, name, x, axis=axis, mode=mode, cval=1.25)


@pytest.mark.parametrize("name", ND + DIRECTIONAL)
def test_mask(engine, rng, name):
    x = random_image(rng, (12, 11), "uint8")
    mask = rng.random(x.shape) > 0.15
    _check(engine, name, x, mask=mask)
    _check(engine, name, x, mask=mask.astype(np.uint8) * 3)
    if name in ND:
        x3 = random_image(rng, (6, 5, 7), "float32")
        _check(engine, name, x3, mask=rng.random(x3.shape) > 0.1)


@pytest.mark.parametrize("name", DIRECTIONAL)
def test_directional_needs_2d(engine, name):
    for shape in [(4, 5, 6), (5,), (0, 3)]:
        x = np.ones(shape)
        assert_raises_like(lambda: getattr(sf, name)(x), lambda: getattr(f, name)(to_engine(x, engine)), ValueError)


@pytest.mark.parametrize("kwargs", [dict(axis=2), dict(axis=-3), dict(mode="bogus"), dict(mode=["reflect", "wrap"])])
@pytest.mark.parametrize("name", ND)
def test_bad_input(engine, name, kwargs):
    x = np.ones((6, 5))
    assert_raises_like(lambda: getattr(sf, name)(x, **kwargs), lambda: getattr(f, name)(to_engine(x, engine), **kwargs))


@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint16"])
@pytest.mark.parametrize("name", DIRECTIONAL)
def test_directional_dtypes_layouts(engine, rng, name, dtype, layout):
    """The result's float type (float32 stays float32) and every memory layout of the input (the CUDA
    engine's stencil kernel reads it through its strides)."""
    _check(engine, name, random_image(rng, (13, 17), dtype, layout))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype,value", [("float32", 3e38), ("float64", 1e308), ("float64", np.inf),
                                         ("float32", np.nan)])
@pytest.mark.parametrize("name", ND)
def test_huge_and_non_finite_every_mode(engine, name, dtype, value, mode):
    """Values whose separable partial sums overflow, and inf/NaN, in 3-D and in every mode: scikit-image's
    n-D kernel skips zero taps and sums once (the CPU engine's fallback, the CUDA engine's stencil)."""
    x = np.random.default_rng(4).random((11, 13, 9)).astype(dtype)
    # far enough from the borders and each other that no window reads one twice or both: cancelling huge
    # values is summation order, not the point here
    x[3, 3, 3] = value
    x[7, 9, 5] = -value
    for axis in (None, 1, (2, 0)):
        with np.errstate(all="ignore"):
            ref = getattr(sf, name)(x, axis=axis, mode=mode, cval=0.5)
            got = to_host(getattr(f, name)(to_engine(x, engine), axis=axis, mode=mode, cval=0.5))
        assert got.dtype == ref.dtype
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["sobel", "prewitt_v", "farid"])
def test_mask_non_finite(engine, rng, name):
    """Masked-out pixels are result * 0 as in scikit-image: NaN where the result is inf or NaN."""
    x = random_image(rng, (10, 9), "float64")
    x[4, 4] = np.inf
    mask = np.ones(x.shape, bool)
    mask[4, 3] = False
    with np.errstate(all="ignore"):
        _check(engine, name, x, mask=mask)


@pytest.mark.parametrize("name", ND + ["sobel_h", "farid_v"])
@pytest.mark.parametrize("dtype,value", [("float32", 1e38), ("float32", 3e38), ("float64", 4e307)])
def test_huge_plateaus_exact(engine, rng, name, dtype, value):
    """Neighbourhoods of huge values whose sum of products overflows the float type but not double:
    scikit-image's double sums give finite values (0 on a plateau) where float sums give inf; both engines
    match it bit for bit."""
    x = (rng.random((12, 10)) * value).astype(dtype)
    x[3:8, 2:7] = value  # a plateau
    with np.errstate(all="ignore"):
        ref = getattr(sf, name)(x)
        got = to_host(getattr(f, name)(to_engine(x, engine)))
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)
