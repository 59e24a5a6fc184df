"""skimage.feature.match_descriptors (0.26): nearest neighbours between two descriptor sets. The distance
matrix is scipy.spatial's cdist on the host (every metric and its exact rounding: the matches of a tie or a
ratio test at its bound depend on it); GPU descriptors are copied there and the matches come back as the
caller's array type."""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from .._engine import engine_for, from_working
from ..ndimage._footprint import to_host


def match_descriptors(descriptors1, descriptors2, metric=None, p=2, max_distance=np.inf, cross_check=True,
                      max_ratio=1.0):
    """Brute-force matching of `descriptors1` to `descriptors2` (skimage.feature.match_descriptors):
    (Q, 2) indices of matched pairs, optionally kept only where each is the other's nearest
    (`cross_check`), nearer than `max_distance`, and clearly nearer than the second nearest (`max_ratio`)."""
    call = engine_for(descriptors1, descriptors2)
    d1, d2 = to_host(descriptors1), to_host(descriptors2)
    if d1.shape[1] != d2.shape[1]:
        raise ValueError("Descriptor length must equal.")
    if metric is None:
        metric = 'hamming' if np.issubdtype(d1.dtype, bool) else 'euclidean'
    # scipy refuses p for the metrics that do not take it
    distances = cdist(d1, d2, metric=metric, **({'p': p} if metric == 'minkowski' else {}))
    rows = np.arange(d1.shape[0])
    nearest = np.argmin(distances, axis=1)
    if cross_check:
        back = np.argmin(distances, axis=0)
        keep = rows == back[nearest]
        rows, nearest = rows[keep], nearest[keep]
    if max_distance < np.inf:
        keep = distances[rows, nearest] < max_distance
        rows, nearest = rows[keep], nearest[keep]
    if max_ratio < 1.0:
        best = distances[rows, nearest]
        distances[rows, nearest] = np.inf
        second = distances[rows, np.argmin(distances[rows], axis=1)]
        second[second == 0] = np.finfo(np.float64).eps
        keep = best / second < max_ratio
        rows, nearest = rows[keep], nearest[keep]
    matches = np.column_stack((rows, nearest))
    return matches if call.xp is np else from_working(call.xp.asarray(matches), call.library)
