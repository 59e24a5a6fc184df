"""Model fitting (skimage.measure.fit 0.26): CircleModel, EllipseModel, LineModelND and ransac.

Estimation is small dense linear algebra on a few points: it runs on the host. GPU data is copied to the
host, the fitted parameters are NumPy values (as scikit-image's), and what a method computes from the
caller's data (residuals, predictions, ransac's inlier mask) comes back as the caller's array type.
0.26's deprecations are kept: ``Model()`` without arguments, ``estimate``, the ``params`` attribute and
``params=`` arguments warn with FutureWarning; ``from_estimate`` returns the model or a falsy
:class:`FailedEstimation`.
"""
from __future__ import annotations

import inspect
import math
from typing import Protocol, runtime_checkable
from warnings import catch_warnings

import numpy as np
from scipy import optimize, spatial

from .._engine import from_host, library_of, to_working
from ..morphology._footprints import warn_user   # warnings at the user's line, accelerated or not

_SINCE, _UNTIL = "0.26", "2.2"


class DEPRECATED:
    """Default of the deprecated ``params`` arguments: not given."""


class FailedEstimationAccessError(AttributeError):
    """Use of a :class:`FailedEstimation` as if it were a model."""


class FailedEstimation:
    """What ``from_estimate`` returns when estimation fails: falsy, its message as str; any attribute
    access or call raises FailedEstimationAccessError."""

    def __init__(self, message):
        self.message = message

    def __bool__(self):
        return False

    def __repr__(self):
        return f"{type(self).__name__}({self.message!r})"

    def __str__(self):
        return self.message

    def __call__(self, *args, **kwargs):
        raise FailedEstimationAccessError(f"{type(self).__name__} is not callable. {self.message}")

    def __getattr__(self, name):
        raise FailedEstimationAccessError(f"{type(self).__name__} has no attribute {name!r}. {self.message}")


@runtime_checkable
class RansacModelProtocol(Protocol):
    """Protocol for `ransac` model class."""

    @classmethod
    def from_estimate(cls, *data): ...

    def residuals(self, *data): ...


def _to_host(x):
    """(NumPy array of x, x's GPU library or None)."""
    lib = library_of(x)
    if lib in (None, "numpy"):
        return x, None
    return to_working(x, lib).get(), lib


def _check_dim(data, dim):
    if data.ndim != 2 or data.shape[1] != dim:
        raise ValueError(f"Input data must have shape (N, {dim}).")


def _check_atleast_2d(data):
    if data.ndim < 2 or data.shape[1] < 2:
        raise ValueError("Input data must be at least 2D.")


def _failed(msg, warn_only):
    """The deprecated ``estimate`` warns and reports success (None); ``from_estimate`` gets the message."""
    if not warn_only:
        return msg
    warn_user(msg, RuntimeWarning)
    return None


def _warn_params(method, params):
    if params is not DEPRECATED:
        warn_user(f"Parameter `params` is deprecated since version {_SINCE} and will be removed in {_UNTIL} (or "
                  f"later). To avoid this warning, please do not use the parameter `params`. For more details, see the "
                  f"documentation of `{method}`.", FutureWarning)


def _warn_deprecated(name, hint):
    warn_user(f"`{name}` is deprecated since version {_SINCE} and will be removed in version {_UNTIL}. {hint}.",
              FutureWarning)


