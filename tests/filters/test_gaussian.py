"""filters.gaussian, difference_of_gaussians and unsharp_mask against scikit-image 0.26."""

import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as f
from ndimg._registry import NUMERIC
from helpers import MODES, assert_close, assert_raises_like, check_against_reference, random_image, to_engine


def _check(engine, name, x, *args, **kw):
    return check_against_reference(engine, f"filters.{name}", x, *args, **kw)


@pytest.mark.parametrize("dtype", NUMERIC + ("bool", "float16"))
@pytest.mark.parametrize("preserve_range", [False, True])
def test_gaussian_dtypes(engine, rng, dtype, preserve_range):
    for shape in [(9, 8), (5, 6, 4)]:
        _check(engine, "gaussian", random_image(rng, shape, dtype), sigma=1.3, preserve_range=preserve_range)


@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (15, 2), (3, 4, 5)])
def test_gaussian_shapes_layouts(engine, rng, layout, shape):
    _check(engine, "gaussian", random_image(rng, shape, "float32", layout), sigma=2.0)
    _check(engine, "gaussian", random_image(rng, shape, "uint8", layout), sigma=0.8)


@pytest.mark.parametrize("mode", MODES)
def test_gaussian_modes(engine, rng, mode):
    x = random_image(rng, (12, 9), "uint16")
    _check(engine, "gaussian", x, sigma=(1.0, 2.5), mode=mode, cval=0.3)
    _check(engine, "gaussian", x.astype(np.float64), sigma=1.5, mode=mode, cval=-2.0, truncate=2.0)


@pytest.mark.parametrize("channel_axis", [0, -1, 2])
def test_gaussian_channel_axis(engine, rng, channel_axis):
    x = random_image(rng, (10, 11, 3), "uint8")
    _check(engine, "gaussian", x, sigma=1.5, channel_axis=channel_axis)
    _check(engine, "gaussian", x, sigma=(1.0, 2.0), channel_axis=channel_axis)
    _check(engine, "gaussian", x, sigma=(1.0, 2.0, 0.5), channel_axis=channel_axis)


@pytest.mark.parametrize("out_dtype", [np.float32, np.float64])
def test_gaussian_out(engine, rng, out_dtype):
    x = random_image(rng, (13, 10), "int16")
    expected = sf.gaussian(x, sigma=1.0, out=np.empty(x.shape, out_dtype))
    out = to_engine(np.empty(x.shape, out_dtype), engine)
    ret = f.gaussian(to_engine(x, engine), sigma=1.0, out=out)
    assert ret is out
    assert_close(out, expected, "filters.gaussian")


def test_gaussian_zero_sigma_and_lists(engine, rng):
    x = random_image(rng, (7, 6), "uint8")
    _check(engine, "gaussian", x, sigma=0)
    # scikit-image 0.26 takes no lists (AttributeError on .dtype); nor does ndimg
    lists = [[1, 2, 3], [4, 5, 6]]
    assert_raises_like(lambda: sf.gaussian(lists, sigma=1), lambda: f.gaussian(lists, sigma=1), AttributeError)


@pytest.mark.parametrize("kwargs", [dict(sigma=-1), dict(sigma=(1, -0.5)), dict(sigma=1, out=np.empty((6, 5), np.uint8)),
                                    dict(sigma=1, mode="bogus"), dict(sigma=(1, 2, 3))])
def test_gaussian_bad_input(engine, kwargs):
    x = np.ones((6, 5))
    ours = {k: to_engine(v, engine) if k == "out" else v for k, v in kwargs.items()}
    assert_raises_like(lambda: sf.gaussian(x, **kwargs), lambda: f.gaussian(to_engine(x, engine), **ours))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_difference_of_gaussians(engine, rng, dtype):
    x = random_image(rng, (14, 12), dtype)
    _check(engine, "difference_of_gaussians", x, 1.0)
    _check(engine, "difference_of_gaussians", x, (1.0, 0.5), (2.0, 1.5), mode="reflect")
    x3 = random_image(rng, (8, 9, 3), dtype)
    _check(engine, "difference_of_gaussians", x3, 0.8, 2.0, channel_axis=-1, mode="constant", cval=0.2)


@pytest.mark.parametrize("args,kwargs", [((2.0, 1.0), {}), (((1, 2, 3),), {}), ((1.0, (1, 2, 3)), {})])
def test_difference_of_gaussians_bad_input(engine, args, kwargs):
    x = np.ones((6, 5))
    assert_raises_like(lambda: sf.difference_of_gaussians(x, *args, **kwargs),
                       lambda: f.difference_of_gaussians(to_engine(x, engine), *args, **kwargs))


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("preserve_range", [False, True])
def test_unsharp_mask(engine, rng, dtype, preserve_range):
    x = random_image(rng, (11, 10), dtype)
    _check(engine, "unsharp_mask", x, radius=1.5, amount=2.0, preserve_range=preserve_range)
    x = np.abs(random_image(rng, (6, 7, 5), dtype))
    _check(engine, "unsharp_mask", x, preserve_range=preserve_range)


