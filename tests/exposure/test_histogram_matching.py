"""exposure.match_histograms' quantile interpolation in whole-array operations (the GPU engine's path for float
sources): np.interp's values bit for bit, its special cases included, and match_histograms on each engine
equal to scikit-image's for float sources with many distinct values."""
import numpy as np
import pytest
import skimage.exposure as ske

import ndimg.exposure as ne
from ndimg.exposure._histogram_matching import _interp
from helpers import to_engine, to_host


def _bits(a):
    return np.asarray(a, np.float64).view(np.uint64)


@pytest.mark.parametrize("n", [1, 2, 7, 1000])
def test_interp_is_numpys(engine, rng, n):
    xq = np.cumsum(rng.integers(1, 5, n)) / 4.0 / n
    fq = np.sort(rng.standard_normal(n)) * 1e3
    fq[n // 2:n // 2 + 3] = fq[n // 2]            # flat runs
    x = np.concatenate([rng.random(5000) * 1.2 - 0.1, xq, [xq[0] - 1, xq[-1], xq[-1] + 1]])
    got = _interp(to_engine(x, engine), to_engine(xq, engine), to_engine(fq, engine))
    np.testing.assert_array_equal(_bits(to_host(got)), _bits(np.interp(x, xq, fq)))


def test_interp_non_finite_values(engine):
    """Infinite function values: NumPy's fallbacks (the other end's formula, a flat pair's value)."""
    xq = np.array([0.1, 0.2, 0.5, 0.7, 1.0])
    fq = np.array([-np.inf, -1.0, 2.0, np.inf, np.inf])
    x = np.linspace(0, 1.1, 111)
    got = _interp(to_engine(x, engine), to_engine(xq, engine), to_engine(fq, engine))
    np.testing.assert_array_equal(_bits(to_host(got)), _bits(np.interp(x, xq, fq)))


def test_interp_empty_points():
    with pytest.raises(ValueError, match="empty"):
        _interp(np.zeros(3), np.zeros(0), np.zeros(0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("ref_dtype", ["float32", "uint8"])
def test_match_histograms_float_source(engine, rng, dtype, ref_dtype):
    image = (rng.standard_normal((61, 47)) * 50).astype(dtype)
    reference = (rng.random((33, 29)) * 255).astype(ref_dtype)
    got = to_host(ne.match_histograms(to_engine(image, engine), to_engine(reference, engine)))
    want = ske.match_histograms(image, reference)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    rgb = (rng.random((40, 30, 3)) * 4).astype(dtype)
    got = to_host(ne.match_histograms(to_engine(rgb, engine), to_engine(rgb[::-1] ** 2, engine), channel_axis=-1))
    np.testing.assert_array_equal(got, ske.match_histograms(rgb, rgb[::-1] ** 2, channel_axis=-1))