class _Model:
    """What the three models share: construction from their parameters (or, deprecated, none),
    ``from_estimate``, the deprecated ``estimate`` and ``params``. A subclass names its parameters in
    ``_init_args`` and gives ``_check(*values)``, ``_split(params)`` and ``_estimate(data, warn_only)``."""

    _init_args: tuple = ()

    def _init(self, *args, **kwargs):
        if args or kwargs:
            values = inspect.signature(type(self)._check).bind(None, *args, **kwargs).args[1:]
            for k, v in zip(self._init_args, self._check(*values)):
                setattr(self, k, v)
            return
        name = type(self).__name__
        warn_user(f"Calling ``{name}()`` (without arguments) has been deprecated since version {_SINCE} and will be "
                  f"removed in version {_UNTIL}; see help for ``{name}``.", FutureWarning)
        for k in self._init_args:
            setattr(self, k, None)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)

        def __init__(self, *args, **kwargs):
            self._init(*args, **kwargs)

        # the signature scikit-image shows: the model's parameters, no defaults
        __init__.__signature__ = inspect.signature(cls._check)
        cls.__init__ = __init__

    @classmethod
    def from_estimate(cls, data):
        """The model fitted to `data`, or a falsy FailedEstimation saying why not."""
        data, _ = _to_host(data)
        with catch_warnings(action="ignore"):
            model = cls()
        msg = model._estimate(data, warn_only=False)
        return model if msg is None else FailedEstimation(f"{cls.__name__}: {msg}")

    def estimate(self, data):
        """Deprecated: fit in place; returns whether it succeeded."""
        _warn_deprecated("estimate", f"Please use `{type(self).__name__}.from_estimate` class constructor instead")
        return self._estimate(_to_host(data)[0]) is None

    @property
    def params(self):
        """Deprecated: the parameters as one vector (the line: (origin, direction))."""
        _warn_deprecated("params", f"`params` attribute deprecated; use {self._PARAMS_HINT} attributes instead")
        return self._params()

    def _values(self, params):
        """The model's parameters, or those of `params` (deprecated argument)."""
        if params is None or params is DEPRECATED:
            if getattr(self, self._init_args[0]) is None:
                name = type(self).__name__
                raise ValueError(f"`params` argument must be specified when applied to model initialized with "
                                 f"``{name}()``; Consider creating new {name} with suitable input arguments, or "
                                 f"by using ``{name}.from_estimate``.")
            return [getattr(self, a) for a in self._init_args]
        return self._split(params)


def _standardized(data):
    """Data in a float type, centred and scaled by its std (None where the std is too small to divide by):
    (data, float type, origin, scale)."""
    ft = np.promote_types(data.dtype, np.float32)
    data = data.astype(ft, copy=False)
    origin = data.mean(axis=0)
    data = data - origin
    scale = data.std()
    if scale < np.finfo(ft).tiny:
        return None, ft, origin, scale
    return data / scale, ft, origin, scale


class LineModelND(_Model):
    """An N-D line ``X = origin + lambda * direction``."""

    _init_args = ("origin", "direction")
    _PARAMS_HINT = "``origin, direction``"

    def _check(self, origin, direction):
        origin, direction = np.array(origin), np.array(direction)
        if len(origin) != len(direction):
            raise ValueError("Direction vector should be same length as origin point.")
        return origin, direction

    def _split(self, params):
        if len(params) != 2:
            raise ValueError("Input `params` should be length 2")
        return self._check(*params)

    def _params(self):
        return self.origin, self.direction

    def _estimate(self, data, warn_only=True):
        _check_atleast_2d(data)
        origin = data.mean(axis=0)
        data = data - origin
        if data.shape[0] == 2:   # the line through both points
            direction = data[1] - data[0]
            norm = np.linalg.norm(direction)
            if norm != 0:
                direction /= norm
        elif data.shape[0] > 2:  # least squares: the first right singular vector
            direction = np.linalg.svd(data, full_matrices=False)[2][0]
        else:
            return "estimate under-determined"
        self.origin, self.direction = origin, direction
        return None

    def residuals(self, data, params=DEPRECATED):
        """Distances of the points `data` to the line."""
        _warn_params("LineModelND.residuals", params)
        data, lib = _to_host(data)
        _check_atleast_2d(data)
        origin, direction = self._values(params)
        if len(origin) != data.shape[1]:
            raise ValueError(f"`origin` is {len(origin)}D, but `data` is {data.shape[1]}D")
        d = data - origin
        return from_host(np.linalg.norm(d - (d @ direction)[..., None] * direction, axis=1), lib)

    def _predict(self, x, axis, params):
        x, lib = _to_host(x)
        origin, direction = self._values(params)
        if direction[axis] == 0:
            raise ValueError(f"Line parallel to axis {axis}")
        t = (x - origin[axis]) / direction[axis]
        return origin + t[..., None] * direction, lib

    def predict(self, x, axis=0, params=DEPRECATED):
        """The points of the line whose coordinate along `axis` is `x`."""
        _warn_params("LineModelND.predict", params)
        return from_host(*self._predict(x, axis, params))

    def predict_x(self, y, params=DEPRECATED):
        """The x (axis 0) of the 2-D line's points at `y`."""
        _warn_params("LineModelND.predict_x", params)
        pts, lib = self._predict(y, 1, params)
        return from_host(pts[:, 0], lib)

    def predict_y(self, x, params=DEPRECATED):
        """The y (axis 1) of the 2-D line's points at `x`."""
        _warn_params("LineModelND.predict_y", params)
        pts, lib = self._predict(x, 0, params)
        return from_host(pts[:, 1], lib)


