"""Bad and odd input to the ndimage primitives (issue 22, item 7), each against scipy.ndimage: huge windows,
NaN in the image, NaN and tiny weights, bool data, arrays the binding cannot view."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import _core
from ndimg import ndimage as nd
from helpers import to_engine, to_host

MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]


def _run_limited(code, gib=4):
    """Runs `code` in a fresh interpreter whose address space is capped at `gib` GiB (a huge allocation fails
    there instead of swapping this machine); returns its stdout."""
    prog = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({gib} << 30, {gib} << 30))
    """) + textwrap.dedent(code)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    return r.stdout


def _nan_image(rng, shape, dtype, frac=0.15):
    x = rng.normal(0, 10, shape).astype(dtype)
    x[rng.random(shape) < frac] = np.nan
    return x


def _same(got, expected):
    np.testing.assert_array_equal(to_host(got), expected)


# --- huge windows: scipy returns a result; ours must too, with memory bounded by the image ---

def _fold_mean(line, size, mode, cval=0.0):
    """Reference mean of `size` values around each index of a 1-D line under scipy's extension, computed
    from the definition of each mode's periodic extension (reflect, mirror, wrap)."""
    n = len(line)
    ext = {"reflect": np.concatenate([line, line[::-1]]), "wrap": line,
           "mirror": np.concatenate([line, line[-2:0:-1]]) if n > 1 else line}[mode]
    p = len(ext)
    left = size // 2
    full, part = divmod(size, p)
    out = np.empty(n)
    for i in range(n):
        idx = (i - left + np.arange(part)) % p
        out[i] = (full * ext.sum() + ext[idx].sum()) / size
    return out


@pytest.mark.parametrize("mode", ["reflect", "mirror", "wrap"])
def test_uniform_filter_huge_window(mode):
    # uniform_filter(img, size=(10**9, 1)) and uniform_filter1d(img, 10**9) aborted the process
    out = _run_limited(f"""
        import numpy as np
        from ndimg import ndimage as nd
        img = np.random.default_rng(3).random((6, 5))
        a = nd.uniform_filter(img, size=(10**9, 1), mode={mode!r})
        b = nd.uniform_filter1d(img, 10**9, mode={mode!r})
        np.save("/dev/stdout", np.stack([a, b]))
    """.replace('np.save("/dev/stdout", np.stack([a, b]))', 'print(repr(np.stack([a, b]).tolist()))'))
    a, b = np.array(eval(out))
    img = np.random.default_rng(3).random((6, 5))
    ref_a = np.stack([_fold_mean(img[:, j], 10**9, mode) for j in range(5)], axis=1)
    ref_b = np.stack([_fold_mean(img[i], 10**9, mode) for i in range(6)])
    np.testing.assert_allclose(a, ref_a, rtol=1e-9)
    np.testing.assert_allclose(b, ref_b, rtol=1e-9)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_uniform_filter1d_window_beyond_the_line(engine, mode, dtype):
    # windows far longer than the line take the long-window schedule; scipy still fits them in memory here
    img = (np.random.default_rng(4).random((7, 9)) * 200).astype(dtype)
    for size, origin in [(10**5, 0), (10**5 + 1, -3), (1001, 7)]:
        got = nd.uniform_filter1d(to_engine(img, engine), size, axis=0, mode=mode, cval=3.5, origin=origin)
        ref = ndi.uniform_filter1d(img, size, axis=0, mode=mode, cval=3.5, origin=origin)
        np.testing.assert_allclose(to_host(got), ref, rtol=1e-5 if dtype == np.float32 else 1e-9, atol=0 if
                                   dtype != np.uint8 else 1)


def test_min_max_filter_huge_window_bounded_memory():
    # minimum_filter/maximum_filter(img, size=10**9) and the 1-D variants allocated 7.5 GiB; a window longer
    # than twice the image sees every value the image's extension holds, as scipy's 10**5 window does
    out = _run_limited("""
        import numpy as np
        from ndimg import ndimage as nd
        img = np.random.default_rng(5).normal(size=(7, 6))
        r = [nd.minimum_filter(img, size=10**9), nd.maximum_filter(img, size=10**9),
             nd.minimum_filter1d(img, 10**9, mode="constant", cval=-9.0), nd.maximum_filter1d(img, 10**9, axis=0,
             mode="nearest")]
        print(repr(np.stack(r).tolist()))
    """, gib=3)
    got = np.array(eval(out))
    img = np.random.default_rng(5).normal(size=(7, 6))
    ref = [ndi.minimum_filter(img, size=10**5), ndi.maximum_filter(img, size=10**5),
           ndi.minimum_filter1d(img, 10**5, mode="constant", cval=-9.0),
           ndi.maximum_filter1d(img, 10**5, axis=0, mode="nearest")]
    np.testing.assert_array_equal(got, np.stack(ref))


@pytest.mark.parametrize("mode", MODES)
def test_min_max_filter1d_windows_beyond_the_line(engine, mode):
    img = np.random.default_rng(6).normal(size=(5, 8)).astype(np.float32)
    for size, origin in [(40, 0), (41, -20), (33, 16), (1000, 3)]:
        for name in ("minimum_filter1d", "maximum_filter1d"):
            got = getattr(nd, name)(to_engine(img, engine), size, axis=1, mode=mode, cval=0.5, origin=origin)
            _same(got, getattr(ndi, name)(img, size, axis=1, mode=mode, cval=0.5, origin=origin))


