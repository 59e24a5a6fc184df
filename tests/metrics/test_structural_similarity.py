"""structural_similarity against skimage.metrics (every option: win_size, gradient, full,
gaussian_weights, channel_axis, data_range, K1/K2/sigma/use_sample_covariance)."""
import warnings

import numpy as np
import pytest
import skimage.metrics as ref

import ndimg.metrics as ours
from helpers import assert_close, assert_raises_like, random_image, to_engine
from ndimg._registry import REGISTRY

NAME = "metrics.structural_similarity"


def _pair(rng, shape, dtype, layout="c"):
    a = random_image(rng, shape, dtype, layout)
    noise = random_image(rng, shape, dtype, layout)
    b = (a // 2 + noise // 2).astype(dtype) if np.dtype(dtype).kind in "iu" else (a + 0.3 * noise).astype(dtype)
    return a, b


def _compare(engine, a, b, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ref.structural_similarity(a, b, **kw)
        got = ours.structural_similarity(to_engine(a, engine), to_engine(b, engine), **kw)
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        assert_close(np.asarray(got[0].get() if hasattr(got[0], "get") else got[0]), np.asarray(expected[0]), NAME)
        for g, e in zip(got[1:], expected[1:]):
            assert_close(g, e, NAME)
    else:
        assert_close(np.asarray(got.get() if hasattr(got, "get") else got), np.asarray(expected), NAME)


@pytest.mark.parametrize("dtype", REGISTRY[NAME].dtypes)
@pytest.mark.parametrize("shape", [(7, 7), (12, 9), (8, 9, 7)])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_structural_similarity(engine, rng, dtype, shape, layout):
    a, b = _pair(rng, shape, dtype, layout)
    kw = dict(data_range=6.0) if dtype.startswith("float") else {}
    _compare(engine, a, b, **kw)


@pytest.mark.parametrize("options", [dict(gradient=True), dict(full=True), dict(gradient=True, full=True),
                                     dict(gaussian_weights=True), dict(gaussian_weights=True, sigma=0.8),
                                     dict(gaussian_weights=True, gradient=True, full=True),
                                     dict(win_size=3), dict(win_size=5, use_sample_covariance=False),
                                     dict(K1=0.05, K2=0.1), dict(data_range=3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
def test_structural_similarity_options(engine, rng, options, dtype):
    a, b = _pair(rng, (13, 15), dtype)
    if dtype.startswith("float"):
        options = dict(dict(data_range=6.0), **options)
    _compare(engine, a, b, **options)


@pytest.mark.parametrize("channel_axis", [-1, 0, 1])
@pytest.mark.parametrize("options", [{}, dict(gradient=True), dict(full=True), dict(gradient=True, full=True)])
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_structural_similarity_channels(engine, rng, channel_axis, options, dtype):
    shape = [11, 10]
    shape.insert(channel_axis % 3, 3)
    a, b = _pair(rng, tuple(shape), dtype, "strided")
    kw = dict(data_range=6.0) if dtype == "float32" else {}
    _compare(engine, a, b, channel_axis=channel_axis, **kw, **options)


def test_structural_similarity_warnings(engine, rng):
    a, b = _pair(rng, (9, 9), "uint16")
    with pytest.warns(UserWarning, match="data_range"):
        ref.structural_similarity(a, b)
    with pytest.warns(UserWarning, match="data_range"):
        ours.structural_similarity(to_engine(a, engine), to_engine(b, engine))
    c = a.astype(np.uint8)
    with pytest.warns(UserWarning, match="mismatched"):
        ours.structural_similarity(to_engine(c, engine), to_engine(b.astype(np.int8), engine))


@pytest.mark.parametrize("kw, shape, dtype", [
    (dict(), (9, 9), "float64"),                     # float without data_range
    (dict(win_size=4, data_range=1), (9, 9), "float64"),  # even window
    (dict(data_range=1), (5, 9), "float64"),         # window larger than the image
    (dict(data_range=1, K1=-1), (9, 9), "float64"),
    (dict(data_range=1, K2=-1), (9, 9), "float64"),
    (dict(data_range=1, sigma=-1), (9, 9), "float64"),
])
def test_structural_similarity_bad_input(engine, rng, kw, shape, dtype):
    a, b = _pair(rng, shape, dtype)
    assert_raises_like(lambda: ref.structural_similarity(a, b, **kw),
                       lambda: ours.structural_similarity(to_engine(a, engine), to_engine(b, engine), **kw), ValueError)
    with pytest.raises(ValueError):
        ours.structural_similarity(to_engine(a, engine), to_engine(b[:-1], engine), **kw)