class CircleModel(_Model):
    """A circle ``(x - xc)**2 + (y - yc)**2 = r**2``, fitted by algebraic least squares."""

    _init_args = ("center", "radius")
    _PARAMS_HINT = "`center, radius`"

    def _check(self, center, radius):
        center = np.array(center)
        if len(center) != 2:
            raise ValueError("Center coordinates should be length 2")
        return center, radius

    def _split(self, params):
        params = np.array(params)
        if len(params) != 3:
            raise ValueError("Input `params` should be length 3")
        return self._check(params[:2], params[2])

    def _params(self):
        return np.r_[self.center, self.radius]

    def _estimate(self, data, warn_only=True):
        _check_dim(data, 2)
        data, ft, origin, scale = _standardized(data)
        if data is None:
            return _failed("Standard deviation of data is too small to estimate circle with meaningful precision.",
                           warn_only)
        # x^2 + y^2 = 2 xc x + 2 yc y + (r^2 - xc^2 - yc^2): linear in (xc, yc, c)
        A = np.append(data * 2, np.ones((data.shape[0], 1), dtype=ft), axis=1)
        sol, _, rank, _ = np.linalg.lstsq(A, np.sum(data**2, axis=1), rcond=None)
        if rank != 3:
            return _failed("Input does not contain enough significant data points.", warn_only)
        center = sol[:2]
        r = np.sqrt(np.mean(spatial.minkowski_distance(center, data) ** 2))   # float64 sums, as scikit-image
        self.center, self.radius = center * scale + origin, r * scale
        return None

    def residuals(self, data):
        """Signed distances ``r - |p - center|`` of the points `data`."""
        data, lib = _to_host(data)
        _check_dim(data, 2)
        (xc, yc), r = self.center, self.radius
        return from_host(r - np.sqrt((data[:, 0] - xc) ** 2 + (data[:, 1] - yc) ** 2), lib)

    def predict_xy(self, t, params=DEPRECATED):
        """The circle's points at angles `t`, shape ``t.shape + (2,)``."""
        _warn_params("CircleModel.predict_xy", params)
        t, lib = _to_host(t)
        t = np.asanyarray(t)
        (xc, yc), r = self._values(params)
        return from_host(np.stack((xc + r * np.cos(t), yc + r * np.sin(t)), axis=-1), lib)


