"""ndimg.accelerate(device="gpu", lazy=True): the LazyArray behaves as the NumPy result in NumPy's own
operations (checked here without a GPU, over a stand-in device array that counts its copies to the host),
the next ndimg call takes its device array, chains equal the eager gpu policy, device memory is freed."""
import copy
import gc
import pickle
import sys

import numpy as np
import pytest
import skimage.filters
import skimage.measure

import ndimg
from ndimg._engine import library_of
from ndimg.accelerate import LazyArray
from ndimg.backends import skimage as backend
from helpers import assert_close, cupy_or_skip


class FakeDevice:
    """A device array stand-in: a private NumPy array reachable through .get() (a counted copy), with the
    comparison operators a device library has."""

    def __init__(self, a):
        self._a = np.asarray(a)
        self.copies = 0

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)

    def get(self):
        self.copies += 1
        return self._a.copy()

    def astype(self, dtype):
        return FakeDevice(self._a.astype(dtype))

    def __gt__(self, other):
        return FakeDevice(self._a > other)

    def __lt__(self, other):
        return FakeDevice(self._a < other)

    __ge__ = lambda self, o: FakeDevice(self._a >= o)
    __le__ = lambda self, o: FakeDevice(self._a <= o)
    __eq__ = lambda self, o: FakeDevice(self._a == o)
    __ne__ = lambda self, o: FakeDevice(self._a != o)


def lazy(a):
    d = FakeDevice(a)
    return LazyArray(d), d


@pytest.fixture(autouse=True)
def _off():
    ndimg.accelerate(False)
    yield
    ndimg.accelerate(False)
    backend.set_numpy_policy(None)


@pytest.fixture
def a(rng):
    return rng.random((6, 7)).astype(np.float32)


def test_metadata_needs_no_copy(a):
    x, d = lazy(a)
    assert (x.shape, x.dtype, x.ndim, x.size, x.nbytes, x.itemsize) == (a.shape, a.dtype, 2, a.size, a.nbytes, 4)
    assert library_of(x) == "numpy" and x.on_device and x.device_array() is d   # host code: NumPy's value
    assert not hasattr(x, "get") and not hasattr(x, "__cuda_array_interface__") and not hasattr(x, "_typ")
    assert d.copies == 0


def test_materializes_once_then_is_the_numpy_array(a):
    x, d = lazy(a)
    h = np.asarray(x)
    assert type(h) is np.ndarray and not isinstance(x, np.ndarray)
    m = x.materialize()                    # the documented answer: the one NumPy array, the same every call
    assert x.materialize() is m and not x.on_device and x.device_array() is None
    if sys.version_info >= (3, 12):  # NumPy reads the __buffer__ first: a view of the materialized array
        assert h is not m and np.shares_memory(h, m) and np.shares_memory(np.asarray(x), m)
    else:                            # 3.11: __array__, the materialized array itself
        assert h is m and np.asarray(x) is m
    np.testing.assert_array_equal(x + 1, a + 1)
    np.testing.assert_array_equal(np.sqrt(x), np.sqrt(a))
    assert d.copies == 1
    assert np.asarray(x, dtype=np.float64).dtype == np.float64 and np.array(x) is not h
    with pytest.raises(ValueError):
        np.asarray(x, dtype=np.float64, copy=False)


def test_arithmetic_and_ufuncs(a):
    b = a[::-1] + 0.5
    for op in ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__"]:
        x, _ = lazy(a)
        np.testing.assert_array_equal(getattr(x, op)(b), getattr(a, op)(b))
    x, _ = lazy(a)
    np.testing.assert_array_equal(2 - x, 2 - a)
    np.testing.assert_array_equal(b / x, b / a)        # ndarray on the left: NumPy defers to __array_ufunc__
    np.testing.assert_array_equal(x @ b.T, a @ b.T)
    np.testing.assert_array_equal(-x, -a)
    np.testing.assert_array_equal(abs(x - 0.5), abs(a - 0.5))
    np.testing.assert_array_equal(np.maximum(x, b), np.maximum(a, b))
    np.testing.assert_array_equal(np.add.reduce(x, axis=1), np.add.reduce(a, axis=1))
    q, r = divmod(x, 0.3)
    np.testing.assert_array_equal(q, divmod(a, 0.3)[0])
    i, _ = lazy((a * 10).astype(np.int32))
    np.testing.assert_array_equal(~i & 7 | 1 ^ (i << 1) >> 2, ~(a * 10).astype(np.int32) & 7 | 1 ^
                                  ((a * 10).astype(np.int32) << 1) >> 2)


