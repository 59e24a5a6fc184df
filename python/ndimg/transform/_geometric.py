"""Geometric transforms (skimage.transform._geometric 0.26): Euclidean, Similarity, Affine, Projective,
Polynomial, PiecewiseAffine, EssentialMatrix and FundamentalMatrix transforms, estimate_transform and
matrix_transform.

Parameters live on the host as NumPy arrays (scikit-image's `params`); estimation is small dense linear
algebra on a few points and runs there too (GPU points are copied to the host). Applying a transform to
coordinates (``__call__``, ``residuals``) runs on the coordinates' engine: NumPy coordinates on the CPU
engine's threads, CuPy (or other CUDA array) coordinates on the GPU, returned as the caller's array type.
0.26's API is kept: ``from_estimate`` returns the transform or a falsy FailedEstimation, the deprecated
``estimate`` warns (FutureWarning) and returns whether it succeeded.
"""
from __future__ import annotations

import math
import textwrap
from abc import ABC, abstractmethod
from copy import copy

import numpy as np
from scipy import spatial

from .._blocks import blockwise_rows
from .._engine import from_working, library_of, to_working
from .._rules import check_allocation
from ..filters._window import _as_int as safe_as_int
# one FailedEstimation for models and transforms; its FailedEstimationAccessError is ndimg.util's public one
from ..measure._fit import FailedEstimation, _warn_deprecated
from ..morphology._footprints import warn_user

_CHUNK = 1 << 16   # coordinate rows per block of host work (bounds per-block temporaries)


# --- coordinates on their engine -------------------------------------------------------------------------
def _points(coords):
    """(xp, coordinates as a float64 array of xp with at least 2 dims, caller's library or None for NumPy)."""
    lib = library_of(coords)
    if lib in (None, "numpy"):
        return np, np.array(coords, dtype=np.float64, ndmin=2), None
    import cupy

    pts = cupy.asarray(to_working(coords, lib), dtype=cupy.float64)
    return cupy, pts.reshape((1,) * (2 - pts.ndim) + pts.shape), lib


def _like(points, xp, lib):
    """`points` (any array or list) as float64 coordinates of the namespace and library (xp, lib)."""
    if lib is None:
        return np.array(points, dtype=np.float64, ndmin=2)
    arr = library_of(points)
    return to_working(points, arr) if arr not in (None, "numpy") else xp.asarray(np.asarray(points, np.float64))


def _host(x):
    """A host NumPy array of `x` (GPU arrays are copied; lists and scalars as np.asarray)."""
    lib = library_of(x)
    if lib in (None, "numpy"):
        return np.asarray(x)
    return to_working(x, lib).get()


def _rowwise(fn, pts, width, xp, lib):
    """out[rows] = fn(xp, pts[rows]) -> (N, width) float64: NumPy in blocks of rows on the CPU engine's
    threads, the GPU in one pass; returned as the caller's array type."""
    if xp is not np:
        return from_working(fn(xp, pts), lib)
    out = np.empty((pts.shape[0], width))

    def block(p, o):
        o[...] = fn(np, p)

    blockwise_rows(block, np.ascontiguousarray(pts), out, row_elements=_CHUNK)
    return out


def _dask_rows(fn, coords, width):
    """Dask coordinates (N, D): fn on each block of whole rows, lazily (a Dask array of (N, width)); None
    for any other coordinates."""
    if not type(coords).__module__.startswith("dask."):
        return None
    coords = coords.rechunk({1: -1})
    return coords.map_blocks(fn, dtype=np.float64, chunks=(coords.chunks[0], (width,)),
                             meta=coords._meta.astype(np.float64))


def _homogeneous(matrix):
    """fn(xp, points) applying a (D+1, D+1) homogeneous matrix to (N, D) points. Where the last coordinate
    is exactly 0, it divides by machine epsilon instead (scikit-image's rule, gh-3926)."""
    d = matrix.shape[0] - 1
    affine = bool(np.all(matrix[d, :d] == 0)) and matrix[d, d] == 1

    def fn(xp, p):
        m = xp.asarray(matrix, dtype=xp.float64)
        out = p @ m[:d, :d].T + m[:d, d]
        if affine:   # the homogeneous coordinate is exactly 1: x / 1 == x
            return out
        w = p @ m[d, :d] + m[d, d]
        return out / xp.where(w == 0, np.finfo(float).eps, w)[:, None]

    return fn


def _apply_matrix(matrix, coords):
    xp, pts, lib = _points(coords)
    return _rowwise(_homogeneous(matrix), pts, matrix.shape[0] - 1, xp, lib)


# --- estimation helpers (host) -----------------------------------------------------------------------------
def _normalizer(points, scaling="rms"):
    """The (D+1, D+1) matrix moving `points` (..., N, D) to their centroid and scaling them to unit RMS
    coordinate ('rms') or to a mean distance of sqrt(D) from it ('mrs', Hartley's isotropic scaling);
    the identity for 'raw'. NaN where all points coincide (nothing to scale by)."""
    *batch, n, d = points.shape
    scaling = scaling.lower()
    m = np.broadcast_to(np.eye(d + 1), (*batch, d + 1, d + 1)).copy()
    if scaling == "raw":
        return m
    centroid = points.mean(axis=-2)
    centred = points - centroid[..., None, :]
    if scaling == "rms":
        spread = np.sqrt(np.mean(centred ** 2, axis=(-2, -1)))
    elif scaling == "mrs":
        spread = np.mean(np.sqrt(np.sum(centred ** 2, axis=-1)), axis=-1) / np.sqrt(d)
    else:
        raise ValueError(f'Unexpected "scaling" of "{scaling}"')
    m[..., :d, d] = -centroid
    with np.errstate(divide="ignore", invalid="ignore"):
        m[..., :d, :] /= spread[..., None, None]
    m[spread == 0] = np.nan
    return m


