"""grid_points_in_poly's CUDA engine (CuPy vertices: one thread per grid point) against scikit-image, beyond
the registry's small cases: a large grid, vertices on grid points and edges through them, integer vertices."""
import numpy as np
import pytest

from helpers import cupy_or_skip
from skimage import measure as sm

from ndimg import measure as nm


_RING = np.array([[3.0, 5.0], [40.5, 2.0], [70.0, 60.0], [20.0, 90.0], [20.0, 40.0], [3.0, 5.0]])


@pytest.mark.parametrize("binarize", [True, False])
@pytest.mark.parametrize("verts", [_RING, np.round(_RING).astype(np.int32), _RING[::-1] * 1.7], ids=["float", "int", "scaled"])
def test_grid_points_in_poly_cuda(verts, binarize):
    cp = cupy_or_skip()
    got = nm.grid_points_in_poly((130, 170), cp.asarray(verts), binarize=binarize)
    want = sm.grid_points_in_poly((130, 170), verts, binarize=binarize)
    assert isinstance(got, cp.ndarray) and got.dtype == want.dtype
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    if not binarize:
        assert set(np.unique(want)) >= {0, 1, 2, 3}   # every code reached


def test_grid_points_in_poly_cpu_codes():
    """The same codes on the CPU engine (the test the CUDA one runs, without a GPU)."""
    want = sm.grid_points_in_poly((130, 170), np.round(_RING), binarize=False)
    np.testing.assert_array_equal(nm.grid_points_in_poly((130, 170), np.round(_RING), binarize=False), want)
    assert set(np.unique(want)) >= {0, 1, 2, 3}