def test_reductions_methods_and_functions(a):
    x, _ = lazy(a)
    assert x.sum() == a.sum() and np.mean(x) == a.mean() and x.max(axis=0).tolist() == a.max(axis=0).tolist()
    np.testing.assert_array_equal(x.T, a.T)
    np.testing.assert_array_equal(x.astype(np.uint8), a.astype(np.uint8))
    np.testing.assert_array_equal(np.concatenate([x, x]), np.concatenate([a, a]))
    np.testing.assert_array_equal(np.where(x > 0.5, x, 0), np.where(a > 0.5, a, 0))
    assert np.allclose(x, a) and np.array_equal(x, a)
    assert x.__array_namespace__() is np
    assert type(x.copy()) is np.ndarray and type(copy.deepcopy(x)) is np.ndarray


def test_indexing_iteration_and_scalars(a):
    x, _ = lazy(a)
    np.testing.assert_array_equal(x[1:3, ::2], a[1:3, ::2])
    np.testing.assert_array_equal(x[x > 0.5], a[a > 0.5])
    assert len(x) == 6 and [r.tolist() for r in x] == [r.tolist() for r in a]
    one, _ = lazy(np.array(2.5))
    assert float(one) == 2.5 and int(one) == 2 and bool(one) and complex(one) == 2.5
    idx, _ = lazy(np.array(3))
    assert [10, 11, 12, 13][idx] == 13
    with pytest.raises(TypeError):    # as NumPy: only 0-d arrays convert
        float(lazy(np.array([2.5]))[0])
    with pytest.raises(ValueError):
        bool(lazy(a)[0])
    with pytest.raises(TypeError):
        len(lazy(np.array(1.0))[0])


def test_inplace_updates_after_materialization_are_seen(a):
    x, _ = lazy(a)
    h = x.materialize()
    x[0, 0] = 7
    x += 1
    np.add(x, 1, out=x)
    assert isinstance(x, LazyArray) and h[0, 0] == 9 and np.shares_memory(np.asarray(x), h)
    np.testing.assert_array_equal(h[1:], a[1:] + np.float32(1) + np.float32(1))
    # ndimg's next call reads the updated NumPy array (CPU engine here: the device copy is gone)
    np.testing.assert_array_equal(ndimg.filters.gaussian(x, sigma=1), ndimg.filters.gaussian(h, sigma=1))


def test_comparison_with_a_scalar_stays_on_the_device(a):
    x, d = lazy(a)
    for t in [0.5, 0.1, np.float64(0.1), np.float32(0.3), 1]:  # NumPy's promotion: weak Python scalars
        m = x > t
        assert isinstance(m, LazyArray) and m.on_device and m.dtype == bool
        np.testing.assert_array_equal(m, a > t)
    np.testing.assert_array_equal(x <= 0.25, a <= 0.25)
    np.testing.assert_array_equal(x == a[0, 0], a == a[0, 0])
    assert d.copies == 0
    u, du = lazy(np.array([0, 200, 255], np.uint8))
    np.testing.assert_array_equal(u > 300, np.array([False] * 3))  # outside uint8: NumPy's answer, on the host
    assert du.copies == 1
    y, dy = lazy(a)
    np.testing.assert_array_equal(y > a.T.T, a > a)    # an array operand: on the host
    assert dy.copies == 1


def test_repr_pickle_and_buffer(a):
    x, _ = lazy(a)
    assert repr(x) == repr(a) and str(x) == str(a) and f"{lazy(np.array(1.5))[0]:.2f}" == "1.50"
    y = pickle.loads(pickle.dumps(lazy(a)[0]))
    assert type(y) is np.ndarray
    np.testing.assert_array_equal(y, a)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(lazy(a)[0], protocol=5)), a)
    z, _ = lazy(a)
    if sys.version_info >= (3, 12):  # PEP 688: __buffer__ materializes
        assert memoryview(z).tobytes() == a.tobytes()
    else:                            # 3.11: no Python-level buffers; np.asarray goes through __array__
        with pytest.raises(TypeError):
            memoryview(z)
        assert memoryview(z.materialize()).tobytes() == a.tobytes()