def _apply_host(m, points):
    """Host (..., N, D) points through (..., D+1, D+1) matrices, homogeneous coordinates appended."""
    h = np.concatenate((points, np.ones(points.shape[:-1] + (1,))), axis=-1) @ np.swapaxes(m, -1, -2)
    w = h[..., -1:]
    return h[..., :-1] / np.where(w == 0, np.finfo(float).eps, w)


def _right_singular(A):
    """The right singular vectors (rows, by decreasing singular value) of A (..., m, n): all n of them; the
    left ones only as many as needed (an overdetermined system's m x m would dominate the time)."""
    return np.linalg.svd(A, full_matrices=A.shape[-2] < A.shape[-1])[2]


def _homography(src, dst, coeffs, weights=None):
    """Total-least-squares homographies mapping src to dst (..., N, D), batched over leading axes: the
    right singular vector of the smallest singular value of the linear system in the matrix entries listed
    in `coeffs` (flat indices; the last entry is fixed to 1), in coordinates centred and scaled for
    conditioning. Returns (matrices, reasons): per item its matrix, NaN where estimation failed, and why
    ('' where it succeeded)."""
    *batch, n, d = src.shape
    s_norm, d_norm = _normalizer(src), _normalizer(dst)
    bad_scaling = ~np.all(np.isfinite(s_norm + d_norm), axis=(-2, -1))
    src_n, dst_n = _apply_host(s_norm, src), _apply_host(d_norm, dst)
    k = d + 1
    # one block of N rows per destination axis a: x_j in column a*k+j, 1 in a*k+d, then -x_j*X_a and X_a
    # in the last block (the projective row); the unknowns are the matrix's entries row by row
    A = np.zeros((*batch, d * n, k * k))
    for a in range(d):
        rows = slice(a * n, (a + 1) * n)
        A[..., rows, a * k:a * k + d] = src_n
        A[..., rows, a * k + d] = 1
        A[..., rows, -k:-1] = src_n * -dst_n[..., a:a + 1]
        A[..., rows, -1] = dst_n[..., a]
    A = A[..., list(coeffs) + [k * k - 1]]
    if weights is not None:
        weights = np.asarray(weights)
        A = A * np.tile(np.sqrt(weights / np.max(weights)), d)[..., :, None]
    with np.errstate(invalid="ignore"):
        V = _right_singular(np.where(bad_scaling[..., None, None], 0.0, A))
    last = V[..., -1, :]
    degenerate = np.isclose(last[..., -1], 0) & ~bad_scaling
    H = np.zeros((*batch, k, k))
    with np.errstate(divide="ignore", invalid="ignore"):
        H.reshape(*batch, k * k)[..., list(coeffs)] = -last[..., :-1] / last[..., -1:]
    H[..., d, d] = 1
    failed = bad_scaling | degenerate
    H[failed] = s_norm[failed] = d_norm[failed] = np.eye(k)   # placeholders, NaN below
    H = np.linalg.inv(d_norm) @ H @ s_norm
    H /= H[..., -1:, -1:]
    H[failed] = np.nan
    reasons = np.where(bad_scaling, "Scaling generated NaN values",
                       np.where(degenerate, "Right singular vector has 0 final element", ""))
    return H, reasons


def _umeyama(src, dst, estimate_scale):
    """The least-squares rigid (or similarity, with `estimate_scale`) transform of src onto dst (Umeyama,
    PAMI 1991, eqs. 38-43), as a (D+1, D+1) matrix; all NaN where the covariance has rank 0."""
    n, d = src.shape
    src_mean, dst_mean = src.mean(axis=0), dst.mean(axis=0)
    src_c, dst_c = src - src_mean, dst - dst_mean
    cov = dst_c.T @ src_c / n
    sign = np.ones(d)
    if np.linalg.det(cov) < 0:
        sign[-1] = -1
    T = np.eye(d + 1)
    U, S, Vt = np.linalg.svd(cov)
    rank = np.count_nonzero(S > S.max() * max(cov.shape) * np.finfo(float).eps)
    if rank == 0:
        return T * np.nan
    if rank == d - 1:
        # one free direction: reflect it only where U and V do not already make a rotation
        s = sign.copy()
        if np.linalg.det(U) * np.linalg.det(Vt) <= 0:
            s[-1] = -1
            T[:d, :d] = U @ np.diag(s) @ Vt
        else:
            T[:d, :d] = U @ Vt
    else:
        T[:d, :d] = U @ np.diag(sign) @ Vt
    scale = 1.0 / src_c.var(axis=0).sum() * (S @ sign) if estimate_scale else 1.0
    T[:d, d] = dst_mean - scale * (T[:d, :d] @ src_mean.T)
    T[:d, :d] *= scale
    return T


def _euler_rotation_matrix(angles, degrees=False):
    """The rotation of intrinsic Euler angles about x, y and z."""
    return spatial.transform.Rotation.from_euler("XYZ", angles=angles, degrees=degrees).as_matrix()


def _with_ones(p, xp=np):
    return xp.concatenate((p, xp.ones((p.shape[0], 1), dtype=p.dtype)), axis=1)


