import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as f
from ndimg._registry import NUMERIC
from helpers import assert_close, assert_raises_like, random_image, to_engine


@pytest.mark.parametrize("kw", [dict(frequency=0.2), dict(frequency=0.35, theta=1.1, bandwidth=0.7, offset=0.3),
                                dict(frequency=0.1, sigma_x=2.0, sigma_y=1.0, n_stds=2),
                                dict(frequency=0.3, theta=np.pi / 2, dtype=np.complex64)])
def test_gabor_kernel(kw):
    got = f.gabor_kernel(**kw)
    ref = sf.gabor_kernel(**kw)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)


def test_gabor_kernel_bad_dtype():
    assert_raises_like(lambda: sf.gabor_kernel(0.2, dtype=np.float64),
                       lambda: f.gabor_kernel(0.2, dtype=np.float64), ValueError)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_gabor_dtypes_layouts(engine, rng, dtype, layout):
    x = random_image(rng, (17, 14), dtype, layout)
    got = f.gabor(to_engine(x, engine), 0.25, theta=0.4)
    assert_close(got, sf.gabor(x, 0.25, theta=0.4), "filters.gabor")


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (20, 9)])
def test_gabor_modes_shapes(engine, rng, mode, shape):
    x = random_image(rng, shape, "float32")
    got = f.gabor(to_engine(x, engine), 0.4, bandwidth=2, mode=mode, cval=0.5)
    assert_close(got, sf.gabor(x, 0.4, bandwidth=2, mode=mode, cval=0.5), "filters.gabor")


@pytest.mark.parametrize("shape", [(5,), (4, 5, 6), (0, 3)])
def test_gabor_bad_input_raises_like_skimage(engine, shape):
    x = np.ones(shape)
    assert_raises_like(lambda: sf.gabor(x, 0.2), lambda: f.gabor(to_engine(x, engine), 0.2))
