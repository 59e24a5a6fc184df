import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as nf
from ndimg._registry import ALL
from helpers import assert_close, assert_raises_like, random_image, to_engine, to_host


# impulse responses get coordinate arrays of the input's engine; NumPy ufuncs work on both
def gaussian(r, c, sigma=1.0):
    return np.exp(-(r**2 + c**2) / (2 * sigma**2)) / (2 * np.pi * sigma**2)


def skewed(r, c):  # not symmetric, so that a flipped or shifted kernel shows
    return np.exp(-((r - 0.7) ** 2 / 3 + (c + 0.4) ** 2)) * (1 + 0.2 * r)


def chirped(r, c):  # complex taps: the full-spectrum path
    return gaussian(r, c) * np.exp(0.5j * r)


def _input(rng, shape, dtype, layout="c"):
    x = random_image(rng, shape, dtype, layout)
    return x / 4 if x.dtype.kind == "f" else x


@pytest.mark.parametrize("dtype", ALL + ("float16",))
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_forward_dtypes_layouts(engine, rng, dtype, layout):
    x = _input(rng, (9, 6), dtype, layout)
    got = nf.filter_forward(to_engine(x, engine), skewed)
    assert_close(got, sf.filter_forward(x, skewed), "filters.filter_forward")


@pytest.mark.parametrize("name", ["filter_forward", "filter_inverse", "wiener"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (4, 1), (6, 7), (8, 3), (10, 12)])
@pytest.mark.parametrize("response", [gaussian, skewed, chirped])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_functions_shapes(engine, rng, name, shape, response, dtype):
    x = _input(rng, shape, dtype)
    got = getattr(nf, name)(to_engine(x, engine), response)
    assert_close(got, getattr(sf, name)(x, response), f"filters.{name}")


@pytest.mark.parametrize("kw", [dict(filter_params=dict(sigma=2.5)), dict(max_gain=5), dict(max_gain=1.2)])
def test_inverse_parameters(engine, rng, kw):
    x = _input(rng, (7, 10), "float64")
    got = nf.filter_inverse(to_engine(x, engine), gaussian, **kw)
    assert_close(got, sf.filter_inverse(x, gaussian, **kw), "filters.filter_inverse")


@pytest.mark.parametrize("K", [0.01, 2.0, "array"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_wiener_K(engine, rng, K, dtype):
    x = _input(rng, (6, 9), dtype)
    if K == "array":  # on the padded grid; not symmetric
        K = rng.random((11, 17)) * 0.5
    got = nf.wiener(to_engine(x, engine), skewed, K=to_engine(K, engine))
    assert_close(got, sf.wiener(x, skewed, K=K), "filters.wiener")


def test_lpifilter2d_object(engine, rng):
    filt = nf.LPIFilter2D(gaussian, sigma=1.5)
    ref = sf.LPIFilter2D(gaussian, sigma=1.5)
    assert filt.impulse_response is gaussian and filt.filter_params == dict(sigma=1.5)
    for shape in [(6, 7), (5, 5), (6, 7)]:  # a new shape rebuilds the cached spectrum, the old one again
        x = _input(rng, shape, "float64")
        assert_close(filt(to_engine(x, engine)), ref(x), "filters.LPIFilter2D")
    # as predefined_filter: ours, or scikit-image's own object
    x = _input(rng, (8, 5), "float32")
    for name in ["filter_forward", "filter_inverse", "wiener"]:
        expected = getattr(sf, name)(x, predefined_filter=ref)
        for predefined in (filt, ref):
            got = getattr(nf, name)(to_engine(x, engine), predefined_filter=predefined)
            assert_close(got, expected, f"filters.{name}")


@pytest.mark.parametrize("name", ["filter_forward", "filter_inverse", "wiener"])
@pytest.mark.parametrize("bad", [
    dict(data=np.ones((3, 4, 5))), dict(data=np.ones(5)), dict(data=np.ones((0, 4))),
    dict(impulse_response=None), dict(impulse_response=3),
])
def test_bad_input_raises_like_skimage(engine, name, bad):
    kw = dict(data=np.ones((4, 5)), impulse_response=gaussian) | bad
    assert_raises_like(lambda: getattr(sf, name)(**kw),
                       lambda: getattr(nf, name)(**kw | dict(data=to_engine(kw["data"], engine))))


@pytest.mark.parametrize("K", [1, np.float32(0.5), np.ones(3), np.ones((4, 5))])
def test_bad_K_raises_like_skimage(engine, K):
    x = np.ones((4, 5))
    assert_raises_like(lambda: sf.wiener(x, gaussian, K=K),
                       lambda: nf.wiener(to_engine(x, engine), gaussian, K=to_engine(K, engine)))


def test_lpifilter2d_bad_input(engine):
    assert_raises_like(lambda: sf.LPIFilter2D("gaussian"), lambda: nf.LPIFilter2D("gaussian"), ValueError)
    for x in (np.ones(5), np.ones((2, 3, 4)), np.ones((0, 3))):
        assert_raises_like(lambda: sf.LPIFilter2D(gaussian)(x),
                           lambda: nf.LPIFilter2D(gaussian)(to_engine(x, engine)), ValueError)
