import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as f
from ndimg._registry import NUMERIC
from helpers import MODES as SKIMAGE_MODES, assert_close, assert_raises_like, random_image, to_engine

MODES = SKIMAGE_MODES + ["valid", "symmetric", "edge"]


def sparse_kernel(rng, shape):
    k = rng.standard_normal(shape) * (rng.random(shape) > 0.6)
    k.flat[-1] = 1.0
    return k


@pytest.mark.parametrize("dtype", NUMERIC + ("float16",))
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_dtypes_layouts(engine, rng, dtype, layout):
    x = random_image(rng, (13, 11), dtype, layout)
    k = sparse_kernel(rng, (5, 3))
    assert_close(f.correlate_sparse(to_engine(x, engine), k), sf.correlate_sparse(x, k), "filters.correlate_sparse")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,kshape", [((1, 1), (1, 1)), ((3, 4), (3, 3)), ((9, 7, 6), (3, 5, 1)),
                                          ((15, 12), (7, 5))])
def test_modes_shapes(engine, rng, mode, shape, kshape):
    x = random_image(rng, shape, "float64")
    k = sparse_kernel(rng, kshape)
    if mode == "valid":
        x = random_image(rng, tuple(s + w - 1 for s, w in zip(shape, kshape)), "float64")
    got = f.correlate_sparse(to_engine(x, engine), k, mode=mode)
    assert_close(got, sf.correlate_sparse(x, k, mode=mode), "filters.correlate_sparse")


@pytest.mark.parametrize("bad", [dict(kernel=np.ones((2, 3))), dict(kernel=np.ones((3, 3)), mode="bogus")])
def test_bad_input_raises_like_skimage(engine, bad):
    x = np.ones((6, 5))
    assert_raises_like(lambda: sf.correlate_sparse(x, **bad), lambda: f.correlate_sparse(to_engine(x, engine), **bad))