class EllipseModel(_Model):
    """An ellipse of `center`, semi-axis lengths `axis_lengths` and rotation `theta`, fitted by Halir and
    Flusser's direct least squares."""

    _init_args = ("center", "axis_lengths", "theta")
    _PARAMS_HINT = "`center, axis_lengths, theta`"

    def _check(self, center, axis_lengths, theta):
        center, axis_lengths = np.array(center), np.array(axis_lengths)
        if len(center) != 2:
            raise ValueError("Center coordinates should be length 2")
        if len(axis_lengths) != 2:
            raise ValueError("Axis lengths should be length 2")
        return center, axis_lengths, theta

    def _split(self, params):
        params = np.array(params)
        if len(params) != 5:
            raise ValueError("Input `params` should be length 5")
        return self._check(params[:2], params[2:4], params[4])

    def _params(self):
        return np.r_[self.center, self.axis_lengths, self.theta]

    def _estimate(self, data, warn_only=True):
        _check_dim(data, 2)
        if len(data) < 5:
            return _failed("Need at least 5 data points to estimate an ellipse.", warn_only)
        data, _, origin, scale = _standardized(data)
        if data is None:
            return _failed("Standard deviation of data is too small to estimate ellipse with meaningful precision.",
                           warn_only)
        x, y = data[:, 0], data[:, 1]
        # quadratic (D1) and linear (D2) parts of the conic; the constraint 4ac - b^2 = 1 reduces the
        # generalized eigenproblem to 3x3 (Halir & Flusser 1998)
        # transposed stacks, as scikit-image lays them out: BLAS takes another kernel (and rounding) for the
        # float32 products of other layouts
        D1 = np.vstack([x**2, x * y, y**2]).T
        D2 = np.vstack([x, y, np.ones_like(x)]).T
        S1, S2, S3 = D1.T @ D1, D1.T @ D2, D2.T @ D2
        C1 = np.array([[0.0, 0.0, 2.0], [0.0, -1.0, 0.0], [2.0, 0.0, 0.0]])
        try:
            S3inv = np.linalg.inv(S3)
            M = np.linalg.inv(C1) @ (S1 - S2 @ S3inv @ S2.T)
        except np.linalg.LinAlgError:
            return "Singular matrix from estimation"
        vecs = np.linalg.eig(M)[1]
        a1 = vecs[:, 4 * vecs[0, :] * vecs[2, :] - vecs[1, :] ** 2 > 0]
        if 0 in a1.shape or a1.size != 3:
            return "Eigenvector constraints not met"
        a, b, c = a1.ravel()
        d, f, g = (-S3inv @ S2.T @ a1).ravel()
        b, d, f = b / 2.0, d / 2.0, f / 2.0
        den = b**2.0 - a * c
        x0, y0 = (c * d - b * f) / den, (a * f - b * d) / den
        num = a * f**2 + c * d**2 + g * b**2 - 2 * b * d * f - a * c * g
        term = np.sqrt((a - c) ** 2 + 4 * b**2)
        width = np.sqrt(2 * num / ((b**2 - a * c) * (term - (a + c))))
        height = np.sqrt(2 * num / ((b**2 - a * c) * (-term - (a + c))))
        phi = 0.5 * np.arctan((2.0 * b) / (a - c))
        if a > c:
            phi += 0.5 * np.pi
        if width < height:
            width, height = height, width
            phi += np.pi / 2
        phi %= np.pi
        p = np.nan_to_num([x0, y0, width, height, phi]).real
        p[:4] *= scale
        p[:2] += origin
        self.center, self.axis_lengths, self.theta = p[:2], p[2:4], p[-1]
        return None

    def residuals(self, data):
        """Shortest distances of the points `data` to the ellipse (per point, a 1-D least-squares search
        of the ellipse's parameter from the point's polar angle)."""
        data, lib = _to_host(data)
        _check_dim(data, 2)
        (xc, yc), (a, b), theta = self.center, self.axis_lengths, self.theta
        ct, st = math.cos(theta), math.sin(theta)

        def dist2(t, xi, yi):
            c, s = math.cos(np.squeeze(t)), math.sin(np.squeeze(t))
            return (xi - (xc + a * ct * c - b * st * s)) ** 2 + (yi - (yc + a * st * c + b * ct * s)) ** 2

        x, y = data[:, 0], data[:, 1]
        t0 = np.arctan2(y - yc, x - xc) - theta
        out = np.empty(data.shape[0], dtype=np.float64)
        for i in range(data.shape[0]):
            t = optimize.leastsq(dist2, t0[i], args=(x[i], y[i]))[0]
            out[i] = np.sqrt(dist2(t, x[i], y[i]))
        return from_host(out, lib)

    def predict_xy(self, t, params=DEPRECATED):
        """The ellipse's points at parameters `t`, shape ``t.shape + (2,)``."""
        _warn_params("EllipseModel.predict_xy", params)
        t, lib = _to_host(t)
        t = np.asanyarray(t)
        (xc, yc), (a, b), theta = self._values(params)
        c, s = np.cos(t), np.sin(t)
        ct, st = math.cos(theta), math.sin(theta)
        return from_host(np.stack((xc + a * ct * c - b * st * s, yc + a * st * c + b * ct * s), axis=-1), lib)


def _max_trials(n_inliers, n_samples, min_samples, probability):
    """Trials after which, with `probability`, one sample held only inliers (at this inlier ratio)."""
    if probability == 0:
        return 0
    if n_inliers == 0:
        return np.inf
    eps = np.spacing(1)
    nom = np.clip(1 - probability, eps, 1 - eps)
    denom = np.clip(1 - (n_inliers / n_samples) ** min_samples, eps, 1 - eps)
    return np.ceil(np.log(nom) / np.log(denom))


