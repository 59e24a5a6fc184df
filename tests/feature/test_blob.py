"""Blob pruning beyond the generated cases: many overlapping blobs in 1-D to 4-D, isotropic and anisotropic,
float32 and float64, every kind of overlap threshold, against scikit-image's own pruning of the same rows
(its private _prune_blobs: the blob detectors' last step, whose pair order decides which blob stays)."""
from __future__ import annotations

import numpy as np
import pytest
from skimage.feature.blob import _prune_blobs

from ndimg.feature._blob import _prune


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ndim, sigma_dim", [(1, 1), (2, 1), (3, 1), (2, 2), (3, 3), (4, 1)])
@pytest.mark.parametrize("overlap", [0.0, 0.3, 0.5, 0.99, 1.0])
def test_prune_matches_skimage(rng, dtype, ndim, sigma_dim, overlap):
    points = np.round(rng.random((1500, ndim)) * 40)
    sigmas = rng.integers(1, 6, (1500, sigma_dim)) * 0.7
    blobs = np.hstack([points, sigmas]).astype(dtype)
    got = _prune(blobs.copy(), overlap, sigma_dim=sigma_dim)
    expected = _prune_blobs(blobs.copy(), overlap, sigma_dim=sigma_dim)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