def test_unsharp_mask_channels(engine, rng):
    x = random_image(rng, (9, 8, 3), "uint8")
    _check(engine, "unsharp_mask", x, radius=2.0, amount=0.7, channel_axis=2)
    # scikit-image 0.26 slices the wrong axis for a negative channel_axis (leaving uninitialized
    # values); ndimg means the axis it names
    got = f.unsharp_mask(to_engine(x, engine), radius=2.0, amount=0.7, channel_axis=-1)
    assert_close(got, sf.unsharp_mask(x, radius=2.0, amount=0.7, channel_axis=2), "filters.unsharp_mask")
    _check(engine, "unsharp_mask", x, radius=(1.0, 3.0), channel_axis=2)
    x = random_image(rng, (3, 9, 8), "float32")
    _check(engine, "unsharp_mask", x, radius=1.0, channel_axis=0)
    with pytest.raises(RuntimeError):
        f.unsharp_mask(to_engine(x, engine), radius=(1.0, 2.0, 3.0), channel_axis=0)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "bool"])
def test_unsigned_rgb_channel_last(engine, rng, dtype):
    """Unsigned and bool RGB images, channel last (the CUDA engine blurs them unconverted and converts
    inside its sharpening kernel), against scikit-image with its img_as_float image."""
    x = random_image(rng, (12, 10, 3), dtype)
    _check(engine, "difference_of_gaussians", x, 1.0, 2.0, channel_axis=-1)
    _check(engine, "unsharp_mask", x, radius=2.0, amount=1.5, channel_axis=2)
    _check(engine, "unsharp_mask", x, radius=1.0, amount=-3.0, channel_axis=2)  # clipped at 0 and 1
    _check(engine, "unsharp_mask", x, radius=1.0, amount=2.0, preserve_range=True, channel_axis=2)


def test_unsharp_mask_amounts_and_non_finite(engine, rng):
    x = random_image(rng, (9, 11), "float64")
    x[2, 3], x[5, 5] = np.nan, np.inf
    with np.errstate(invalid="ignore"):
        _check(engine, "unsharp_mask", x, radius=1.0, amount=np.float32(0.5))
        _check(engine, "unsharp_mask", x, radius=1.0, amount=2, preserve_range=True)
    x = random_image(rng, (9, 11), "int16")
    _check(engine, "unsharp_mask", x, radius=1.5, amount=np.full((9, 11), 0.5))


@pytest.mark.parametrize("dtype,out_dtype", [("uint8", None), ("bool", None), ("float32", None), ("float64", None),
                                             ("uint8", np.float32), ("float32", np.float64)])
@pytest.mark.parametrize("channels", [1, 3, 4, 15, 16])
def test_gaussian_channel_last(engine, rng, dtype, out_dtype, channels):
    """Few channels last (the CUDA engine filters a channel-first copy and writes back into `out`), every
    dtype pairing, modes per axis, `out` given or not."""
    x = random_image(rng, (11, 9, channels), dtype)
    for kw in (dict(sigma=1.5), dict(sigma=(1.0, 2.0, 0.7)), dict(sigma=2.0, mode=["reflect", "wrap", "constant"],
                                                                   cval=0.25)):
        if out_dtype is None:
            _check(engine, "gaussian", x, channel_axis=-1, **kw)
            continue
        expected = sf.gaussian(x, channel_axis=-1, out=np.empty(x.shape, out_dtype), **kw)
        out = to_engine(np.empty(x.shape, out_dtype), engine)
        assert f.gaussian(to_engine(x, engine), channel_axis=-1, out=out, **kw) is out
        assert_close(out, expected, "filters.gaussian")


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64", "int16"])
@pytest.mark.parametrize("channels", [1, 4, 15, 16])
def test_difference_of_gaussians_channel_last(engine, rng, dtype, channels):
    """Few channels last (the CUDA engine blurs one channel-first copy twice), a mode per axis too."""
    x = random_image(rng, (10, 13, channels), dtype)
    _check(engine, "difference_of_gaussians", x, (0.7, 1.2), 2.5, channel_axis=2, mode="reflect")
    _check(engine, "difference_of_gaussians", x, 1.0, channel_axis=-1, mode=["wrap", "constant", "nearest"], cval=0.3)
