"""Argument handling shared by the ndimage primitives, following scipy.ndimage's rules and messages."""
from __future__ import annotations

import operator

import numpy as np

from .._engine import xp_of

_MODES = {"reflect": 0, "grid-mirror": 0, "constant": 1, "grid-constant": 1, "nearest": 2,
          "mirror": 3, "wrap": 4, "grid-wrap": 4}


def mode_code(mode):
    try:
        return _MODES[mode]
    except (KeyError, TypeError):
        raise RuntimeError("boundary mode not supported") from None


def as_input(input):
    """scipy's coercion: array-likes become NumPy arrays; complex input is refused (not supported)."""
    if not hasattr(input, "dtype") or not hasattr(input, "shape"):
        input = np.asarray(input)
    if input.dtype.kind == "c":
        raise TypeError("ndimg.ndimage does not support complex input")
    if input.dtype.kind not in "biuf":
        raise RuntimeError("array type not supported")
    if input.dtype == np.float16:
        input = input.astype(np.float32)
    return input


def normalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim) if hasattr(np, "exceptions") else ValueError("axis out of range")
    return axis % ndim


def normalize_axes(axes, ndim):
    if axes is None:
        return tuple(range(ndim))
    if np.isscalar(axes):
        axes = (axes,)
    axes = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("axes must be unique")
    return axes


def per_axis(value, n, name="value"):
    """A scalar or a sequence of n values, as a list of n (scipy's _normalize_sequence)."""
    if isinstance(value, str) or not hasattr(value, "__len__"):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise RuntimeError("sequence argument must have length equal to input rank")
    return value


def get_output(output, input, shape=None):
    """scipy's output argument: None (input's dtype), a dtype, or an array of the right shape."""
    xp = xp_of(input)
    shape = input.shape if shape is None else shape
    if output is None:
        return xp.empty(shape, dtype=input.dtype)
    if isinstance(output, (type, np.dtype, str)):
        dt = np.dtype(output)
        if dt.kind == "c":
            raise TypeError("ndimg.ndimage does not support complex output")
        return xp.empty(shape, dtype=dt)
    if xp_of(output) is not xp:
        raise TypeError("output must be an array of the same library and device as input")
    if output.shape != tuple(shape):
        raise RuntimeError("output shape not correct")
    return output


def may_share(a, b):
    xp = xp_of(a)
    return xp.may_share_memory(a, b) if hasattr(xp, "may_share_memory") else True