# --- the transforms -----------------------------------------------------------------------------------------
class _GeometricTransform(ABC):
    """Abstract base class for geometric transformations."""

    @abstractmethod
    def __call__(self, coords):
        """Apply the forward transformation to (N, D) coordinates."""

    @property
    @abstractmethod
    def inverse(self):
        """A transform object representing the inverse."""

    def residuals(self, src, dst):
        """Euclidean distance of each transformed source coordinate from its destination coordinate
        (computed on the coordinates' engine, returned as their array type)."""
        xp, _, lib = _points(src)
        moved = self(src)
        moved = to_working(moved, lib) if lib is not None else moved
        diff = moved - _like(dst, xp, lib)
        out = xp.sqrt(xp.sum(diff ** 2, axis=1))
        return out if lib is None else from_working(out, lib)

    @classmethod
    @abstractmethod
    def identity(cls, dimensionality=None):
        """The identity transform: ``np.all(tform(pts) == pts)``."""

    @classmethod
    def from_estimate(cls, src, dst):
        """The transform estimated from corresponding points, or a falsy FailedEstimation saying why not."""
        return cls._from_estimate(src, dst)

    @classmethod
    def _from_estimate(cls, src, dst, *args):
        src, dst = _host(src), _host(dst)
        tf = cls.identity(src.shape[1])
        msg = tf._estimate(src, dst, *args)
        return tf if msg is None else FailedEstimation(f"{cls.__name__}: {msg}")

    def estimate(self, src, dst):
        """Deprecated: estimate in place from corresponding points; returns whether it succeeded."""
        return self._deprecated_estimate(src, dst)

    def _deprecated_estimate(self, src, dst, *args):
        _warn_deprecated("estimate", f"Please use `{type(self).__name__}.from_estimate` class constructor "
                                     "instead")
        return self._estimate(_host(src), _host(dst), *args) is None


class _HMatrixTransform(_GeometricTransform):
    """A transform given by a homogeneous (D+1, D+1) matrix."""

    def __init__(self, matrix=None, *, dimensionality=None):
        if matrix is None:
            matrix = np.eye((2 if dimensionality is None else dimensionality) + 1)
        else:
            matrix = _host(matrix)
        if dimensionality is not None and (matrix.ndim == 0 or dimensionality != matrix.shape[0] - 1):
            raise ValueError(f"Dimensionality {dimensionality} does not match matrix {matrix}")
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError("Invalid shape of transformation matrix")
        self._check_dims(matrix.shape[0] - 1)
        self.params = matrix

    def _check_dims(self, d):
        if d != 2:
            raise NotImplementedError(f"Input for {type(self)} should result in 2D transform")

    @classmethod
    def identity(cls, dimensionality=None):
        """The identity transform of `dimensionality` (None: 2)."""
        return cls(matrix=np.eye((2 if dimensionality is None else dimensionality) + 1))

    @property
    def dimensionality(self):
        """The dimensionality of the transformation."""
        return self.params.shape[0] - 1


class FundamentalMatrixTransform(_HMatrixTransform):
    """Fundamental matrix transformation: maps homogeneous points of one uncalibrated image to epipolar
    lines in the other (Hartley & Zisserman; Zhang 1998). Estimated with the normalized 8-point algorithm.

    Parameters
    ----------
    matrix : (3, 3) array_like, optional
        Fundamental matrix.
    dimensionality : int, optional
        Must be 2 (the default) when `matrix` is not given.
    """

    scaling = "rms"

    def __call__(self, coords):
        """Epipolar lines (N, 3) in the destination image of (N, 2) source coordinates."""
        lazy = _dask_rows(self, coords, 3)
        if lazy is not None:
            return lazy
        xp, pts, lib = _points(coords)
        m = self.params
        return _rowwise(lambda xp, p: _with_ones(p, xp) @ xp.asarray(m, dtype=xp.float64).T, pts, 3, xp, lib)

    @property
    def inverse(self):
        """The transform from destination to source: the transposed matrix."""
        return type(self)(matrix=self.params.T)

    def _normalized_solution(self, src, dst):
        """(the constraint dst' F src = 0's null vector as 3x3 in normalized coordinates, src and dst
        normalizers); None where the points cannot be normalized."""
        if src.shape != dst.shape:
            raise ValueError("src and dst shapes must be identical.")
        if src.shape[0] < 8:
            raise ValueError("src.shape[0] must be equal or larger than 8.")
        s_norm, d_norm = _normalizer(src, self.scaling), _normalizer(dst, self.scaling)
        if np.any(np.isnan(s_norm + d_norm)):
            self.params = np.full((3, 3), np.nan)
            return None
        s_h, d_h = _with_ones(_apply_host(s_norm, src)), _with_ones(_apply_host(d_norm, dst))
        A = (d_h[:, :, None] * s_h[:, None, :]).reshape(len(src), 9)   # column 3i+j: dst_i * src_j
        return _right_singular(A)[-1].reshape(3, 3), s_norm, d_norm

    def _constrain(self, S):
        """Rank 2: the smallest singular value is zero."""
        S[2] = 0

    def _estimate(self, src, dst):
        solved = self._normalized_solution(src, dst)
        if solved is None:
            return "Scaling failed for input points"
        F, s_norm, d_norm = solved
        U, S, Vt = np.linalg.svd(F)
        self._constrain(S)
        self.params = d_norm.T @ (U @ np.diag(S) @ Vt) @ s_norm
        return None

    @classmethod
    def from_estimate(cls, src, dst):
        """The matrix estimated by the 8-point algorithm (at least 8 point pairs, else ValueError), or a
        falsy FailedEstimation."""
        return cls._from_estimate(src, dst)

    def residuals(self, src, dst):
        """The Sampson distance of each point pair (first-order geometric error)."""
        xp, s, lib = _points(src)
        dd = _like(dst, xp, lib)
        m = xp.asarray(self.params, dtype=xp.float64)
        s_h, d_h = _with_ones(s, xp), _with_ones(dd, xp)
        f_src = s_h @ m.T
        ft_dst = d_h @ m
        out = xp.abs(xp.sum(d_h * f_src, axis=1)) / xp.sqrt(
            f_src[:, 0] ** 2 + f_src[:, 1] ** 2 + ft_dst[:, 0] ** 2 + ft_dst[:, 1] ** 2)
        return out if lib is None else from_working(out, lib)


