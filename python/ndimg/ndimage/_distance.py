"""Distance transforms (scipy.ndimage semantics), n-D on both engines: the exact Euclidean transform
(separable lower envelopes, linear time), the chamfer transform and the brute-force one."""
from __future__ import annotations

import math

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ._support import per_axis

_I32_MAX = 2**31 - 1
_CORE_KINDS = "biuf"  # dtypes the core reads directly (float16 and complex are tested for nonzero first)


def _arg_check(dt_inplace, ft_inplace, return_distances, return_indices):
    msgs = []
    if not return_distances and not return_indices:
        msgs.append("at least one of return_distances/return_indices must be True")
    if dt_inplace and not return_distances:
        msgs.append("return_distances must be True if distances is supplied")
    if ft_inplace and not return_indices:
        msgs.append("return_indices must be True if indices is supplied")
    if msgs:
        raise RuntimeError(", ".join(msgs))


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (type, np.dtype))


def _nonzero_input(input):
    """The input as an array the core reads (nonzero = foreground): other dtypes as their truth values."""
    a = input if hasattr(input, "dtype") and hasattr(input, "shape") else np.asarray(input)
    dt = a.dtype
    if dt.kind not in _CORE_KINDS or (dt.kind == "f" and dt.itemsize not in (4, 8)):
        a = a != 0
    return a


def _sampling(sampling, ndim):
    if sampling is None:
        return []
    return [float(s) for s in per_axis(sampling, ndim)]


def _features(xp, shape, indices):
    """The flat-feature buffer and the indices array it unravels into: the first plane of `indices` itself
    where it is C-contiguous int32 and the flat indices fit (no extra memory)."""
    ndim = len(shape)
    ind = indices if indices is not None and indices.flags.c_contiguous else xp.empty((ndim,) + shape, np.int32)
    size = int(np.prod(shape, dtype=np.int64))
    feat = ind[0] if size <= _I32_MAX and ndim else xp.empty(shape, np.int64)
    return feat, ind


def _result(return_distances, dt_inplace, dt, return_indices, ft_inplace, ft):
    result = []
    if return_distances and not dt_inplace:
        result.append(dt)
    if return_indices and not ft_inplace:
        result.append(ft)
    if len(result) == 2:
        return tuple(result)
    return result[0] if result else None


def _into(target, values):
    """values written into the caller's array (unless it is that array); the caller's array."""
    if target is not None and target is not values:
        target[...] = values
        return target
    return values


@engine_aware("input", "distances", "indices")
def distance_transform_edt(input, sampling=None, return_distances=True, return_indices=False, distances=None,
                           indices=None):
    """Exact Euclidean distance of each nonzero element to the nearest zero element
    (scipy.ndimage.distance_transform_edt): one lower-envelope pass per axis, in linear time."""
    ft_inplace, dt_inplace = _is_array(indices), _is_array(distances)
    _arg_check(dt_inplace, ft_inplace, return_distances, return_indices)
    a = _nonzero_input(input)
    if a.ndim == 0:
        a = a.reshape(1)
    xp = xp_of(a)
    sp = _sampling(sampling, a.ndim)
    if ft_inplace:
        if indices.shape != (a.ndim,) + a.shape:
            raise RuntimeError("indices array has wrong shape")
        if indices.dtype.type != np.int32:
            raise RuntimeError("indices array must be int32")
    if dt_inplace:
        if distances.shape != a.shape:
            raise RuntimeError("distances array has wrong shape")
        if distances.dtype.type != np.float64:
            raise RuntimeError("distances array must be float64")
    use_dt = dt_inplace and distances.flags.c_contiguous
    dist = distances if use_dt else xp.empty(a.shape, np.float64)
    if not return_indices:
        _core.edt(a, sp, dist, stream=stream_ptr(dist))
        # no zero element: scipy's features, below (one value copied back, no kernel for the test)
        if a.size and not math.isfinite(float(dist.ravel()[0])):
            dist[...] = _no_background(xp, a.shape, sp, None)[0]
        return _result(True, dt_inplace, _into(distances, dist), False, False, None)
    feat, ind = _features(xp, a.shape, indices if ft_inplace else None)
    _core.edt_features(a, sp, dist, feat, stream=stream_ptr(dist))
    if a.size and not math.isfinite(float(dist.ravel()[0])):
        dist[...], ind[0] = _no_background(xp, a.shape, sp, indices if ft_inplace else None)
        if not ft_inplace:
            ind[1:] = 0
    else:
        _core.unravel_features(feat, ind, stream=stream_ptr(ind))
    ind = _into(indices if ft_inplace else None, ind)
    dist = _into(distances if dt_inplace else None, dist) if return_distances else None
    return _result(return_distances, dt_inplace, dist, True, ft_inplace, ind)


def _no_background(xp, shape, sampling, indices):
    """scipy's result without a zero element: its feature transform leaves -1 in the first coordinate (and
    the other coordinates as they were: 0 in a new array), and the distances come from those features."""
    ft = xp.zeros((len(shape),) + shape, np.int32) if indices is None else indices.copy()
    ft[0] = -1
    dt = (ft - xp.indices(shape, dtype=np.int32)).astype(np.float64)
    for i, s in enumerate(sampling):
        dt[i] *= s
    # summed axis by axis in order, each square rounded alone, as NumPy's reduction over axis 0 does (CuPy's
    # reduction orders the terms otherwise: 1 ulp off scipy)
    total = dt[0] * dt[0]
    for d in dt[1:]:
        total += d * d
    return xp.sqrt(total), ft[0]


