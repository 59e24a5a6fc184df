import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as f
from ndimg._registry import NUMERIC
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
