"""util.random_noise on each engine for images larger than one draw chunk (the threaded salt-and-pepper
draws, the scaled standard normal draws): scikit-image's values bit for bit from the same generator, which
is left where scikit-image leaves it."""
import numpy as np
import pytest
import skimage.util as sku

import ndimg.util as nu
from helpers import to_engine, to_host


@pytest.mark.parametrize("mode, kw", [("gaussian", {}), ("gaussian", dict(mean=0.2, var=0.5)),
                                      ("speckle", dict(mean=-0.1, var=0.02)), ("gaussian", dict(var=0)),
                                      ("s&p", dict(amount=0.3, salt_vs_pepper=0.2)), ("salt", {}),
                                      ("pepper", dict(amount=1)), ("s&p", dict(amount=0.5, clip=False))])
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_large_noise_is_scikit_images(engine, rng, mode, kw, dtype):
    image = (rng.random((601, 503)) * (255 if dtype == "uint8" else 1)).astype(dtype)
    ours, ref = np.random.default_rng(21), np.random.default_rng(21)
    got = to_host(nu.random_noise(to_engine(image, engine), mode=mode, rng=ours, **kw))
    want = sku.random_noise(image, mode=mode, rng=ref, **kw)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert ours.bit_generator.state == ref.bit_generator.state


def test_large_noise_other_generators(engine, rng):
    """A generator that cannot jump (MT19937) draws the salt-and-pepper streams whole; a scale given as an
    integer or NumPy scalar still scales standard draws exactly."""
    image = rng.random((600, 500))
    for mode, kw in (("s&p", dict(amount=0.2)), ("gaussian", dict(mean=np.float32(0.25), var=1))):
        ours, ref = (np.random.Generator(np.random.MT19937(4)) for _ in range(2))
        got = to_host(nu.random_noise(to_engine(image, engine), mode=mode, rng=ours, **kw))
        np.testing.assert_array_equal(got, sku.random_noise(image, mode=mode, rng=ref, **kw))


@pytest.mark.parametrize("amount, salt_vs_pepper", [(0.3, 0.2), (0, 0.5), (1, 0.4), (0.05, 1), (0.7, 0)])
@pytest.mark.parametrize("shape", [(1,), (17, 23), (3, 65, 70)])
def test_pcg64_masks_are_bernoulli_draws(engine, amount, salt_vs_pepper, shape):
    """The salt-and-pepper masks from ndimg's copy of NumPy's PCG64 stream (the GPU path, here on each
    engine's library): _bernoulli's two draws, and the generator left where they leave it."""
    from ndimg.util._noise import _bernoulli, _pcg64_masks
    xp = np
    if engine == "cuda":
        import cupy as xp
    ours, ref = np.random.default_rng(8), np.random.default_rng(8)
    ours.random(3), ref.random(3)
    got = _pcg64_masks(xp, ours, shape, amount, salt_vs_pepper)
    want = (_bernoulli(amount, shape, ref), _bernoulli(salt_vs_pepper, shape, ref))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(to_host(g), w)
    assert ours.bit_generator.state == ref.bit_generator.state


@pytest.mark.parametrize("offset", [0, 1, 31, 1 << 40])
def test_pcg64_random_is_numpys(engine, offset):
    from ndimg._prim import random
    xp = np
    if engine == "cuda":
        import cupy as xp
    bits = np.random.PCG64(2024)
    bits.advance(5)
    keep = bits.state
    got = to_host(random.pcg64_random(bits, offset=offset, out=xp.empty((37, 1001)))).view(np.uint64)
    assert bits.state == keep
    ref = np.random.PCG64(2024)
    ref.advance(5 + offset)
    np.testing.assert_array_equal(got, np.random.Generator(ref).random((37, 1001)).view(np.uint64))
    with pytest.raises(TypeError, match="PCG64"):
        random.pcg64_random(np.random.MT19937(1), offset=0, out=np.empty(3))