class EssentialMatrixTransform(FundamentalMatrixTransform):
    """Essential matrix transformation: maps normalized homogeneous points of one calibrated image to
    epipolar lines in the other.

    Parameters
    ----------
    rotation : (3, 3) array_like, optional
        Rotation matrix of the relative camera motion.
    translation : (3, 1) array_like, optional
        Translation vector of the relative camera motion, of unit length.
    matrix : (3, 3) array_like, optional
        Essential matrix.
    dimensionality : int, optional
        Must be 2 (the default) when `matrix` is not given.
    """

    _rot_det_tol = 1e-6
    _trans_len_tol = 1e-6

    def __init__(self, *, rotation=None, translation=None, matrix=None, dimensionality=None):
        given = (rotation is not None) + (translation is not None)
        if given == 1:
            raise ValueError("Both rotation and translation required when one is specified.")
        if given == 2:
            if matrix is not None:
                raise ValueError("Do not specify rotation or translation when matrix is specified.")
            matrix = self._rt2matrix(_host(rotation), _host(translation))
        super().__init__(matrix=matrix, dimensionality=dimensionality)

    def _rt2matrix(self, rotation, translation):
        if rotation.shape != (3, 3):
            raise ValueError("Invalid shape of rotation matrix")
        if abs(np.linalg.det(rotation) - 1) > self._rot_det_tol:
            raise ValueError("Rotation matrix must have unit determinant")
        if translation.size != 3:
            raise ValueError("Invalid shape of translation vector")
        if abs(np.linalg.norm(translation) - 1) > self._trans_len_tol:
            raise ValueError("Translation vector must have unit length")
        t0, t1, t2 = translation.ravel()
        cross = np.array([[0, -t2, t1], [t2, 0, -t0], [-t1, t0, 0]], dtype=float)   # t x .
        return cross @ rotation

    def _constrain(self, S):
        """Two equal singular values and a zero one."""
        S[0] = S[1] = (S[0] + S[1]) / 2.0
        S[2] = 0


class ProjectiveTransform(_HMatrixTransform):
    """Projective transformation (homography) of D-dimensional coordinates by a (D+1, D+1) matrix.

    Parameters
    ----------
    matrix : (D+1, D+1) array_like, optional
        Homogeneous transformation matrix.
    dimensionality : int, optional
        Fallback number of dimensions when `matrix` is not given.
    """

    scaling = "rms"

    @property
    def _coeff_inds(self):
        """Flat indices of the matrix entries estimated (all but the last)."""
        return range(self.params.size - 1)

    def _check_dims(self, d):
        if d < 2:
            raise NotImplementedError(f"Input for {type(self)} should result in transform of >=2D")

    @property
    def _inv_matrix(self):
        return np.linalg.inv(self.params)

    def __array__(self, dtype=None, copy=None):
        return self.params if dtype is None else self.params.astype(dtype)

    def __call__(self, coords):
        """Destination coordinates (N, D) of source coordinates (N, D), on the coordinates' engine (Dask:
        per block of rows)."""
        lazy = _dask_rows(self, coords, self.dimensionality)
        return _apply_matrix(self.params, coords) if lazy is None else lazy

    @property
    def inverse(self):
        """A transform object representing the inverse."""
        return type(self)(matrix=self._inv_matrix)

    def _estimate(self, src, dst, weights=None):
        self.params, reason = _homography(np.asarray(src, np.float64), np.asarray(dst, np.float64),
                                          self._coeff_inds, weights)
        return str(reason) or None

    @classmethod
    def from_estimate(cls, src, dst, weights=None):
        """The transform estimated by total least squares from corresponding points (optionally weighted
        per pair), or a falsy FailedEstimation."""
        return cls._from_estimate(src, dst, weights)

    def estimate(self, src, dst, weights=None):
        """Deprecated: estimate in place from corresponding points; returns whether it succeeded."""
        return self._deprecated_estimate(src, dst, weights)

    def __add__(self, other):
        """The transform applying this one, then `other`."""
        if not isinstance(other, ProjectiveTransform):
            raise TypeError("Cannot combine transformations of differing types.")
        cls = type(self) if type(self) is type(other) else ProjectiveTransform
        return cls(other.params @ self.params)

    def __nice__(self):
        if not hasattr(self, "params"):
            return "<not yet initialized>"
        return "matrix=\n" + textwrap.indent(np.array2string(self.params, separator=", "), "    ")

    def __repr__(self):
        return f"<{type(self).__name__}({self.__nice__()}) at {hex(id(self))}>"

    def __str__(self):
        return f"<{type(self).__name__}({self.__nice__()})>"

    @classmethod
    def identity(cls, dimensionality=None):
        """The identity transform of `dimensionality` (None: 2)."""
        return super().identity(dimensionality=dimensionality)