def test_matplotlib_imshow(a):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def render(image):
        fig, ax = plt.subplots(figsize=(2, 2), dpi=50)
        try:
            im = ax.imshow(image)
            fig.colorbar(im)
            fig.canvas.draw()
            return im.get_array(), np.asarray(fig.canvas.buffer_rgba()).copy()
        finally:
            plt.close(fig)

    data, pixels = render(lazy(a)[0])
    expected_data, expected_pixels = render(a)
    np.testing.assert_array_equal(data, expected_data)
    np.testing.assert_array_equal(pixels, expected_pixels)


def test_accelerate_arguments():
    with pytest.raises(ValueError, match="lazy=True needs device='gpu'"):
        ndimg.accelerate(lazy=True)
    with pytest.raises(ValueError, match="device must be"):
        ndimg.accelerate(device="tpu")
    backend.set_numpy_policy("cpu")
    with ndimg.accelerated(device="gpu", lazy=True):
        assert ndimg.accelerate.is_enabled() and backend.get_numpy_policy() == "gpu"
        assert ndimg.accelerate._lazy.is_lazy()
    assert not ndimg.accelerate.is_enabled() and backend.get_numpy_policy() == "cpu"
    assert not ndimg.accelerate._lazy.is_lazy()


def test_materialized_lazy_runs_ndimg_under_accelerate(a):
    x, _ = lazy(a)
    x.materialize()
    with ndimg.accelerated(device="cpu"):
        ndimg.accelerate.reset_stats()
        got = skimage.filters.gaussian(x, sigma=1.5)
        assert ndimg.accelerate.stats()["skimage.filters:gaussian"] == {"ndimg": 1, "skimage": 0}
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, ndimg.filters.gaussian(a, sigma=1.5))


# --- on the GPU --------------------------------------------------------------------------------------------------
def _chain(img):
    """The five-function chain of bench/lazy_chain.py, as NumPy code would write it."""
    smooth = skimage.filters.gaussian(img, sigma=2)
    edges = skimage.filters.sobel(smooth)
    mask = edges > skimage.filters.threshold_otsu(edges)
    labels = skimage.measure.label(mask)
    table = skimage.measure.regionprops_table(labels, intensity_image=smooth,
                                              properties=("label", "area", "centroid", "intensity_mean"))
    return smooth, edges, mask, labels, table


