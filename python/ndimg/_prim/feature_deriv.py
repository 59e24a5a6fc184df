"""The derivative-feature primitives (``cpp/src/feature/deriv*``, ``basic_features_cpu.cpp``, ``peak.cpp``):
per-pixel eigenvalues of symmetric matrices, SURF's box-filter Hessian determinant, multiscale_basic_features'
2-D features in one sweep and the greedy minimum-distance peak selection."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr

MAX_SYM_DIM = 4   # cpp's kMaxSymDim: larger matrices take LAPACK (NumPy's or CuPy's eigvalsh)


def sym_eigvals(elems, *, out):
    """Eigenvalues, decreasing, of each pixel's symmetric matrix given by its upper triangle ``elems``
    (row-major; C-contiguous float32/float64 arrays of one shape) into ``out`` (n, *shape), same dtype; n is 2
    for 3 elements, else their dimensionality (up to MAX_SYM_DIM)."""
    _core.sym_eigvals(list(elems), out, stream=stream_ptr(out))
    return out


def hessian_det_box(integral, *, sigma, out):
    """skimage's approximate Hessian determinant (SURF box filters) at ``sigma`` of a 2-D image from its
    C-contiguous float64 integral image, into ``out`` (float32 or float64, the same shape)."""
    _core.hessian_det_box(integral, out, float(sigma), stream=stream_ptr(out))
    return out


def basic_features_2d(smooth, *, intensity, edges, texture, out, first=0):
    """multiscale_basic_features' features of 2-D host images ``smooth`` (C-contiguous float32/float64 of one
    shape, each axis at least 2 long), side by side in ``out`` (h, w, features) from feature ``first`` on: per
    image its value, Sobel magnitude and the two decreasing eigenvalues of its np.gradient Hessian, as the
    flags select."""
    _core.basic_features_2d(list(smooth), out, int(first), bool(intensity), bool(edges), bool(texture))
    return out


def ensure_spacing(coords, *, spacing, p_norm, inclusive, max_out=None):
    """Indices of the host points ``coords`` ((k, d), best first) kept by the greedy selection: each point
    in order unless a kept one lies closer than ``spacing`` (or at exactly ``spacing`` with ``inclusive``) in
    the Minkowski ``p_norm`` distance; at most ``max_out`` kept (None: no limit)."""
    coords = np.ascontiguousarray(coords, dtype=np.int64).reshape(len(coords), -1)
    keep = np.empty(len(coords), dtype=bool)
    _core.ensure_spacing(coords, keep, float(spacing), float(p_norm), bool(inclusive),
                         -1 if max_out is None else int(max_out))
    return np.flatnonzero(keep)