def _chamfer_structure(metric, ndim):
    """The structure of distance_transform_cdt's metric as the bytes scipy's C layer reads."""
    if isinstance(metric, str):
        if metric in ("taxicab", "cityblock", "manhattan"):
            grid = np.indices((3,) * ndim) - 1
            return (np.abs(grid).sum(axis=0) <= 1).astype(np.uint8)
        if metric == "chessboard":
            return np.ones((3,) * ndim, np.uint8)
        raise ValueError("invalid metric provided")
    try:
        m = np.asarray(metric)
    except Exception as e:
        raise ValueError("invalid metric provided") from e
    for s in m.shape:
        if s != 3:
            raise ValueError("metric sizes must be equal to 3")
    m = np.ascontiguousarray(m)
    # scipy reads the structure's first bytes as booleans, whatever its dtype
    return m.reshape(-1).view(np.uint8)[: m.size].reshape(m.shape)


@engine_aware("input", "distances", "indices")
def distance_transform_cdt(input, metric="chessboard", return_distances=True, return_indices=False,
                           distances=None, indices=None):
    """Chamfer distance transform (scipy.ndimage.distance_transform_cdt): scipy's forward and backward raster
    sweeps with the structure's half masks, the lines of each wavefront level in parallel."""
    ft_inplace, dt_inplace = _is_array(indices), _is_array(distances)
    _arg_check(dt_inplace, ft_inplace, return_distances, return_indices)
    a = _nonzero_input(input)
    if a.ndim == 0:
        raise TypeError("WRITEBACKIFCOPY used for non-array input.")
    xp = xp_of(a)
    structure = _chamfer_structure(metric, a.ndim)
    if dt_inplace:
        if distances.dtype.type != np.int32:
            raise ValueError("distances must be of int32 type")
        if distances.shape != a.shape:
            raise ValueError("distances has wrong shape")
    if ft_inplace:
        if indices.dtype.type != np.int32:
            raise ValueError("indices array must be int32")
        if indices.shape != (a.ndim,) + a.shape:
            raise ValueError("indices array has wrong shape")
    dist = distances if dt_inplace and distances.flags.c_contiguous else xp.empty(a.shape, np.int32)
    if not return_indices:
        _core.chamfer(a, structure, dist, stream=stream_ptr(dist))
        return _result(True, dt_inplace, _into(distances, dist), False, False, None)
    feat, ind = _features(xp, a.shape, indices if ft_inplace else None)
    _core.chamfer_features(a, structure, dist, feat, stream=stream_ptr(dist))
    _core.unravel_features(feat, ind, stream=stream_ptr(ind))
    ind = _into(indices if ft_inplace else None, ind)
    dist = _into(distances if dt_inplace else None, dist) if return_distances else None
    return _result(return_distances, dt_inplace, dist, True, ft_inplace, ind)


_BF_METRICS = {"euclidean": _core.DistanceMetric.euclidean, "taxicab": _core.DistanceMetric.taxicab,
               "cityblock": _core.DistanceMetric.taxicab, "manhattan": _core.DistanceMetric.taxicab,
               "chessboard": _core.DistanceMetric.chessboard}


@engine_aware("input", "distances", "indices")
def distance_transform_bf(input, metric="euclidean", sampling=None, return_distances=True, return_indices=False,
                          distances=None, indices=None):
    """Brute-force distance transform (scipy.ndimage.distance_transform_bf): each nonzero element's distance
    to the nearest zero element that touches the foreground, O(elements x border)."""
    ft_inplace, dt_inplace = _is_array(indices), _is_array(distances)
    _arg_check(dt_inplace, ft_inplace, return_distances, return_indices)
    a = _nonzero_input(input)
    xp = xp_of(a)
    shape = a.shape
    code = _BF_METRICS.get(metric.lower())
    if code is None:
        raise RuntimeError("distance metric not supported")
    euclidean = code == _core.DistanceMetric.euclidean
    sp = _sampling(sampling, a.ndim)
    if dt_inplace and return_distances:
        if distances.shape != shape:
            raise RuntimeError("distances array has wrong shape")
        if distances.dtype.type != (np.float64 if euclidean else np.uint32):
            raise RuntimeError("distances array must be " + ("float64" if euclidean else "uint32"))
    if ft_inplace:
        if indices.dtype.type != np.int32:
            raise RuntimeError("indices array must be int32")
        if indices.shape != (a.ndim,) + shape:
            raise RuntimeError("indices array has wrong shape")
    if a.ndim == 0:   # as one element (scipy's 0-d indices are empty)
        a = a.reshape(1)
    fg = a != 0
    from ._rank import maximum_filter

    # the zero elements next to the foreground (scipy's binary_dilation with the full structure)
    border = xp.argwhere(fg if fg.size == 0 else (maximum_filter(fg.view(np.uint8), size=3, mode="constant") != 0) & ~fg)
    border = xp.ascontiguousarray(border.astype(np.int64, copy=False)).reshape(-1, a.ndim)
    dist = xp.empty(a.shape, np.float64 if euclidean else np.uint32)
    if not return_indices:
        _core.brute_force(a, border, code, sp, dist, stream=stream_ptr(dist))
        return _result(True, dt_inplace, _into(distances, dist.reshape(shape)), False, False, None)
    if len(shape) == 0:
        feat, ind = None, xp.empty((0,), np.int32)
        _core.brute_force(a, border, code, sp, dist, stream=stream_ptr(dist))
    else:
        feat, ind = _features(xp, shape, indices if ft_inplace else None)
        _core.brute_force_features(a, border, code, sp, dist, feat, stream=stream_ptr(dist))
        _core.unravel_features(feat, ind, stream=stream_ptr(ind))
    ind = _into(indices if ft_inplace else None, ind)
    dist = _into(distances if dt_inplace else None, dist.reshape(shape)) if return_distances else None
    return _result(return_distances, dt_inplace, dist, True, ft_inplace, ind)