class AffineTransform(ProjectiveTransform):
    """Affine transformation: scale, shear, rotation and translation, applied in that order (2-D implicit
    parameters), or any (D+1, D+1) matrix whose last row is (0, ..., 0, 1).

    Parameters
    ----------
    matrix : (D+1, D+1) array_like, optional
        Homogeneous transformation matrix (excludes the other parameters).
    scale : float or (sx, sy), optional
        Scale factor(s); 2-D only.
    shear : float or (shear_x, shear_y), optional
        Clockwise shear angles of the x and y axes, radians; 2-D only.
    rotation : float, optional
        Clockwise rotation angle, radians; 2-D only.
    translation : (tx, ty), optional
        Translation; 2-D only.
    dimensionality : int, optional
        Fallback number of dimensions when no other parameter is given.
    """

    def __init__(self, matrix=None, *, scale=None, shear=None, rotation=None, translation=None,
                 dimensionality=None):
        if any(p is not None for p in (scale, rotation, shear, translation)):
            if matrix is not None:
                raise ValueError("Do not specify any implicit parameters when matrix is specified.")
            if dimensionality is not None and dimensionality > 2:
                raise ValueError("Implicit parameters only valid for 2D transforms")
            matrix = self._srst2matrix(scale, rotation, shear, translation)
        super().__init__(matrix=matrix, dimensionality=dimensionality)

    @property
    def _coeff_inds(self):
        d = self.dimensionality
        return range(d * (d + 1))

    @staticmethod
    def _srst2matrix(scale, rotation, shear, translation):
        scale = 1 if scale is None else scale
        sx, sy = (scale, scale) if np.isscalar(scale) else _pair(scale, "scale")
        rotation = 0 if rotation is None else rotation
        if not np.isscalar(rotation):
            raise ValueError("rotation must be scalar (2D rotation)")
        shear = 0 if shear is None else shear
        shear_x, shear_y = (shear, 0) if np.isscalar(shear) else _pair(shear, "shear")
        translation = (0, 0) if translation is None else translation
        if np.isscalar(translation):
            raise ValueError("translation must be length 2")
        tx, ty = _pair(translation, "translation")
        cos, sin = math.cos(rotation), math.sin(rotation)
        tan_x, tan_y = math.tan(shear_x), math.tan(shear_y)
        return np.array([[sx * (cos + tan_y * sin), -sy * (tan_x * cos + sin), tx],
                         [sx * (sin - tan_y * cos), -sy * (tan_x * sin - cos), ty],
                         [0, 0, 1]])

    @property
    def scale(self):
        d = self.dimensionality
        ss = np.sum(self.params ** 2, axis=0)
        if d == 2:
            ss[1] = ss[1] / (math.tan(self.shear) ** 2 + 1)
        return np.sqrt(ss)[:d]

    @property
    def rotation(self):
        if self.dimensionality != 2:
            raise NotImplementedError("The rotation property is only implemented for 2D transforms.")
        return math.atan2(self.params[1, 0], self.params[0, 0])

    @property
    def shear(self):
        if self.dimensionality != 2:
            raise NotImplementedError("The shear property is only implemented for 2D transforms.")
        return math.atan2(-self.params[0, 1], self.params[1, 1]) - self.rotation

    @property
    def translation(self):
        return self.params[:self.dimensionality, self.dimensionality]


def _pair(value, name):
    value = tuple(value)
    if len(value) != 2:
        raise ValueError(f"Implicit parameters must give 2D transforms ({name} of length {len(value)})")
    return value


class EuclideanTransform(ProjectiveTransform):
    """Euclidean (rigid) transformation: rotation, then translation.

    Parameters
    ----------
    matrix : (D+1, D+1) array_like, optional
        Homogeneous transformation matrix.
    rotation : float or sequence of 3 floats, optional
        Clockwise rotation angle in radians (2-D), or intrinsic Euler angles about x, y, z (3-D).
    translation : sequence of D floats, optional
        Translation along each axis (any D).
    dimensionality : int, optional
        Fallback number of dimensions when no other parameter is given.
    """

    _estimate_scale = False

    def __init__(self, matrix=None, *, rotation=None, translation=None, dimensionality=None):
        if rotation is not None or translation is not None:
            if matrix is not None:
                raise ValueError("Do not specify any implicit parameters when matrix is specified.")
            matrix = self._rt2matrix(rotation, translation, self._rt_ndim(rotation, translation))
        super().__init__(matrix=matrix, dimensionality=dimensionality)

    @staticmethod
    def _rt_ndim(rotation, translation):
        """The dimensionality that rotation (scalar: 2-D, 3 angles: 3-D) or else translation implies."""
        if rotation is not None:
            n = 1 if np.isscalar(rotation) else len(rotation)
            if n not in (1, 3):
                raise ValueError("``rotations`` must be scalar (3D) or length 3 (3D)")
            return 2 if n == 1 else n
        if translation is not None:
            return 2 if np.isscalar(translation) else len(translation)
        return None

    @staticmethod
    def _rt2matrix(rotation, translation, ndim):
        m = np.eye(ndim + 1)
        if ndim == 2 and rotation is not None:
            cos, sin = math.cos(rotation), math.sin(rotation)
            m[:2, :2] = [[cos, -sin], [sin, cos]]
        elif ndim == 3 and rotation is not None:
            m[:3, :3] = _euler_rotation_matrix(rotation)
        if translation is not None:
            m[:ndim, ndim] = translation
        return m

    def _estimate(self, src, dst):
        self.params = _umeyama(np.asarray(src, np.float64), np.asarray(dst, np.float64), self._estimate_scale)
        return "Poor conditioning for estimation" if np.any(np.isnan(self.params)) else None

    @classmethod
    def from_estimate(cls, src, dst):
        """The least-squares transform (Umeyama's method) of corresponding points, or a falsy
        FailedEstimation."""
        return cls._from_estimate(src, dst)

    def estimate(self, src, dst):
        """Deprecated: estimate in place from corresponding points; returns whether it succeeded."""
        return self._deprecated_estimate(src, dst)

    @property
    def rotation(self):
        d = self.dimensionality
        if d == 2:
            return math.atan2(self.params[1, 0], self.params[1, 1])
        if d == 3:
            return self.params[:3, :3]
        raise NotImplementedError("Rotation only implemented for 2D and 3D transforms.")

    @property
    def translation(self):
        return self.params[:self.dimensionality, self.dimensionality]


