"""CPU vs CUDA engine, one primitive family at a time: the same call on the same data gives the same
result on both engines (the GPU machine runs this; skipped where there is no CUDA device). Exact where the
engines share their arithmetic (integer data, selections, extremes, the long-window mean); within float
rounding where the CUDA engine takes its float32 fast path or contracts sums into FMAs."""
import numpy as np
import pytest

from ndimg import ndimage as nd
from helpers import CUDA_READY, random_image, to_engine, to_host

pytestmark = pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")

MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]
DTYPES = [np.bool_, np.uint8, np.uint16, np.int16, np.int32, np.int64, np.float32, np.float64]


def both(fn, x, *args, **kw):
    """fn on the CPU engine and on the CUDA engine, both as NumPy arrays."""
    return fn(x, *args, **kw), to_host(fn(to_engine(x, "cuda"), *args, **kw))


def assert_equivalent(cpu, gpu, exact):
    assert cpu.dtype == gpu.dtype and cpu.shape == gpu.shape
    if exact or cpu.dtype.kind in "biu":
        if cpu.dtype == np.bool_:
            cpu, gpu = cpu.view(np.uint8) != 0, gpu.view(np.uint8) != 0
        np.testing.assert_array_equal(gpu, cpu)
    else:
        rtol = 2e-6 if cpu.dtype == np.float32 else 1e-12
        scale = float(np.nanmax(np.abs(cpu), initial=1.0))
        np.testing.assert_allclose(gpu, cpu, rtol=rtol, atol=rtol * scale, equal_nan=True)


def _with_nan(x, rng):
    if x.dtype.kind == "f":
        x = x.copy()
        x[rng.random(x.shape) < 0.1] = np.nan
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_separable(rng, dtype, mode):
    x = random_image(rng, (37, 29), dtype)
    for fn, args, kw in ((nd.gaussian_filter, (1.7,), {}), (nd.uniform_filter, (4,), {}),
                         (nd.correlate1d, ([0.5, -1.0, 2.0, 0.25],), dict(axis=0)), (nd.sobel, (), {}),
                         (nd.uniform_filter1d, (200,), dict(axis=0)),  # the long-window mean
                         (nd.gaussian_filter, (1.0,), dict(output=np.float64)),
                         (nd.uniform_filter, (3,), dict(output=np.int16)), (nd.prewitt, (), dict(output=bool))):
        assert_equivalent(*both(fn, x, *args, mode=mode, **kw), exact=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_correlate(rng, dtype, mode):
    x = random_image(rng, (23, 31), dtype)
    w = rng.normal(size=(3, 4))
    for kw in ({}, dict(output=np.float64), dict(output=np.uint8)):
        # the GPU may contract the sums into FMAs: float results within rounding
        assert_equivalent(*both(nd.correlate, x, w, mode=mode, **kw), exact=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_rank(rng, dtype, mode):
    x = _with_nan(random_image(rng, (41, 35), dtype), rng)
    fp = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], bool)
    for fn, args, kw in ((nd.median_filter, (), dict(size=3)), (nd.median_filter, (), dict(size=5)),
                         (nd.median_filter, (), dict(footprint=fp)), (nd.rank_filter, (3,), dict(size=(3, 4))),
                         (nd.percentile_filter, (30,), dict(size=4)), (nd.minimum_filter, (), dict(footprint=fp)),
                         (nd.median_filter, (), dict(size=3, output=np.float64))):
        assert_equivalent(*both(fn, x, *args, mode=mode, **kw), exact=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_min_max_1d(rng, dtype, mode):
    x = _with_nan(random_image(rng, (19, 27), dtype), rng)
    for size, origin in ((2, 0), (3, 1), (8, -4), (60, 5), (10**9, 0)):
        for fn in (nd.minimum_filter1d, nd.maximum_filter1d):
            for axis in (0, 1):
                assert_equivalent(*both(fn, x, size, axis=axis, mode=mode, origin=origin), exact=True)
    assert_equivalent(*both(nd.maximum_filter, x, size=(3, 5), mode=mode), exact=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_tiled_footprints(rng, dtype, mode):
    """The tiled CUDA schedule: rank boxes (3x3, 5x5, 3x3x3, 1x3x3) at several ranks, tiles with and without
    NaN, and correlate footprints that fit the tile; shapes not multiples of the tiles, views and orders."""
    x2 = _with_nan(random_image(rng, (37, 70), dtype), rng)
    x3 = random_image(rng, (11, 13, 35), dtype)
    if x3.dtype.kind == "f":
        x3[3, 4, 5] = np.nan  # one tile holds NaN, the others take the register selection
    for x, sizes in ((x2, (3, 5)), (x3, (3,))):
        for size in sizes:
            n = size ** x.ndim
            for rank in (1, n // 4, n // 2, n - 2):
                assert_equivalent(*both(nd.rank_filter, x, rank, size=size, mode=mode, cval=0.5), exact=True)
    for x in (x3, x3[::-1, :, ::-1], np.asfortranarray(x3), x3[:, 1::2]):
        assert_equivalent(*both(nd.median_filter, x, size=3, mode=mode), exact=True)
        assert_equivalent(*both(nd.median_filter, x, size=3, axes=(1, 2), mode=mode, origin=(1, -1)), exact=True)
    for x, w in ((x2, rng.normal(size=(7, 7))), (x3, rng.normal(size=(3, 3, 3))), (x3[::-1], rng.normal(size=(2, 1, 4)))):
        for kw in ({}, dict(output=np.float64), dict(output=np.uint8)):
            assert_equivalent(*both(nd.correlate, x, w, mode=mode, cval=0.5, **kw), exact=False)