# --- NaN in the image: scipy's comparisons decide where NaN goes ---

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
def test_nan_min_max_filter1d(engine, rng, dtype, mode):
    x = _nan_image(rng, (11, 37), dtype)
    for size in (2, 3, 4, 7, 40):
        for origin in {0, -(size // 2), (size - 1) // 2}:
            for name in ("minimum_filter1d", "maximum_filter1d"):
                for axis in (0, 1):
                    got = getattr(nd, name)(to_engine(x, engine), size, axis=axis, mode=mode, origin=origin)
                    _same(got, getattr(ndi, name)(x, size, axis=axis, mode=mode, origin=origin))


def test_nan_cval_in_integer_data(engine, rng):
    x = rng.integers(0, 50, (9, 12)).astype(np.int16)
    for name in ("minimum_filter1d", "maximum_filter1d"):
        for size, origin in ((3, 0), (4, 1), (6, -3)):
            kw = dict(mode="constant", cval=np.nan, origin=origin, output=np.float64)
            _same(getattr(nd, name)(to_engine(x, engine), size, **kw), getattr(ndi, name)(x, size, **kw))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_min_max_filter(engine, rng, dtype):
    x = _nan_image(rng, (13, 17), dtype)
    fp = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], bool)
    for name in ("minimum_filter", "maximum_filter"):
        for kw in (dict(size=3), dict(size=(2, 5)), dict(footprint=fp), dict(footprint=fp, mode="constant")):
            _same(getattr(nd, name)(to_engine(x, engine), **kw), getattr(ndi, name)(x, **kw))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_median_rank_percentile(engine, rng, dtype):
    x = _nan_image(rng, (14, 19), dtype)
    fp = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], bool)
    xe = to_engine(x, engine)
    for kw in (dict(size=3), dict(size=5), dict(size=(3, 4)), dict(footprint=fp), dict(size=7, mode="wrap")):
        _same(nd.median_filter(xe, **kw), ndi.median_filter(x, **kw))
        _same(nd.rank_filter(xe, 2, **kw), ndi.rank_filter(x, 2, **kw))
        _same(nd.percentile_filter(xe, 70, **kw), ndi.percentile_filter(x, 70, **kw))


# --- weights: scipy leaves out those with |w| <= DBL_EPSILON, NaN among them ---

@pytest.mark.parametrize("name", ["correlate", "convolve"])
def test_nan_and_tiny_weights(engine, rng, name):
    x = rng.normal(size=(9, 10))
    xe = to_engine(x, engine)
    for w in (np.full((3, 3), np.nan), np.array([[np.nan, 1.0, 2.0], [1e-17, 0.5, -1e-300]]),
              np.array([[1.0, np.nan], [-2.0, 3.0]])):
        np.testing.assert_array_equal(to_host(getattr(nd, name)(xe, w)), getattr(ndi, name)(x, w))


# --- bool data: scipy writes a bool output through an unsigned char cast, and a chain of passes reads
# those bytes back ---

BOOL_CASES = [
    ("gaussian_filter", (1.5,), {}), ("gaussian_filter", (0.7,), dict(mode="constant")),
    ("uniform_filter", (3,), {}), ("uniform_filter1d", (4,), {}), ("sobel", (), {}), ("sobel", (0,), {}),
    ("prewitt", (), {}), ("correlate", (np.ones((3, 3)),), {}), ("convolve", (np.array([[1, -2, 1.0]]),), {}),
    ("correlate1d", ([-1.0, 0.5, 2.0],), {}), ("gaussian_laplace", (1.0,), {}), ("laplace", (), {}),
    ("median_filter", (3,), {}), ("maximum_filter", (3,), {}),
]


@pytest.mark.parametrize("name,args,kw", BOOL_CASES, ids=[c[0] for c in BOOL_CASES])
def test_bool_input(engine, rng, name, args, kw):
    b = rng.random((20, 24)) > 0.5
    got = to_host(getattr(nd, name)(to_engine(b, engine), *args, **kw))
    ref = getattr(ndi, name)(b, *args, **kw)
    assert got.dtype == ref.dtype == np.bool_
    np.testing.assert_array_equal(got.view(np.uint8) != 0, ref.view(np.uint8) != 0)


def test_bool_output_of_float_data(rng):
    x = rng.normal(0, 300, (12, 13))
    for name, args in (("gaussian_filter", (1.0,)), ("uniform_filter", (3,)), ("correlate1d", ([1.0, -0.25],))):
        got = getattr(nd, name)(x, *args, output=bool)
        ref = getattr(ndi, name)(x, *args, output=bool)
        np.testing.assert_array_equal(got.view(np.uint8) != 0, ref.view(np.uint8) != 0)


# --- arrays the binding cannot view: a TypeError naming the argument ---

@pytest.mark.parametrize("call", [
    lambda a, o: _core.rank_filter(a, o, [0, 0], 0, _core.Mode.reflect, 0.0),
    lambda a, o: _core.correlate(a, o, [0, 0], [1.0], _core.Mode.reflect, 0.0),
    lambda a, o: _core.min_max_filter1d(a, o, 3, 0, _core.Mode.reflect, 0.0, 0, True),
    lambda a, o: _core.separable(a, o, [_core.Pass1d(0, [1.0], _core.Mode.reflect, 0.0, 0, 0)]),
], ids=["rank_filter", "correlate", "min_max_filter1d", "separable"])
def test_binding_names_a_non_native_array(call):
    native = np.zeros((4, 4), np.float32)
    swapped = np.zeros((4, 4), ">f4")
    with pytest.raises(TypeError, match=r"^input: .*native byte order.*>f4"):
        call(swapped, native)
    with pytest.raises(TypeError, match=r"^output: "):
        call(native, swapped)
    with pytest.raises(TypeError, match=r"^input: .*list"):
        call([[1.0]], native)
    readonly = np.zeros((4, 4), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(TypeError, match=r"^output: expected a writable array"):
        call(native, readonly)
