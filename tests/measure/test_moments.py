"""measure's one-pass image moments (_core.measure_image_moments, the GPU engine's moments, moments_central,
centroid and inertia_tensor): shapes and layouts the generated registry cases do not reach, each held to
scikit-image's float64 moments."""
from __future__ import annotations

import numpy as np
import pytest
from skimage import measure as sk_measure

import ndimg.measure as nme
from helpers import to_engine, to_host
from ndimg.measure import _moments


@pytest.mark.parametrize("shape, order", [((3000,), 7), ((5, 2500), 3), ((7, 1, 9), 3), ((3, 4, 2, 3), 1),
                                          ((2, 2, 2, 2, 2, 2), 1), ((0, 4), 3), ((40, 30, 20), 2)])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float16, np.float64, bool])
def test_power_sums(engine, rng, shape, order, dtype):
    """Lines longer than a warp's segment (1024), size-1 and many axes, empty images, every order up to 7."""
    a = (rng.random(shape) * 9).astype(dtype)
    center = rng.random(len(shape)) * 4
    spacing = 0.5 + rng.random(len(shape))
    got = _moments._power_sums(to_engine(a, engine), center, order, spacing)
    exp = sk_measure.moments_central(a.astype(np.float64), center=center, order=order, spacing=spacing)
    assert to_host(got).dtype == np.float64
    np.testing.assert_allclose(to_host(got), exp, rtol=1e-12, atol=1e-9)


def test_power_sums_strided_and_extra_parameters(engine, rng):
    a = rng.random((90, 120))[::-3, 1::2]
    exp = sk_measure.moments(a, order=3, spacing=(0.5, 2.0, 9.0))   # scikit-image ignores the extra spacing
    np.testing.assert_allclose(to_host(_moments._power_sums(to_engine(a, engine), (0, 0), 3, (0.5, 2.0, 9.0))), exp,
                               rtol=1e-12)
    with pytest.raises(IndexError):
        _moments._power_sums(to_engine(a, engine), (0, 0), 3, (1.0,))


@pytest.mark.parametrize("dtype", [np.float32, np.uint16])
def test_moments_family_on_one_pass(engine, rng, dtype):
    """The public functions over those sums (the binomial shift, centroid, inertia tensor on the host for GPU
    images), against scikit-image's float64 computation."""
    a = (rng.random((60, 50, 40)) * 100).astype(dtype)
    ref = a.astype(np.float64)
    x = to_engine(a, engine)
    # float32 on the CPU is scikit-image's float32 sum, off by up to ~1e-4 where the shift cancels
    tol = dict(rtol=1e-3 if dtype == np.float32 else 1e-9)
    mu = sk_measure.moments_central(ref, order=2)   # float32 sums round relative to the largest moments
    np.testing.assert_allclose(to_host(nme.moments_central(x, order=2)), mu, atol=1e-5 * float(np.abs(mu).max()), **tol)
    np.testing.assert_allclose(to_host(nme.centroid(x)), sk_measure.centroid(ref), **tol)
    t = sk_measure.inertia_tensor(ref)   # off-diagonal entries near 0: float32 rounding relative to the diagonal
    np.testing.assert_allclose(to_host(nme.inertia_tensor(x)), t, atol=1e-5 * float(np.abs(t).max()), **tol)
