"""Hausdorff distance between the nonzero pixels of two images (skimage.metrics.set_metrics)."""
from __future__ import annotations

import warnings

import numpy as np

from .._engine import engine_aware, get_num_threads, xp_of
from .._rules import as_image
from ._common import scalar

_CHUNK = 1 << 24  # distance-matrix elements per GPU step (128 MiB of float64)


def _points(image):
    image = as_image(image)  # np.nonzero takes lists and scalars
    xp = xp_of(image)
    if image.ndim == 0 or image.dtype.kind not in "biufc":
        return xp.stack(xp.nonzero(image), axis=1) if image.ndim else xp.nonzero(image)[0][:, None]
    # nonzero's coordinates (C order) from the flat indices: NumPy's n-D nonzero of a float image is ~10x slower
    return xp.stack(xp.unravel_index(xp.flatnonzero(image != 0), image.shape), axis=1)


def _nearest(src, dst):
    """For every point of ``dst``, the distance to its nearest point of ``src`` and that point's index.
    CPU: SciPy's k-d tree (the reference's own search). GPU: exact brute force in chunks of ``dst``."""
    if isinstance(src, np.ndarray):
        from scipy.spatial import cKDTree

        return cKDTree(src).query(dst, k=1, workers=get_num_threads())
    return nearest_brute_force(src, dst)


def nearest_brute_force(src, dst, chunk=_CHUNK):
    """_nearest by exhaustive search, ``chunk`` distance-matrix elements at a time (any xp)."""
    xp = xp_of(src)
    s = src.astype(np.float64)
    dists = xp.empty(dst.shape[0], dtype=np.float64)
    index = xp.empty(dst.shape[0], dtype=np.int64)
    step = max(1, chunk // max(1, src.shape[0]))
    for i in range(0, dst.shape[0], step):
        d = dst[i:i + step].astype(np.float64)
        sq = ((d[:, None, :] - s[None, :, :]) ** 2).sum(axis=2)
        j = sq.argmin(axis=1)
        index[i:i + step] = j
        dists[i:i + step] = xp.sqrt(xp.take_along_axis(sq, j[:, None], axis=1)[:, 0])
    return dists, index


@engine_aware("image0", "image1")
def hausdorff_distance(image0, image1, method="standard"):
    """Largest ('standard') or mean ('modified', Dubuisson & Jain) distance from a nonzero pixel of either
    image to the nearest nonzero pixel of the other; 0 when both are empty, inf when one is."""
    if method not in ("standard", "modified"):
        raise ValueError(f"unrecognized method {method}")
    xp = xp_of(image0, image1)
    a, b = _points(image0), _points(image1)
    if len(a) == 0:
        return 0 if len(b) == 0 else np.inf
    if len(b) == 0:
        return np.inf
    fwd, bwd = _nearest(a, b)[0], _nearest(b, a)[0]
    if method == "standard":
        return scalar(xp.maximum(fwd.max(), bwd.max()))
    return scalar(xp.maximum(fwd.mean(), bwd.mean()))


@engine_aware("image0", "image1")
def hausdorff_pair(image0, image1):
    """The two points (one nonzero pixel of each image) at the Hausdorff distance; ((), ()) with a warning
    when an image has no nonzero pixel."""
    a, b = _points(image0), _points(image1)
    if len(a) == 0 or len(b) == 0:
        warnings.warn("One or both of the images is empty.", stacklevel=3)
        return (), ()
    from_b, a_index = _nearest(a, b)  # for each point of b, the nearest of a
    from_a, b_index = _nearest(b, a)
    i_b = int(from_b.argmax())
    i_a = int(from_a.argmax())
    if from_a[i_a] > from_b[i_b]:
        return a[i_a], b[_partner(b, a[i_a], int(b_index[i_a]))]
    return a[_partner(a, b[i_b], int(a_index[i_b]))], b[i_b]


def _partner(src, point, index):
    """The point of ``src`` nearest to ``point`` that the reference's k-d tree returns: the brute force's
    ``index`` (the lowest of equally near points) unless another point is as near, then the tree's own
    choice among them (built on the host only in that case: lattice distances tie often)."""
    if isinstance(src, np.ndarray):
        return index
    sq = ((src - point) ** 2).sum(axis=1, dtype=np.float64)
    if int((sq == sq[index]).sum()) == 1:
        return index
    from scipy.spatial import cKDTree

    return int(cKDTree(src.get()).query(point.get(), k=1)[1])
