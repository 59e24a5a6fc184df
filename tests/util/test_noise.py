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