def _with_from_estimate(cls):
    """`cls`, or (deprecated) a subclass giving a class with only ``estimate`` its ``from_estimate``."""
    if hasattr(cls, "from_estimate"):
        if not inspect.ismethod(cls.from_estimate):
            raise TypeError(f"Class {cls} `from_estimate` must be a class method.")
        return cls
    if not hasattr(cls, "estimate"):
        raise TypeError(f"Class {cls} must have `from_estimate` class method or `estimate` method.")
    warn_user("Passing custom classes without `from_estimate` has been deprecated since version 0.26 and will be "
              "removed in version 2.2. Add `from_estimate` class method to custom class to avoid this warning.",
              FutureWarning)

    class FromEstimated(cls):
        @classmethod
        def from_estimate(klass, *args, **kwargs):
            model = klass()
            return model if model.estimate(*args, **kwargs) else FailedEstimation(
                f"`{cls.__name__}` estimation failed")

    return FromEstimated


def ransac(data, model_class, min_samples, residual_threshold, is_data_valid=None, is_model_valid=None,
           max_trials=100, stop_sample_num=np.inf, stop_residuals_sum=0, stop_probability=1, rng=None,
           initial_inliers=None):
    """Fit `model_class` robustly to `data` (an array or a sequence of arrays of N rows) by random sample
    consensus: the model of the min_samples-point sample with the most inliers (ties: the smallest sum of
    squared residuals), refitted to its inliers. Returns (model, inliers) or (None, None) with a warning.
    The same `rng` draws the same samples as scikit-image 0.26 (one ``choice`` per trial, drawn before
    the sample is used, the first replaced by `initial_inliers` if given)."""
    rng = np.random.default_rng(rng)
    seq = isinstance(data, (tuple, list))
    host = [_to_host(d) for d in (data if seq else (data,))]
    data = [d for d, _ in host]
    lib = next((lib for _, lib in host if lib is not None), None)
    n = len(data[0])
    if not (0 < min_samples <= n):
        raise ValueError(f"`min_samples` must be in range (0, {n}]")
    if residual_threshold < 0:
        raise ValueError("`residual_threshold` must be greater than zero")
    if max_trials < 0:
        raise ValueError("`max_trials` must be greater than zero")
    if not (0 <= stop_probability <= 1):
        raise ValueError("`stop_probability` must be in range [0, 1]")
    if initial_inliers is not None:
        initial_inliers = _to_host(initial_inliers)[0]
        if len(initial_inliers) != n:
            raise ValueError(f"RANSAC received a vector of initial inliers (length {len(initial_inliers)}) that "
                             f"didn't match the number of samples ({n}). The vector of initial inliers should have "
                             f"the same length as the number of samples and contain only True (this sample is an "
                             f"initial inlier) and False (this one isn't) values.")
    sample = initial_inliers if initial_inliers is not None else rng.choice(n, min_samples, replace=False)
    model_class = _with_from_estimate(model_class)
    if not isinstance(model_class, RansacModelProtocol):
        raise TypeError(f"`model_class` {model_class} should be of (protocol) type RansacModelProtocol")

    best_count, best_sum, best = 0, np.inf, []
    trials = 0
    while trials < max_trials:
        trials += 1
        samples = [d[sample] for d in data]
        sample = rng.choice(n, min_samples, replace=False)   # the next trial's, drawn now as scikit-image does
        if is_data_valid is not None and not is_data_valid(*samples):
            continue
        model = model_class.from_estimate(*samples)
        if not model:
            continue
        if is_model_valid is not None and not is_model_valid(model, *samples):
            continue
        res = np.abs(_to_host(model.residuals(*data))[0])
        inliers = res < residual_threshold
        res_sum = res.dot(res)
        count = np.count_nonzero(inliers)
        if count > best_count or (count == best_count and res_sum < best_sum):
            best_count, best_sum, best = count, res_sum, inliers
            max_trials = min(max_trials, _max_trials(best_count, n, min_samples, stop_probability))
            if best_count >= stop_sample_num or best_sum <= stop_residuals_sum:
                break
    if any(best):
        inlier_data = [d[best] for d in data]
        model = model_class.from_estimate(*inlier_data)
        if is_model_valid is not None and not is_model_valid(model, *inlier_data):
            warn_user("Estimated model is not valid. Try increasing max_trials.")
        best = from_host(best, lib)
    else:
        model = best = None
        warn_user("No inliers found. Model not fitted")
    return getattr(model, "model", model), best
