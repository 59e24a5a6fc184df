"""denoise_tv_bregman on both engines against scikit-image where the registry's small cases do not reach the
wavefront schedules' corners: sizes around their tiles (32 x 32 on the GPU, 64 x 128 on the CPU: one tile, a
partial tile, several tile anti-diagonals, tall and wide images), channels swept together and one at a time
(scikit-image reuses one output across channels), anisotropic shrinkage, and stopping tests decided to the
last bit (eps equal to a sweep's root mean square update, which the tiles' sums cannot tell from its
neighbours: the raster-order sum decides). float64 equals scikit-image to the bit on both engines; float32
(where scikit-image rounds some pixels one unit apart) is within the registry's tolerance, and the CUDA engine
equals the CPU one to the bit."""
import numpy as np
import pytest
import skimage.restoration as sk

import ndimg.restoration as nr
from helpers import assert_close, to_engine, to_host

NAME = "restoration.denoise_tv_bregman"

CASES = {
    "31": ((31, 31), {}),
    "32": ((32, 32), {}),
    "33": ((33, 33), {}),
    "65": ((65, 65), dict(weight=2.0)),
    "tall": ((97, 33), dict(weight=1.0)),
    "wide": ((31, 70), dict(weight=3.0)),
    "two_rows": ((2, 45), {}),
    "two_cols": ((40, 2), {}),
    "anisotropic": ((33, 65), dict(weight=1.5, isotropic=False)),
    "anisotropic_eps0": ((65, 31), dict(isotropic=False, eps=0.0, max_num_iter=4)),
    "eps0": ((64, 33), dict(eps=0.0, max_num_iter=3)),
    "channels_together": ((33, 40, 3), dict(weight=2.0)),
    "channels_one_at_a_time": ((33, 40, 3), dict(weight=2.0, channel_axis=-1)),
    "channels_first": ((4, 31, 33), dict(channel_axis=0, isotropic=False)),
    "many_channels": ((17, 35, 9), dict(max_num_iter=6)),
    "many_tiles": ((230, 301), dict(max_num_iter=8, eps=1e-4)),
}


def _image(shape, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    smooth = np.cumsum(rng.random(shape), axis=0) / shape[0]
    return np.clip(smooth + rng.normal(0, 0.1, shape), 0, 1).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(CASES))
def test_against_scikit_image(engine, name, dtype):
    shape, kw = CASES[name]
    image = _image(shape, len(name), dtype)
    expected = sk.denoise_tv_bregman(image, **kw)
    got = nr.denoise_tv_bregman(to_engine(image, engine), **kw)
    assert type(got) is type(to_engine(image, engine))
    got = to_host(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if dtype == np.float64:
        np.testing.assert_array_equal(got, expected)
    else:
        assert_close(got, expected, NAME)
        if engine != "cpu":
            np.testing.assert_array_equal(got, nr.denoise_tv_bregman(image, **kw))


def _rmse(image, sweeps, **kw):
    """The root mean square update of scikit-image's sweep `sweeps` (1-based), summed as its loop does: the
    squared float updates in double, one after the other in raster order."""
    before, after = (sk.denoise_tv_bregman(image, max_num_iter=n, eps=0.0, **kw) for n in (sweeps - 1, sweeps))
    squares = ((after - before) ** 2).astype(np.float64).ravel()
    return float(np.sqrt(np.cumsum(squares)[-1] / squares.size))


# a sweep whose update is smaller than every earlier one's (so that eps equal to it stops there first)
@pytest.mark.parametrize("shape,kw,sweeps", [((70, 97), {}, 3), ((33, 31), dict(isotropic=False, weight=1.0), 5)])
def test_stopping_test_to_the_bit(engine, shape, kw, sweeps):
    image = _image(shape, 7)
    rmse = _rmse(image, sweeps, **kw)
    # eps = that sweep's update stops after it; one unit below, the loop goes on to the next sweep
    results = []
    for eps in (rmse, np.nextafter(rmse, 0.0)):
        expected = sk.denoise_tv_bregman(image, eps=eps, **kw)
        got = to_host(nr.denoise_tv_bregman(to_engine(image, engine), eps=eps, **kw))
        np.testing.assert_array_equal(got, expected)
        results.append(expected)
    np.testing.assert_array_equal(results[0], sk.denoise_tv_bregman(image, eps=0.0, max_num_iter=sweeps, **kw))
    assert not np.array_equal(results[0], results[1])
