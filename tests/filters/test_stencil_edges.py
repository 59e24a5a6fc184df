import numpy as np
import pytest
import scipy.ndimage as ndi
import skimage.filters as sf

from ndimg import _core
from ndimg import filters as f
from ndimg._engine import stream_ptr, xp_of
from ndimg._registry import NUMERIC
from ndimg.filters._stencil_edges import _convolution_taps, stencils
from helpers import assert_close, assert_raises_like, random_image, to_engine, to_host

ROBERTS = ["roberts", "roberts_pos_diag", "roberts_neg_diag"]


@pytest.mark.parametrize("name", ROBERTS)
@pytest.mark.parametrize("dtype", NUMERIC + ("bool", "float16"))
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_roberts(engine, rng, name, dtype, layout):
    x = random_image(rng, (11, 14), dtype, layout)
    assert_close(getattr(f, name)(to_engine(x, engine)), getattr(sf, name)(x), f"filters.{name}")


@pytest.mark.parametrize("name", ROBERTS + ["laplace"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (12, 9)])
def test_mask(engine, rng, name, shape):
    x = random_image(rng, shape, "float64")
    mask = rng.random(shape) > 0.3
    got = getattr(f, name)(to_engine(x, engine), mask=to_engine(mask, engine))
    assert_close(got, getattr(sf, name)(x, mask=mask), f"filters.{name}")


@pytest.mark.parametrize("dtype", NUMERIC + ("bool", "float16"))
@pytest.mark.parametrize("shape", [(7,), (9, 8), (5, 6, 7)])
def test_laplace(engine, rng, dtype, shape):
    x = random_image(rng, shape, dtype)
    for ksize in (3, 5):
        assert_close(f.laplace(to_engine(x, engine), ksize=ksize), sf.laplace(x, ksize=ksize), "filters.laplace")


@pytest.mark.parametrize("name", ROBERTS)
@pytest.mark.parametrize("shape", [(5,), (3, 4, 5)])
def test_wrong_ndim_raises_like_skimage(engine, name, shape):
    x = np.ones(shape)
    assert_raises_like(lambda: getattr(sf, name)(x), lambda: getattr(f, name)(to_engine(x, engine)))


@pytest.mark.parametrize("dtype,value", [("float32", 3e38), ("float32", 2e19), ("float64", 1e308),
                                         ("float64", -np.inf), ("float32", np.nan)])
@pytest.mark.parametrize("name", ROBERTS + ["laplace"])
def test_huge_and_non_finite(engine, name, dtype, value):
    """Overflowing squares (2e19 in float32), values whose sums overflow, inf and NaN: scikit-image's
    result at every pixel, in the float type of the input."""
    x = np.random.default_rng(2).random((9, 12)).astype(dtype)
    x[3, 4] = value
    x[6, 9] = -value
    with np.errstate(all="ignore"):
        ref = getattr(sf, name)(x)
        got = to_host(getattr(f, name)(to_engine(x, engine)))
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_laplace_3d_layouts(engine, rng, dtype):
    for layout in ("c", "f", "strided"):
        x = random_image(rng, (7, 6, 5), dtype, layout)
        assert_close(f.laplace(to_engine(x, engine)), sf.laplace(x), "filters.laplace")


# ---- the stencils primitive (_core.stencils) against scipy's convolve and NumPy's float arithmetic ----

def _kernels(rng, ndim, k):
    """k random kernels 3 wide (2 along the last axis: scipy's even-size shift), some weights zero."""
    shape = (3,) * (ndim - 1) + (2,)
    out = []
    for _ in range(k):
        w = rng.standard_normal(shape)
        w[rng.random(shape) < 0.3] = 0.0
        out.append(w)
    return out


def _reference(x, kernels, mode, cval, scale, scale_in_double):
    """scipy's convolve per kernel (double sums rounded to x's dtype), then the magnitude in NumPy as
    scikit-image's edge filters take it."""
    parts = [ndi.convolve(x, w, mode=mode, cval=cval) for w in kernels]
    if len(parts) == 1:
        return parts[0]
    m = parts[0] * parts[0]
    for p in parts[1:]:
        m = m + p * p
    m = np.sqrt(m)
    return (m.astype(np.float64) / scale).astype(x.dtype) if scale_in_double else m / x.dtype.type(scale)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(13,), (11, 14), (6, 5, 7), (3, 4, 2, 5)])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_stencils_primitive_exact(engine, rng, dtype, shape, k):
    """The same bits as scipy's convolve and NumPy's operations, huge, inf and NaN values included, in
    every mode and layout (the CUDA engine's tiled schedule for 2-D/3-D, its generic one for 1-D/4-D)."""
    big = {"float32": 3e38, "float64": 1e308}[dtype]
    for i, layout in enumerate(["c", "f", "strided"]):
        x = random_image(rng, shape, dtype, layout) * 10
        x.flat[::11] = big
        x.flat[4::13] = -big
        if i == 1:
            x.flat[7] = np.inf
            x.flat[-3] = np.nan
        for j, mode in enumerate(["reflect", "constant", "nearest", "mirror", "wrap"]):
            kernels = _kernels(rng, len(shape), k)
            in_double = bool((i + j) % 2)
            with np.errstate(all="ignore"):
                ref = _reference(x, kernels, mode, 0.3, 1.7, in_double)
                got = to_host(stencils(to_engine(x, engine), tuple(_convolution_taps(w) for w in kernels), mode, 0.3,
                                       1.7, in_double))
            assert got.dtype == ref.dtype
            np.testing.assert_array_equal(got, ref)


def _call(x, out, offsets=(0, 0), weights=(1.0,), counts=(1,)):
    _core.stencils(x, out, list(offsets), list(weights), list(counts), _core.Mode.reflect, 0.0, 1.0, False,
                   stream=stream_ptr(out))


@pytest.mark.parametrize("args,exc", [
    (dict(counts=()), ValueError),              # no stencil
    (dict(counts=(2,)), ValueError),            # counts past the taps
    (dict(counts=(2, -1)), ValueError),         # a negative count
    (dict(weights=(1.0, 2.0)), ValueError),     # a weight without its offset
    (dict(offsets=(0,)), ValueError),           # offsets not a multiple of ndim
])
def test_stencils_bad_arguments(engine, args, exc):
    x = to_engine(np.ones((4, 5)), engine)
    with pytest.raises(exc):
        _call(x, xp_of(x).empty_like(x), **args)


def test_stencils_bad_arrays(engine):
    x = to_engine(np.ones((4, 5), np.float32), engine)
    xp = xp_of(x)
    with pytest.raises(TypeError):
        _call(x, xp.empty(x.shape, np.float64))  # output dtype unlike the input's
    with pytest.raises(TypeError):
        _call(x.astype(np.int32), xp.empty(x.shape, np.int32))  # not float data
    with pytest.raises(ValueError):
        _call(x, xp.empty((4, 6), np.float32))  # shapes differ


@pytest.mark.parametrize("name", ROBERTS + ["laplace"])
@pytest.mark.parametrize("dtype,value", [("float32", 1e38), ("float32", 3e38), ("float64", 4e307)])
def test_huge_plateaus_exact(engine, rng, name, dtype, value):
    """Sums of products that overflow the float type but not double (laplace of a 1e38 plateau is 0 in
    scikit-image, inf with float sums): both engines match scikit-image bit for bit."""
    x = (rng.random((12, 10)) * value).astype(dtype)
    x[3:8, 2:7] = value
    with np.errstate(all="ignore"):
        ref = getattr(sf, name)(x)
        got = to_host(getattr(f, name)(to_engine(x, engine)))
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)