class SimilarityTransform(EuclideanTransform):
    """Similarity transformation: one scale factor, rotation, then translation.

    Parameters
    ----------
    matrix : (D+1, D+1) array_like, optional
        Homogeneous transformation matrix.
    scale : float or sequence of D floats, optional
        Scale factor (a sequence scales each axis and sets D).
    rotation : float or sequence of 3 floats, optional
        Clockwise rotation angle in radians (2-D), or intrinsic Euler angles about x, y, z (3-D).
    translation : sequence of D floats, optional
        Translation along each axis.
    dimensionality : int, optional
        Number of dimensions when no other parameter sets it.
    """

    _estimate_scale = True

    def __init__(self, matrix=None, *, scale=None, rotation=None, translation=None, dimensionality=None):
        if scale is None:
            super().__init__(matrix, rotation=rotation, translation=translation, dimensionality=dimensionality)
            return
        if matrix is not None:
            raise ValueError("Do not specify any implicit parameters when matrix is specified.")
        scalar = np.isscalar(scale)
        if scalar and dimensionality not in (None, 2) and rotation is None and translation is None:
            warn_user("In the future, it will be a ValueError to pass a scalar `scale` value with a "
                      "``dimensionality`` > 2\n,and without other implicit parameters to indicate the "
                      "dimensionality of the transform.\nPlease indicate dimensionality by passing a vector of "
                      "suitable length to `scale`.", FutureWarning)
        ndim = len(scale) if not scalar else self._rt_ndim(rotation, translation)
        ndim = ndim or dimensionality or 2
        matrix = self._rt2matrix(rotation, translation, ndim)
        matrix[:ndim, :ndim] *= np.asarray(scale, dtype=float)
        super().__init__(matrix, dimensionality=dimensionality)

    @property
    def scale(self):
        d = self.dimensionality
        if d == 2:
            return np.sqrt(np.linalg.det(self.params))
        if d == 3:
            return np.cbrt(np.linalg.det(self.params))
        raise NotImplementedError("Scale is only implemented for 2D and 3D.")


def _piecewise(xp, entries, simplex, p):
    """Points p (n, D) through the homogeneous matrix of their simplex; -1 where the simplex is -1.
    entries: (D+1, D+1, simplices), the matrices by entry (each entry's values contiguous, cheap to gather;
    simplex -1 gathers the last simplex's, overwritten below)."""
    d = p.shape[1]

    def row(i):
        e = entries[i]
        h = e[0][simplex] * p[:, 0]
        for j in range(1, d):
            h = h + e[j][simplex] * p[:, j]
        return h + e[d][simplex]

    w = row(d)
    w = xp.where(w == 0, np.finfo(float).eps, w)
    out = xp.stack([row(i) / w for i in range(d)], axis=1)
    out[simplex == -1] = -1
    return out


