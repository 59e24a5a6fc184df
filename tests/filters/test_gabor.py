import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as f
from ndimg._registry import NUMERIC
from helpers import assert_close, assert_raises_like, random_image, to_engine


# gabor_kernel: its cases and bad dtypes are generated from the registry (tests/test_registry_cases.py)


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
