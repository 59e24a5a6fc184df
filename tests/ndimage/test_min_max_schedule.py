"""The schedules of the sliding minimum/maximum against scipy.ndimage, on each engine: on CUDA, rows along
the contiguous axis (interior segments and line ends, lines shorter than a segment or the window), columns
across outer axes, the strided fallback for other views, Gil-Werman per line for long windows, and the
lines holding NaN that scipy's deque computes again; every mode, dtype and origin."""
import numpy as np
import pytest
import scipy.ndimage as sn

from ndimg import ndimage as nd
from helpers import CUDA_READY, random_image, to_engine, to_host

MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]
DTYPES = [np.bool_, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float32, np.float64]
FNS = ["minimum_filter1d", "maximum_filter1d"]


def check(engine, name, x, *args, **kw):
    """ndimg's `name` on `engine` against scipy's: same dtype, same values (NaN where scipy has NaN)."""
    expected = getattr(sn, name)(x, *args, **kw)
    got = to_host(getattr(nd, name)(to_engine(x, engine), *args, **kw))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected, err_msg=f"{name} {x.shape} {x.strides} {args} {kw}")


def origins(size):
    return sorted({0, -(size // 2), (size - 1) // 2})


def sparse_nan(x, rng):
    """Float data with a NaN in a few lines only, near an end of the line and inside, and +-inf elsewhere:
    flagged lines take the deque, the others the fast schedules."""
    if x.dtype.kind != "f":
        return x
    x = x.copy()
    flat = x.reshape(-1)
    for k in (0, 1, flat.size // 2, flat.size - 1):
        flat[k] = np.nan
    flat[rng.integers(flat.size, size=3)] = np.inf
    flat[rng.integers(flat.size, size=3)] = -np.inf
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_axes_and_windows(engine, rng, dtype, mode):
    # rows: 230 and 97 wide (interior segments of 96 outputs, partial ones, lines shorter than the window);
    # columns: 40 and 17 columns wide (windows of 128 and 129 about the shared-memory limit of float64
    # columns); 3-D: each axis
    for shape in ((5, 230), (97, 17), (3, 40), (4, 9, 33)):
        x = random_image(rng, shape, dtype)
        for axis in range(len(shape)):
            for size in (1, 2, 3, 9, 10, 40, 128, 129):
                for origin in origins(size):
                    for name in FNS:
                        check(engine, name, x, size, axis=axis, mode=mode, cval=0.5, origin=origin)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_long_windows(engine, rng, dtype, mode):
    # windows longer than the short-window kernels take (Gil-Werman per line), clipped and not
    x = random_image(rng, (3, 300), dtype)
    for size, origin in ((257, 0), (300, -150), (301, 150), (1001, 7), (5001, -2500)):
        for name in FNS:
            for axis in (0, 1):
                check(engine, name, x, size, axis=axis, mode=mode, cval=-2.0, origin=origin)


@pytest.mark.parametrize("dtype", DTYPES)
def test_views(engine, rng, dtype):
    base = random_image(rng, (40, 230), dtype)
    views = (np.asfortranarray(base), base[::3, 1::2], base[:, ::-1], base[::-1], base.T,
             random_image(rng, (6, 11, 37), dtype, layout="f"), random_image(rng, (5, 7, 19), dtype, layout="strided"))
    for x in views:
        for axis in range(x.ndim):
            for size, origin in ((3, 0), (9, 4), (60, -3), (400, 0)):
                for name in FNS:
                    check(engine, name, x, size, axis=axis, mode="reflect", origin=origin)
                    check(engine, name, x, size, axis=axis, mode="constant", cval=3.0, origin=origin)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
def test_nan_and_inf(engine, rng, dtype, mode):
    for shape in ((6, 230), (120, 40), (5, 8, 33)):
        x = sparse_nan(random_image(rng, shape, dtype), rng)
        for axis in range(len(shape)):
            for size in (2, 3, 9, 300):
                for origin in origins(size):
                    for name in FNS:
                        check(engine, name, x, size, axis=axis, mode=mode, cval=0.5, origin=origin)
    x = sparse_nan(random_image(rng, (9, 230), dtype), rng)
    for name in FNS:  # NaN cval: every line through the deque, also for the lines without NaN
        check(engine, name, x, 5, axis=1, mode="constant", cval=np.nan)


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32])
def test_nan_cval_and_outputs(engine, rng, dtype):
    x = random_image(rng, (7, 230), dtype)
    for name in FNS:
        for axis in (0, 1):
            check(engine, name, x, 4, axis=axis, mode="constant", cval=np.nan, output=np.float64)
            for out in (np.float64, np.int16, np.uint8, np.bool_, np.float32):
                check(engine, name, x, 5, axis=axis, mode="nearest", output=out)
                check(engine, name, x, 500, axis=axis, mode="wrap", output=out)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
def test_separable_boxes(engine, rng, dtype, mode):
    # minimum_filter/maximum_filter with size= or an all-true footprint: one pass per axis
    for shape, sizes in (((37, 230), (3, 5, (2, 7))), ((9, 11, 40), (3, (1, 4, 3)))):
        x = sparse_nan(random_image(rng, shape, dtype), rng)
        for size in sizes:
            for name in ("minimum_filter", "maximum_filter"):
                check(engine, name, x, size=size, mode=mode, cval=0.5)
        fp = np.ones((3,) * len(shape), bool)
        for name in ("minimum_filter", "maximum_filter"):
            check(engine, name, x, footprint=fp, mode=mode)


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64])
def test_huge_windows_cuda_as_cpu(rng, dtype):
    # size 10**9 (scipy's deque takes seconds a line): the CUDA engine against the CPU engine, which the
    # other tests check against scipy; with NaN both clip the deque's window alike
    for x in (random_image(rng, (4, 300), dtype), sparse_nan(random_image(rng, (5, 140), dtype), rng)):
        for name in FNS:
            for axis in (0, 1):
                for origin in (0, -(10**9 // 2), 10**9 // 2 - 1):
                    kw = dict(axis=axis, mode="nearest", origin=origin)
                    cpu = getattr(nd, name)(x, 10**9, **kw)
                    gpu = to_host(getattr(nd, name)(to_engine(x, "cuda"), 10**9, **kw))
                    np.testing.assert_array_equal(gpu, cpu)


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_cuda_as_cpu(rng, dtype):
    # -0.0 and +0.0 compare equal: both engines keep the first of equal values, so their bits agree
    x = rng.choice(np.array([-0.0, 0.0, 1.0], dtype), size=(33, 230))
    calls = [(name, (size,), dict(axis=axis)) for name in FNS for size in (3, 9, 400) for axis in (0, 1)]
    calls += [(name, (), dict(size=size)) for name in ("minimum_filter", "maximum_filter") for size in (3, 9)]
    for name, args, kw in calls:
        cpu = getattr(nd, name)(x, *args, **kw)
        gpu = to_host(getattr(nd, name)(to_engine(x, "cuda"), *args, **kw))
        np.testing.assert_array_equal(np.signbit(gpu), np.signbit(cpu), err_msg=f"{name} {args} {kw}")
        np.testing.assert_array_equal(gpu, cpu)