class _SimplexGrid:
    """Point location in a Delaunay mesh without qhull's walk (for the GPU): a uniform grid over the mesh's
    bounding box lists, per cell, the simplices whose bounding boxes reach it (built once on the host); a
    point is tested against its cell's candidates with the simplices' barycentric transforms, as qhull's
    find_simplex tests them (within 100 machine epsilons). On an edge shared by two simplices either may
    be taken: the piecewise affine map is continuous there."""

    _EPS = 100 * np.finfo(float).eps
    _ROWS = 1 << 20     # points per pass (bounds the (rows, D, D) gathers)

    def __init__(self, mesh):
        self.mesh = mesh
        tri, pts = mesh.simplices, mesh.points
        n_simplex, d = tri.shape[0], pts.shape[1]
        self.lo = pts.min(axis=0)
        span = pts.max(axis=0) - self.lo
        corners = pts[tri]                                           # (T, D+1, D)
        g = max(1, math.ceil((4 * n_simplex) ** (1 / d)))           # about 4 cells per simplex
        while True:   # coarser where long slivers would list too many (cell, simplex) pairs
            self.g, self.size = g, np.where(span > 0, span / g, 1.0)
            first = self._cell(np, corners.min(axis=1))
            extent = self._cell(np, corners.max(axis=1)) - first + 1     # cells per axis of each simplex's box
            counts = np.prod(extent, axis=1)
            if g == 1 or counts.sum() <= 32 * n_simplex + 1024:
                break
            g = max(1, g // 2)
        owner = np.repeat(np.arange(n_simplex), counts)
        local = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        cell = np.zeros_like(local)
        for a in range(d):                                           # mixed radix: the cell within the box
            cell = cell * self.g + first[owner, a] + local // np.prod(extent[owner, a + 1:], axis=1) % extent[owner, a]
        order = np.argsort(cell, kind="stable")
        cell, owner = cell[order], owner[order]
        per_cell = np.bincount(cell, minlength=self.g ** d)
        k = int(per_cell.max()) if per_cell.size else 0
        table = np.full((self.g ** d, max(k, 1)), -1, dtype=np.int64)
        table[cell, np.arange(cell.size) - np.repeat(np.cumsum(per_cell) - per_cell, per_cell)] = owner
        self.table = table
        self.transform = np.nan_to_num(mesh.transform, nan=np.inf)   # degenerate simplices never match

    def _cell(self, xp, x):
        """Grid coordinates of points x (..., D), clipped into the grid."""
        return xp.clip(xp.floor((x - xp.asarray(self.lo)) / xp.asarray(self.size)).astype(xp.int64), 0, self.g - 1)

    def locate(self, xp, p):
        """Simplex index of each point of p (n, D), -1 outside the mesh."""
        table = xp.asarray(self.table)
        # the barycentric transforms by entry (i, j): one contiguous array of simplices each, cheap to gather
        tr = [[xp.asarray(np.ascontiguousarray(self.transform[:, i, j])) for j in range(self.transform.shape[2])]
              for i in range(self.transform.shape[1])]
        lo, hi = xp.asarray(self.lo), xp.asarray(self.lo + self.size * self.g)
        out = xp.full(p.shape[0], -1, dtype=xp.int64)
        for start in range(0, p.shape[0], self._ROWS):
            q = p[start:start + self._ROWS]
            inbox = (q[:, 0] >= lo[0]) & (q[:, 0] <= hi[0])
            for a in range(1, q.shape[1]):   # per column: NumPy's reductions over short rows are slow
                inbox &= (q[:, a] >= lo[a]) & (q[:, a] <= hi[a])
            self._locate_rows(xp, q, table, tr, inbox, out[start:start + q.shape[0]])
        return out

    def _locate_rows(self, xp, q, table, tr, inbox, out):
        d = q.shape[1]
        cells = self._cell(xp, q)
        flat = cells[:, 0]
        for a in range(1, d):
            flat = flat * self.g + cells[:, a]
        todo = xp.nonzero(inbox)[0]                 # points not located yet: only they test the next candidate
        for j in range(table.shape[1]):
            tid = table[flat[todo], j]
            listed = tid >= 0
            todo, tid = todo[listed], tid[listed]
            if todo.shape[0] == 0:
                break
            qt = q[todo]
            x = [qt[:, j] - tr[d][j][tid] for j in range(d)]            # from each simplex's last vertex
            inside = xp.ones(todo.shape[0], dtype=bool)
            rest = 1.0
            for i in range(d):                                           # barycentric coordinate i
                c = tr[i][0][tid] * x[0]
                for j in range(1, d):
                    c = c + tr[i][j][tid] * x[j]
                inside &= (c >= -self._EPS) & (c <= 1 + self._EPS)
                rest = rest - c
            inside &= (rest >= -self._EPS) & (rest <= 1 + self._EPS)
            out[todo[inside]] = tid[inside]
            todo = todo[~inside]


class PiecewiseAffineTransform(_GeometricTransform):
    """Piecewise affine transformation: a Delaunay triangulation of the control points, one affine
    transform per simplex. Coordinates outside the mesh map to -1.

    Attributes
    ----------
    affines : list of AffineTransform
        Affine transformations of the simplices.
    inverse_affines : list of AffineTransform
        Inverse affine transformations of the simplices of the destination mesh.
    """

    def __init__(self):
        self._tesselation = None
        self._inverse_tesselation = None
        self.affines = None
        self.inverse_affines = None

    @staticmethod
    def _pieces(mesh_points, to_points, direction):
        """Delaunay mesh of `mesh_points` and each simplex's affine map onto `to_points`, estimated as one
        batch; the failure messages."""
        mesh = spatial.Delaunay(mesh_points)
        tri = mesh.simplices
        d = mesh_points.shape[1]
        H, reasons = _homography(mesh_points[tri].astype(np.float64), to_points[tri].astype(np.float64),
                                 range(d * (d + 1)))
        affines, messages = [], []
        for i, (m, why) in enumerate(zip(H, reasons)):
            if why:
                messages.append(f"Failure at {direction} simplex {i}: AffineTransform: {why}")
            affines.append(AffineTransform(m))
        return mesh, affines, messages

    def _estimate(self, src, dst):
        src, dst = np.asarray(src), np.asarray(dst)
        self._tesselation, self.affines, fwd = self._pieces(src, dst, "forward")
        self._inverse_tesselation, self.inverse_affines, inv = self._pieces(dst, src, "inverse")
        return "; ".join(fwd + inv) or None

    def __call__(self, coords):
        """Transformed coordinates (N, D); -1 outside the mesh, on the coordinates' engine (NumPy in row
        blocks on the CPU engine's threads): point location over a grid of candidate simplices
        (_SimplexGrid, built once per mesh), then each point's simplex map."""
        lazy = _dask_rows(self, coords, coords.shape[1] if hasattr(coords, "shape") else 0)
        if lazy is not None:
            return lazy
        xp, pts, lib = _points(coords)
        mesh = self._tesselation
        entries = np.stack([a.params for a in self.affines], axis=-1).astype(np.float64)
        grid = self.__dict__.get("_grid")
        if grid is None or grid.mesh is not mesh:
            grid = self._grid = _SimplexGrid(mesh)
        return _rowwise(lambda xp, p: _piecewise(xp, xp.asarray(entries), grid.locate(xp, p), p), pts,
                        pts.shape[1], xp, lib)

    @property
    def inverse(self):
        """A transform object representing the inverse."""
        tf = type(self)()
        tf._tesselation = copy(self._inverse_tesselation)
        tf._inverse_tesselation = copy(self._tesselation)
        tf.affines = copy(self.inverse_affines)
        tf.inverse_affines = copy(self.affines)
        return tf

    @classmethod
    def identity(cls, dimensionality=None):
        """An empty transform (`dimensionality` is ignored)."""
        return cls()


class PolynomialTransform(_GeometricTransform):
    """2-D polynomial transformation:
    X = sum_j sum_i a_ji x^(j-i) y^i, Y = sum_j sum_i b_ji x^(j-i) y^i.

    Parameters
    ----------
    params : (2, N) array_like, optional
        Coefficients, N * 2 = (order + 1) * (order + 2): a_ji in params[0], b_ji in params[1].
    dimensionality : int, optional
        Must be 2 (the default).
    """

    def __init__(self, params=None, *, dimensionality=None):
        if dimensionality not in (None, 2):
            raise NotImplementedError("Polynomial transforms are only implemented for 2D.")
        self.params = np.array([[0, 1, 0], [0, 0, 1]] if params is None else _host(params))
        if self.params.ndim == 0 or self.params.shape[0] != 2:
            raise ValueError("Transformation parameters must be shape (2, N)")

    @staticmethod
    def _powers(order):
        """The exponents (j - i, i) of x and y, j = 0..order, i = 0..j, in the coefficients' order."""
        return [(j - i, i) for j in range(order + 1) for i in range(j + 1)]

    def _estimate(self, src, dst, order=2, weights=None):
        src, dst = np.asarray(src, np.float64), np.asarray(dst, np.float64)
        n = src.shape[0]
        order = int(safe_as_int(order))
        u = (order + 1) * (order + 2)
        check_allocation((2 * n, u + 1), np.float64)   # a huge order: NumPy's error before any work
        A = np.zeros((2 * n, u + 1))
        x, y = src[:, 0], src[:, 1]
        for k, (px, py) in enumerate(self._powers(order)):
            A[:n, k] = A[n:, k + u // 2] = x ** px * y ** py
        A[:n, -1], A[n:, -1] = dst[:, 0], dst[:, 1]
        if weights is not None:
            weights = np.asarray(weights)
            A = A * np.tile(np.sqrt(weights / np.max(weights)), 2)[:, None]
        V = _right_singular(A)
        self.params = (-V[-1, :-1] / V[-1, -1]).reshape(2, u // 2)
        return None

    @classmethod
    def from_estimate(cls, src, dst, order=2, weights=None):
        """The coefficients estimated by total least squares (optionally weighted per pair), or a falsy
        FailedEstimation."""
        return cls._from_estimate(src, dst, order, weights)

    def estimate(self, src, dst, order=2, weights=None):
        """Deprecated: estimate in place from corresponding points; returns whether it succeeded."""
        return self._deprecated_estimate(src, dst, order, weights)

    def __call__(self, coords):
        """Transformed coordinates (N, 2), on the coordinates' engine."""
        lazy = _dask_rows(self, coords, 2)
        if lazy is not None:
            return lazy
        xp, pts, lib = _points(coords)
        params = self.params
        order = int((-3 + math.sqrt(9 - 4 * (2 - params.size))) / 2)

        def fn(xp, p):
            c = xp.asarray(params, dtype=xp.float64)
            out = xp.zeros(p.shape)
            x, y = p[:, 0], p[:, 1]
            for k, (px, py) in enumerate(self._powers(order)):
                xp_, yp_ = x ** px, y ** py
                out[:, 0] += c[0, k] * xp_ * yp_     # scikit-image's product order (order 10 cancels)
                out[:, 1] += c[1, k] * xp_ * yp_
            return out

        return _rowwise(fn, pts, 2, xp, lib)

    @classmethod
    def identity(cls, dimensionality=None):
        """The identity transform (`dimensionality` must be None or 2)."""
        return cls(params=None, dimensionality=dimensionality)

    @property
    def inverse(self):
        raise NotImplementedError(
            "There is no explicit way to do the inverse polynomial transformation. Instead, estimate the "
            "inverse transformation parameters by exchanging source and destination coordinates,then apply "
            "the forward transformation.")


TRANSFORMS = {
    "euclidean": EuclideanTransform,
    "similarity": SimilarityTransform,
    "affine": AffineTransform,
    "piecewise-affine": PiecewiseAffineTransform,
    "projective": ProjectiveTransform,
    "fundamental": FundamentalMatrixTransform,
    "essential": EssentialMatrixTransform,
    "polynomial": PolynomialTransform,
}


def estimate_transform(ttype, src, dst, *args, **kwargs):
    """The transform of type `ttype` ('euclidean', 'similarity', 'affine', 'piecewise-affine',
    'projective', 'fundamental', 'essential', 'polynomial') estimated from corresponding points (extra
    arguments go to its ``from_estimate``), or a falsy FailedEstimation."""
    ttype = ttype.lower()
    if ttype not in TRANSFORMS:
        raise ValueError(f"the transformation type '{ttype}' is not implemented")
    return TRANSFORMS[ttype].from_estimate(src, dst, *args, **kwargs)


def matrix_transform(coords, matrix):
    """(N, D) coordinates through a homogeneous (D+1, D+1) matrix, on the coordinates' engine."""
    return ProjectiveTransform(matrix)(coords)