def _blocks(rng, n=512):
    img = np.kron(rng.random((n // 32, n // 32)), np.ones((32, 32))) + 0.05 * rng.standard_normal((n, n))
    return img.astype(np.float32)


def test_gpu_chain_equals_eager(rng):
    cupy_or_skip()
    img = _blocks(rng)
    with ndimg.accelerated(device="gpu"):
        backend.set_numpy_policy("gpu", force_gpu=True)   # every call round-trips: the eager GPU results
        eager = _chain(img)
    with ndimg.accelerated(device="gpu", lazy=True):
        got = _chain(img)
    for g in got[:4]:
        assert isinstance(g, LazyArray) and g.on_device    # nothing touched them: no copy came down
    for g, e in zip(got[:4], eager[:4]):
        assert type(e) is np.ndarray
        np.testing.assert_array_equal(np.asarray(g), e)
    assert got[4].keys() == eager[4].keys()
    for k in eager[4]:
        assert type(got[4][k]) is np.ndarray
        np.testing.assert_array_equal(got[4][k], eager[4][k])


def test_gpu_direct_calls_take_the_device_array(rng):
    cp = cupy_or_skip()
    a = rng.random((300, 200)).astype(np.float32)
    x = LazyArray(cp.asarray(a))
    dev = x.device_array()
    with ndimg.accelerated(device="gpu", lazy=True):
        y = ndimg.filters.sobel(x)
        both = ndimg.filters.sobel(x, mask=np.ones(a.shape, bool))   # a NumPy argument goes up beside it
    assert x.on_device and x.device_array() is dev                  # taken as is, not copied down
    assert isinstance(y, LazyArray) and y.on_device and isinstance(both, LazyArray)
    np.testing.assert_array_equal(np.asarray(y), ndimg.filters.sobel(dev).get())
    # a mask zeroes the image border (scikit-image erodes it by the kernel's reach), as the reference does
    assert_close(np.asarray(both), skimage.filters.sobel(a, mask=np.ones(a.shape, bool)), "filters.sobel")
    assert (np.asarray(both)[[0, -1]] == 0).all() and (np.asarray(both)[:, [0, -1]] == 0).all()
    np.testing.assert_array_equal(np.asarray(both)[1:-1, 1:-1], np.asarray(y)[1:-1, 1:-1])
    z = ndimg.filters.sobel(x)            # lazy off: the device array is used, the result is NumPy's
    assert type(z) is np.ndarray and x.on_device
    np.testing.assert_array_equal(z, np.asarray(y))
    with pytest.raises(TypeError, match="cannot mix lazy"):
        ndimg.filters.sobel(x, mask=cp.ones(a.shape, bool))


def test_gpu_inplace_update_is_what_the_next_call_sees(rng):
    cupy_or_skip()
    img = _blocks(rng, 512)   # above the separable family's crossover
    with ndimg.accelerated(device="gpu", lazy=True):
        smooth = skimage.filters.gaussian(img, sigma=2)
        smooth[:128] = 0                                   # materializes, then NumPy writes
        edges = skimage.filters.sobel(smooth)
    assert isinstance(edges, LazyArray)    # the updated NumPy array went up again by the gpu policy
    host = np.asarray(smooth)
    assert (host[:128] == 0).all() and host[128:].any()
    assert_close(np.asarray(edges), ndimg.filters.sobel(host), "filters.sobel")


def test_gpu_memory_freed_when_the_proxy_dies():
    cp = cupy_or_skip()
    pool = cp.get_default_memory_pool()
    gc.collect()        # earlier tests' garbage holds device arrays: freed now, not by the collect below
    cp.cuda.Device().synchronize()
    before = pool.used_bytes()
    x = LazyArray(cp.ones((1 << 22,), cp.float32))
    held = pool.used_bytes()
    assert held >= before + (1 << 24)
    del x
    gc.collect()
    assert pool.used_bytes() <= min(before, held - (1 << 24))
    y = LazyArray(cp.ones((1 << 22,), cp.float32))
    held = pool.used_bytes()
    y.materialize()                                        # the device copy goes with the first NumPy use
    assert pool.used_bytes() <= min(before, held - (1 << 24))


class FakeCuda(FakeDevice):
    """A device result stand-in: what wrap() takes for a device array."""

    __cuda_array_interface__ = {}
    ndim = property(lambda self: self._a.ndim)


def test_direct_call_dispatch_without_a_gpu(monkeypatch, a):
    """The engine's routing of LazyArray arguments, with the device steps stood in: a device-resident one goes
    to the GPU schedule as its device array, a NumPy one beside it goes up, results come back lazy (lazy=True)
    or as NumPy; materialized ones run on the CPU engine."""
    from ndimg import _engine
    from ndimg.accelerate import _lazy

    ran = []

    def as_working(v):
        if isinstance(v, LazyArray):
            return v.device_array()
        return ("up", v) if isinstance(v, np.ndarray) else v

    def run_on_gpu(call, first, fn, args, kwargs):
        ran.append((first, args, kwargs))
        image = args[0]._a
        mask = kwargs.get("mask")
        return FakeCuda(fn(image, mask=None if mask is None else mask[1]))

    monkeypatch.setattr(_lazy, "as_working", as_working)
    monkeypatch.setattr(_engine, "_run_on_gpu", run_on_gpu)
    monkeypatch.setattr(_engine, "_cupy", lambda: None)
    d = FakeCuda(a)
    x = LazyArray(d)
    mask = a > 0.3
    _lazy.set_lazy(True)
    try:
        y = ndimg.filters.sobel(x, mask=mask)
    finally:
        _lazy.set_lazy(False)
    assert ran[0][0] is d and ran[0][1][0] is d and ran[0][2]["mask"][1] is mask and d.copies == 0
    assert isinstance(y, LazyArray) and y.on_device
    np.testing.assert_array_equal(y, ndimg.filters.sobel(a, mask=mask))
    z = ndimg.filters.sobel(x)                       # lazy off: NumPy out
    assert type(z) is np.ndarray and d.copies == 0
    np.testing.assert_array_equal(z, ndimg.filters.sobel(a))
    x.materialize()
    ran.clear()
    np.testing.assert_array_equal(ndimg.filters.sobel(x), ndimg.filters.sobel(a))
    assert not ran                                   # materialized: the CPU engine, no device step
