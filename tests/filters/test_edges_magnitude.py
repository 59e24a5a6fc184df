"""The CPU engine's edge magnitude (ndimg._core.root_sum_squares, used by filters.sobel & co.) against
NumPy's operations in NumPy's order, bit for bit."""
import numpy as np
import pytest

from ndimg import _core
from helpers import random_image


def _numpy(parts, scale):
    out = parts[0] * parts[0]
    for p in parts[1:]:
        out += p * p
    np.sqrt(out, out=out)
    out /= scale
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("shape,count", [((1,), 2), ((37, 41), 2), ((9, 10, 11), 3), ((1, 1), 2), ((5, 300), 4)])
def test_matches_numpy(rng, dtype, layout, shape, count):
    parts = [random_image(rng, shape, dtype, layout) * 50 - 25 for _ in range(count)]
    scale = np.sqrt(len(shape), dtype=dtype)
    expected = _numpy(parts, scale)
    out = np.empty(shape, dtype)
    _core.root_sum_squares(parts, out, float(scale))
    np.testing.assert_array_equal(out, expected, strict=True)
    _core.root_sum_squares(parts, parts[0], float(scale))  # in place over the first part
    np.testing.assert_array_equal(parts[0], expected, strict=True)


def test_bad_input():
    a = np.zeros((3, 4), np.float32)
    with pytest.raises(TypeError):
        _core.root_sum_squares([a, a.astype(np.float64)], a, 1.0)
    with pytest.raises(TypeError):
        _core.root_sum_squares([a.astype(np.int32)], a.astype(np.int32), 1.0)
    with pytest.raises(ValueError):
        _core.root_sum_squares([a, np.zeros((4, 3), np.float32)], a, 1.0)
    with pytest.raises(ValueError):
        _core.root_sum_squares([], a, 1.0)
