"""The GPU paths' float -> intp cast (label, perimeter): NumPy's own cast on this host, for the values where
CUDA's saturating conversion differs (infinities, NaN, values beyond int64). Checked with NumPy arrays: the
formula is array-library independent, and NumPy's astype is the reference."""
import warnings

import numpy as np
import pytest

from ndimg.morphology._label import as_host_intp

ODD = [np.inf, -np.inf, np.nan, 1e30, -1e30, 2.0**63, -(2.0**63), 3.7, -2.5, 300.5, -300.5, 65000.0, 0.0, -0.0]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_as_host_intp_is_numpys_cast(dtype):
    values = np.array(ODD, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, expected_u8 = values.astype(np.intp), values.astype(np.uint8)
        got = as_host_intp(values)
    assert got.dtype == np.intp
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got.astype(np.uint8), expected_u8)   # perimeter's uint8
