"""ndimg._prim.reduce.numpy_sum: NumPy's own float sums to the last bit, on either engine, where the GPU's
reductions add in another order (iterations that stop on a comparison of such sums stop where
scikit-image's NumPy code does)."""
import numpy as np
import pytest

from helpers import to_engine, to_host
from ndimg._prim.reduce import numpy_sum

# block edges (8, 128), the CUDA schedule's node edges (2^14, 2^15) and sizes with several levels of nodes
SIZES = [0, 1, 7, 8, 9, 127, 128, 129, 300, 8191, 16383, 16384, 32767, 32768, 65543, 262147, 1 << 21]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_sum_bit_for_bit(engine, rng, dtype):
    for n in SIZES:
        # magnitudes over six decades: every addition rounds, so any other order shows
        a = (rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)).astype(dtype)
        got = numpy_sum(to_engine(a, engine))
        assert got.shape == () and got.dtype == a.dtype
        assert to_host(got)[()] == a.sum(), n


def test_numpy_sum_views_and_refusals(engine, rng):
    a = rng.standard_normal((37, 41)).astype(np.float32)
    x = to_engine(a, engine)
    # a view sums as NumPy sums its contiguous copy (the order the callers' temporaries have)
    assert to_host(numpy_sum(x[:, ::2]))[()] == np.ascontiguousarray(a[:, ::2]).sum()
    assert to_host(numpy_sum(x.T))[()] == np.ascontiguousarray(a.T).sum()
    with pytest.raises(TypeError, match="float32 or float64"):
        numpy_sum(to_engine(a.astype(np.int32), engine))
