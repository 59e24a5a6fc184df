"""skimage.morphology's skeletons (skimage/morphology/_skeletonize.py): skeletonize, thin, medial_axis.

The 2-D thinnings (skeletonize's Zhang-Suen variant, thin's Guo-Hall) run their subiterations on either engine
(``cpp/src/morphology/skeleton*``). Lee's thinning (3-D, or method="lee") too: its serial recheck of the
candidates in C order is run as a wavefront (a candidate sees only the earlier ones of its 3x3x3
neighbourhood). medial_axis's removal, serial in its order of (distance, corner, tiebreak), goes one pixel at a
time on the host and in rounds on the GPU, each round deciding the pixels whose earlier neighbours are decided.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ..ndimage._distance import distance_transform_edt

_CORE_DTYPES = frozenset("?bBhHiIlLqQfd")


def _thinning(image, method, max_iter):
    xp = xp_of(image)
    if image.dtype.char not in _CORE_DTYPES:
        image = image.astype(bool)
    out = xp.empty(image.shape, dtype=bool)
    _core.thin2d(image, out, method, max_iter, stream=stream_ptr(out))
    return out


def _lee(image):
    xp = xp_of(image)
    volume = image[xp.newaxis] if image.ndim == 2 else image
    padded = xp.zeros(tuple(s + 2 for s in volume.shape), dtype=np.uint8)
    padded[1:-1, 1:-1, 1:-1] = volume
    _core.thin_lee(padded, stream=stream_ptr(padded))
    out = padded[1:-1, 1:-1, 1:-1].astype(bool)
    return out[0] if image.ndim == 2 else out


@engine_aware("image")
def skeletonize(image, *, method=None):
    image = image.astype(bool, copy=False)
    if method not in {"zhang", "lee", None}:
        raise ValueError(f'skeletonize method should be either "lee" or "zhang", got {method}.')
    if image.ndim == 2 and method in (None, "zhang"):
        return _thinning(image, _core.Thinning.Zhang, -1)
    if image.ndim == 3 and method == "zhang":
        raise ValueError('skeletonize method "zhang" only works for 2D images.')
    if image.ndim == 3 or (image.ndim == 2 and method == "lee"):
        return _lee(image)
    raise ValueError(f"skeletonize requires a 2D or 3D image as input, got {image.ndim}D.")


def _iterations(max_num_iter):
    """scikit-image's loop runs while num_iter < (max_num_iter or inf): that many iterations (-1: no limit)."""
    limit = max_num_iter or math.inf
    if not isinstance(limit, (numbers.Real, np.generic)):
        raise TypeError(f"'<' not supported between instances of 'int' and '{type(limit).__name__}'")
    limit = float(limit)
    if math.isinf(limit) and limit > 0:
        return -1
    return 0 if math.isnan(limit) or limit <= 0 else math.ceil(limit)


@engine_aware("image")
def thin(image, max_num_iter=None):
    if not hasattr(image, "ndim"):
        image = np.asarray(image)
    if image.size == 0:
        raise ValueError("The parameter `image` cannot be an empty array")
    if image.ndim != 2:
        raise ValueError("The parameter `image` must be a 2-dimensional array")
    return _thinning(image, _core.Thinning.GuoHall, _iterations(max_num_iter))


@engine_aware("image", "mask")
def medial_axis(image, mask=None, return_distance=False, *, rng=None):
    xp = xp_of(image, mask)
    masked = image.astype(bool)   # (a list has no astype: AttributeError, as in scikit-image)
    image = xp.asarray(image)
    if mask is not None:
        masked = masked.copy()
        masked[~mask] = False
    if masked.ndim < 2:
        raise IndexError("tuple index out of range")
    if masked.ndim > 2:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 2, got {masked.ndim})")
    distance = distance_transform_edt(masked)
    # the same draws from the caller's generator as scikit-image's (on the host: NumPy's generator)
    tiebreak = np.random.default_rng(rng).permutation(np.arange(int(masked.sum())))
    result = xp.ascontiguousarray(masked, dtype=np.uint8)
    _core.medial_axis_thin(result, xp.ascontiguousarray(distance, dtype=np.float64),
                           xp.asarray(tiebreak, dtype=np.int64), stream=stream_ptr(result))
    result = result.astype(bool)
    if mask is not None:
        result[~mask] = image[~mask]
    return (result, distance) if return_distance else result
