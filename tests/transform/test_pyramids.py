"""transform.pyramid_gaussian / pyramid_laplacian (generators) against scikit-image 0.26 layer by layer: the
same number of layers, shapes, dtypes and values, on each engine (layers of the input's array type)."""
import numpy as np
import pytest
import skimage.transform as st

import ndimg.transform as nt
from helpers import assert_close, to_engine, to_host

CASES = [
    dict(), dict(max_layer=2), dict(downscale=3), dict(sigma=1.5, order=3), dict(order=0, mode="constant", cval=0.5),
    dict(mode="wrap", preserve_range=True),
]


@pytest.mark.parametrize("name", ["pyramid_gaussian", "pyramid_laplacian"])
@pytest.mark.parametrize("kw", CASES, ids=repr)
@pytest.mark.parametrize("shape, dtype, channel_axis", [((37, 50), "float32", None), ((19, 24), "uint8", None),
                                                         ((9, 11, 13), "float64", None),
                                                         ((21, 30, 3), "float32", -1), ((3, 21, 30), "uint16", 0)])
def test_layers_like_skimage(engine, rng, name, kw, shape, dtype, channel_axis):
    image = (rng.random(shape) * (1 if dtype.startswith("float") else 200)).astype(dtype)
    expected = list(getattr(st, name)(image, channel_axis=channel_axis, **kw))
    got = list(getattr(nt, name)(to_engine(image, engine), channel_axis=channel_axis, **kw))
    assert len(got) == len(expected)
    for g, x in zip(got, expected):
        assert type(g) is type(to_engine(x, engine))
        assert_close(to_host(g), x, (1e-5, 1e-6))


@pytest.mark.parametrize("name", ["pyramid_gaussian", "pyramid_laplacian"])
def test_refuses_factor_one(name):
    image = np.zeros((8, 8))
    with pytest.raises(ValueError):
        next(getattr(st, name)(image, downscale=1))
    with pytest.raises(ValueError):
        next(getattr(nt, name)(image, downscale=1))
