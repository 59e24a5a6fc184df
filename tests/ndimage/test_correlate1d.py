import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from ndimg._registry import ALL
from helpers import MODES, assert_close, assert_raises_like, check_against_reference, random_image, to_engine


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_dtypes_layouts(engine, rng, dtype, layout):
    x = random_image(rng, (13, 7, 5), dtype, layout)
    w = rng.standard_normal(4) if dtype != "bool" else [1, 0, 1]
    for axis in (0, 1, -1):
        check_against_reference(engine, "ndimage.correlate1d", x, w, axis=axis)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("origin", [-1, 0, 1])
@pytest.mark.parametrize("shape", [(1,), (2, 1), (17, 3)])
def test_modes_origin_shapes(engine, rng, mode, origin, shape):
    x = random_image(rng, shape, "float64")
    w = rng.standard_normal(5)
    for name in ("ndimage.correlate1d", "ndimage.convolve1d"):
        check_against_reference(engine, name, x, w, axis=0, mode=mode, cval=1.5, origin=origin)


@pytest.mark.parametrize("out_dtype", [np.uint8, np.int16, np.float32])
def test_output_dtype_casts_like_scipy(engine, rng, out_dtype):
    x = random_image(rng, (31, 9), "float64") * 300
    w = [0.25, -0.5, 1.0]
    check_against_reference(engine, "ndimage.correlate1d", x, w, output=out_dtype)


def test_in_place(engine, rng):
    x = random_image(rng, (12, 12), "float64")
    expected = ndi.correlate1d(x, [1, 2, 3], axis=1)
    xe = to_engine(x.copy(), engine)
    nd.correlate1d(xe, [1, 2, 3], axis=1, output=xe)
    assert_close(xe, expected, "ndimage.correlate1d")


@pytest.mark.parametrize("bad", [
    dict(weights=[]), dict(weights=[1, 2, 3], origin=2), dict(weights=[1, 2], axis=3),
    dict(weights=[1, 2], mode="bogus"),
])
def test_bad_input_raises_like_scipy(engine, bad):
    x = np.ones((4, 5))
    assert_raises_like(lambda: ndi.correlate1d(x, **bad), lambda: nd.correlate1d(to_engine(x, engine), **bad))
