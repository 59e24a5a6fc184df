"""Thin-plate spline transform (skimage.transform._thin_plate_splines 0.26).

The spline is solved on the host (an (N+3)-square system of the control points); applying it to many
coordinates runs on their engine: NumPy coordinates in blocks of rows on the CPU engine's threads, CuPy
coordinates on the GPU, each block's radial kernel against the control points kept bounded in memory.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial import distance_matrix

from .._rules import check_nD
from ._geometric import FailedEstimation, _dask_rows, _host, _points, _rowwise, _warn_deprecated

_KERNEL_ELEMENTS = 1 << 20   # radial kernel entries per block of coordinates


def _kernel(xp, r):
    """U(r) = r^2 log(r^2 + 1e-8), 0 at r = 0 (the small term keeps log finite)."""
    r2 = r ** 2
    return xp.where(r == 0.0, 0.0, r2 * xp.log(r2 + 1e-8))


class ThinPlateSplineTransform:
    """Thin-plate spline transformation (Bookstein 1989) of 2-D coordinates, estimated from matching
    control points.

    Attributes
    ----------
    src : (N, 2) array_like
        Coordinates of control points in source image.
    """

    def __init__(self):
        self._estimated = False
        self._spline_mappings = None
        self.src = None

    def __call__(self, coords):
        """Destination coordinates (N, 2) of (N, 2) coordinates, on the coordinates' engine."""
        if self._spline_mappings is None:
            raise ValueError("Transformation is undefined, define it by calling `estimate` before applying it")
        shape = coords.shape if hasattr(coords, "shape") else np.shape(coords)
        if len(shape) != 2 or shape[1] != 2:
            raise ValueError("Input `coords` must have shape (N, 2)")
        lazy = _dask_rows(self, coords, 2)
        if lazy is not None:
            return lazy
        xp, pts, lib = _points(coords)
        src, maps = self.src.astype(np.float64), self._spline_mappings
        n = src.shape[0]

        def fn(xp, p):
            s, w = xp.asarray(src), xp.asarray(maps)
            out = w[n] + p @ w[n + 1:]
            step = max(1, _KERNEL_ELEMENTS // n)
            for i in range(0, p.shape[0], step):    # bounded (rows x control points) kernel blocks
                q = p[i:i + step]
                r2 = 0
                for a in range(q.shape[1]):     # per axis: no (rows, points, D) temporary; the same sums
                    r2 = r2 + (q[:, a, None] - s[None, :, a]) ** 2
                r = xp.sqrt(r2)
                out[i:i + step] += _kernel(xp, r) @ w[:n]
            return out

        return _rowwise(fn, pts, 2, xp, lib)

    @property
    def inverse(self):
        raise NotImplementedError("Not supported")

    @classmethod
    def from_estimate(cls, src, dst):
        """The spline mapping control points `src` onto `dst` (N >= 3 each), or a falsy FailedEstimation."""
        tf = cls()
        msg = tf._estimate(src, dst)
        return tf if msg is None else FailedEstimation(f"{cls.__name__}: {msg}")

    def _estimate(self, src, dst):
        src, dst = _host(src), _host(dst)
        check_nD(src, 2, arg_name="src")
        check_nD(dst, 2, arg_name="dst")
        if src.shape[0] < 3 or dst.shape[0] < 3:
            raise ValueError("Need at least 3 points in in `src` and `dst`")
        if src.shape != dst.shape:
            raise ValueError(f"Shape of `src` and `dst` didn't match, {src.shape} != {dst.shape}")
        self.src = src
        n, d = src.shape
        # the system is assembled in float32 as scikit-image's is (its rounding is part of the result)
        L = np.zeros((n + 3, n + 3), dtype=np.float32)
        L[:n, :n] = _kernel(np, distance_matrix(src, src))
        P = np.hstack([np.ones((n, 1)), src])
        L[:n, -3:] = P
        L[-3:, :n] = P.T
        V = np.vstack([dst, np.zeros((d + 1, d))])
        try:
            self._spline_mappings = np.linalg.solve(L, V)
        except np.linalg.LinAlgError:
            return "Unable to solve for spline mappings"
        return None

    def estimate(self, src, dst):
        """Deprecated: estimate in place; returns whether it succeeded."""
        _warn_deprecated("estimate", "Please use `ThinPlateSplineTransform.from_estimate` class constructor "
                                     "instead")
        return self._estimate(src, dst) is None
