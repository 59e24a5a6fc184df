"""pearson_corr_coeff's float16 steps on the GPU engine (float32 reductions rounded once to float16, as NumPy
reduces float16) run here through a NumPy namespace that is not `numpy` itself, so the GPU branch's arithmetic
is checked against scipy's float16 result on the host. The float32 totals are summed in another order than
NumPy's (pairwise blocks there, one pass here), so the rounded r may differ by one float16 ulp (13 of 10,000
draws over seeds 0-199); more than that is a wrong step."""
import types
import warnings

import numpy as np
import scipy.stats

from ndimg.measure._colocalization import _pearson

_NOT_NUMPY = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})


def test_float16_steps_match_scipy(rng):
    for _ in range(50):
        n = int(rng.integers(3, 4000))
        x = rng.random(n).astype(np.float16)
        y = (x * rng.uniform(-1, 1) + rng.random(n) * 0.4).astype(np.float16)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = scipy.stats.pearsonr(x, y)[0]
            got, _ = _pearson(x, y, _NOT_NUMPY)
        assert abs(got - float(expected)) <= np.spacing(np.float16(abs(expected))), (n, got, expected)
