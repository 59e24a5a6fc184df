"""skimage.feature.match_descriptors (0.26): nearest neighbours between two descriptor sets. Binary (bool)
descriptors under the Hamming metric are compared as packed bits on the descriptors' engine
(cpp/src/feature/match.*: the same count / length scipy's cdist divides); every other metric is scipy.spatial's
cdist on the host (each metric and its exact rounding: the matches of a tie or of a ratio test at its bound
depend on it), its distances then taken back to the descriptors' engine for the selection."""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from .. import _core
from .._engine import CUDA, engine_for, from_working, stream_ptr, to_working
from ..ndimage._footprint import to_host


def _packed(d, xp):
    """Bool descriptors (n, nbits) as (n, words) uint64 of their bits (numpy.packbits order, zero padded)."""
    if xp is np:
        packed = np.packbits(d, axis=1)
    else:   # numpy.packbits' bit order by shifts (CuPy's packbits takes no axis in every version)
        n, bits = d.shape
        padded = xp.zeros((n, -(-bits // 8) * 8), dtype=np.uint8)
        padded[:, :bits] = d
        # 7 - arange: CuPy casts arange's step to the dtype, and uint8 cannot hold a step of -1 (NEP 50)
        shifts = 7 - xp.arange(8, dtype=np.uint8)
        packed = (padded.reshape(n, -1, 8) << shifts).sum(axis=2, dtype=np.uint8)
    pad = -packed.shape[1] % 8
    if pad or not packed.flags.c_contiguous:
        packed = xp.ascontiguousarray(xp.pad(packed, ((0, 0), (0, pad))))
    return packed.view(np.uint64)


def _hamming(d1, d2, xp):
    out = xp.empty((d1.shape[0], d2.shape[0]), dtype=np.float64)
    if d1.shape[1] == 0:   # scipy divides 0 by 0
        out.fill(np.nan)
        return out
    a, b = _packed(d1, xp), _packed(d2, xp)
    _core.hamming_distances(a, b, d1.shape[1], out, stream=stream_ptr(out))
    return out


def match_descriptors(descriptors1, descriptors2, metric=None, p=2, max_distance=np.inf, cross_check=True,
                      max_ratio=1.0):
    """Brute-force matching of `descriptors1` to `descriptors2` (skimage.feature.match_descriptors):
    (Q, 2) indices of matched pairs, optionally kept only where each is the other's nearest
    (`cross_check`), nearer than `max_distance`, and clearly nearer than the second nearest (`max_ratio`)."""
    call = engine_for(descriptors1, descriptors2)
    xp = call.xp
    d1, d2 = descriptors1, descriptors2
    if call.engine == CUDA:
        d1, d2 = to_working(d1, call.library), to_working(d2, call.library)
    if d1.shape[1] != d2.shape[1]:
        raise ValueError("Descriptor length must equal.")
    if metric is None:
        metric = 'hamming' if np.issubdtype(d1.dtype, bool) else 'euclidean'
    if isinstance(metric, str) and metric == 'hamming' and d1.dtype == bool and d2.dtype == bool and \
            d1.ndim == d2.ndim == 2:
        distances = _hamming(d1, d2, xp)
    else:
        # scipy refuses p for the metrics that do not take it
        distances = xp.asarray(cdist(to_host(d1), to_host(d2), metric=metric,
                                     **({'p': p} if metric == 'minkowski' else {})))
    rows = xp.arange(d1.shape[0])
    nearest = xp.argmin(distances, axis=1)
    if cross_check:
        back = xp.argmin(distances, axis=0)
        keep = rows == back[nearest]
        rows, nearest = rows[keep], nearest[keep]
    if max_distance < np.inf:
        keep = distances[rows, nearest] < max_distance
        rows, nearest = rows[keep], nearest[keep]
    if max_ratio < 1.0:
        best = distances[rows, nearest]
        distances[rows, nearest] = np.inf
        second = distances[rows, xp.argmin(distances[rows], axis=1)]
        second[second == 0] = np.finfo(np.float64).eps
        keep = best / second < max_ratio
        rows, nearest = rows[keep], nearest[keep]
    return from_working(xp.column_stack((rows, nearest)), call.library)
