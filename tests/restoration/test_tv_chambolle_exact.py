"""denoise_tv_chambolle on the CPU engine against scikit-image 0.26 bit for bit: each element's float32/float64
arithmetic in NumPy's order and the energy's sums in NumPy's pairwise order, so the stopping test stops at
scikit-image's iteration, at every thread count."""
import numpy as np
import pytest
import skimage.restoration as sr

import ndimg
from ndimg import restoration as nr
from helpers import assert_raises_like, random_image


def _bits_equal(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got.view(np.uint8),
                                                                                 want.view(np.uint8))


@pytest.mark.parametrize("shape", [(37,), (19, 24), (130, 97), (8, 9, 10), (21, 17, 30), (3, 5, 4, 6)])
@pytest.mark.parametrize("kw", [dict(), dict(weight=0.3, eps=3e-3), dict(weight=0.05, eps=1e-2),
                                dict(weight=2, eps=1e-5, max_num_iter=300), dict(weight=0.2, eps=0, max_num_iter=7)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tv_chambolle_bits(rng, shape, kw, dtype):
    x = random_image(rng, shape, dtype)
    assert _bits_equal(nr.denoise_tv_chambolle(x, **kw), sr.denoise_tv_chambolle(x, **kw))


@pytest.mark.parametrize("eps", [2e-4, 1e-3, 5e-3, 2e-2])
def test_tv_chambolle_stops_where_scikit_image_does(rng, eps):
    # scikit-image stops before max_num_iter here (its result differs from the never-stopping eps=0 one)
    x = (rng.random((64, 75)) + 0.2 * rng.standard_normal((64, 75))).astype(np.float32)
    want = sr.denoise_tv_chambolle(x, weight=0.15, eps=eps, max_num_iter=500)
    assert not np.array_equal(want, sr.denoise_tv_chambolle(x, weight=0.15, eps=0.0, max_num_iter=500))
    assert _bits_equal(nr.denoise_tv_chambolle(x, weight=0.15, eps=eps, max_num_iter=500), want)


@pytest.mark.parametrize("seed", [22, 42])
def test_tv_chambolle_order_sensitive_stop(seed):
    # inputs where the energies summed in float64 (in any order) would stop at another iteration than
    # scikit-image's float32 pairwise sums (2 of 60 such seeds)
    r = np.random.default_rng(seed)
    x = (r.random((64, 75)) + 0.2 * r.standard_normal((64, 75))).astype(np.float32)
    kw = dict(eps=float(10 ** r.uniform(-5, -2)), weight=float(r.uniform(0.05, 0.5)), max_num_iter=300)
    assert _bits_equal(nr.denoise_tv_chambolle(x, **kw), sr.denoise_tv_chambolle(x, **kw))


@pytest.mark.parametrize("shape,channel_axis", [((30, 41, 3), -1), ((3, 30, 41), 0), ((12, 5, 3, 9), 1)])
@pytest.mark.parametrize("dtype", ["float32", "uint8", "float16"])
def test_tv_chambolle_channels_bits(rng, shape, channel_axis, dtype):
    x = random_image(rng, shape, dtype)
    kw = dict(weight=0.2, eps=1e-3, channel_axis=channel_axis)
    assert _bits_equal(nr.denoise_tv_chambolle(x, **kw), sr.denoise_tv_chambolle(x, **kw))


def test_tv_chambolle_numpy_scalar_arguments(rng):
    # NumPy scalars promote as strong types in the energy and the dual step: scikit-image's results still
    x = random_image(rng, (40, 33), "float32")
    for kw in (dict(weight=np.float32(0.3)), dict(weight=np.float64(0.3), eps=np.float32(1e-3))):
        assert _bits_equal(nr.denoise_tv_chambolle(x, **kw), sr.denoise_tv_chambolle(x, **kw))


@pytest.mark.parametrize("shape", [(300, 257), (40, 50, 60)])
def test_tv_chambolle_thread_count(rng, shape):
    # large enough for the sweeps and the energy's block sums to split over two threads
    x = random_image(rng, shape, "float32")
    kw = dict(weight=0.1, eps=1e-3, max_num_iter=40)
    before = ndimg.get_num_threads()
    try:
        ndimg.set_num_threads(1)
        one = nr.denoise_tv_chambolle(x, **kw)
        ndimg.set_num_threads(2)
        two = nr.denoise_tv_chambolle(x, **kw)
    finally:
        ndimg.set_num_threads(before)
    assert _bits_equal(one, two)
    assert _bits_equal(two, sr.denoise_tv_chambolle(x, **kw))


@pytest.mark.parametrize("weight", [0, 0.0])
def test_tv_chambolle_zero_weight(rng, weight):
    x = random_image(rng, (6, 7), "float32")
    assert_raises_like(lambda: sr.denoise_tv_chambolle(x, weight=weight),
                       lambda: nr.denoise_tv_chambolle(x, weight=weight), ZeroDivisionError)
