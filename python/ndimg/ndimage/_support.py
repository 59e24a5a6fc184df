"""Argument handling shared by the ndimage primitives, following scipy.ndimage's rules and messages."""
from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Iterable

import numpy as np

from .. import _core
from .._engine import xp_of

_M = _core.Mode
_MODES = {"reflect": _M.reflect, "grid-mirror": _M.reflect, "constant": _M.constant, "grid-constant": _M.constant,
          "nearest": _M.nearest, "mirror": _M.mirror, "wrap": _M.wrap, "grid-wrap": _M.wrap}


def mode_code(mode):
    try:
        return _MODES[mode]
    except (KeyError, TypeError):
        raise RuntimeError("boundary mode not supported") from None


def as_input(input, dtype_in_message=True):
    """scipy's coercion: array-likes become NumPy arrays, other byte orders the native one (scipy's results
    are native too); float16 and non-numeric types are refused with scipy's RuntimeError, whose message
    names the dtype in the 1-D and separable filters (`dtype_in_message`) and not in the n-D ones."""
    if not hasattr(input, "dtype") or not hasattr(input, "shape"):
        input = np.asarray(input)
    dt = check_dtype(input.dtype, dtype_in_message)
    if not dt.isnative:
        input = input.astype(dt.newbyteorder("="))
    return input


def check_dtype(dt, dtype_in_message=True, real=False):
    """The array types scipy.ndimage filters: bool, integers, float32/64 and complex64/128 (not `real`: the
    filters whose C layer has no complex loops, such as the rank family's output)."""
    if dt.kind == "U":  # scipy makes its output from the dtype's name, which NumPy does not take back for str
        raise TypeError(f"data type {dt.name!r} not understood")
    if dt.kind not in "biufc" or dt.itemsize > 16 or (dt.kind == "f" and dt.itemsize not in (4, 8)) \
            or (dt.kind == "c" and (real or dt.itemsize not in (8, 16))):
        raise RuntimeError(f"array type {dt!r} not supported" if dtype_in_message else "array type not supported")
    return dt


def check_origin_1d(size, origin):
    """scipy's origin check for a window of `size` (uniform, minimum and maximum filters); the origin as an int."""
    if not 0 <= size // 2 + origin < size:
        raise ValueError("invalid origin")
    return operator.index(origin)


def is_complex(value):
    """A complex scalar or array (np.iscomplexobj without its cost: cval is checked on every call)."""
    t = type(value)
    if t is float or t is int:
        return False
    return isinstance(value, complex) or getattr(getattr(value, "dtype", None), "kind", "") == "c"


def real_cval(cval):
    """cval as the float scipy's C layer takes, with its TypeError for strings and complex values."""
    if type(cval) is float:
        return cval
    if isinstance(cval, (str, bytes)) or is_complex(cval):
        raise TypeError(f"must be real number, not {type(cval).__name__}")
    return float(cval)


def no_complex(input):
    """The filters scipy refuses complex input to (the rank family)."""
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")


def normalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim) if hasattr(np, "exceptions") else ValueError("axis out of range")
    return axis % ndim


def normalize_axes(axes, ndim):
    """scipy's `axes` argument: None (all), an integer or an iterable of unique integers, with its errors."""
    if axes is None:
        return tuple(range(ndim))
    if np.isscalar(axes):
        axes = (operator.index(axes),)
    elif isinstance(axes, Iterable):
        axes = tuple(operator.index(ax) for ax in axes)
    else:
        raise ValueError("axes must be an integer, iterable of integers, or None")
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise ValueError(f"specified axis: {ax} is out of range")
    axes = tuple(ax % ndim for ax in axes)
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


def get_output(output, input, shape=None, complex_output=False):
    """scipy's output argument: None (input's dtype; complex_output: promoted to complex), a dtype, or an
    array of the right shape, with scipy's rules and messages for complex results."""
    xp = xp_of(input)
    shape = input.shape if shape is None else tuple(shape)
    if output is None:
        dt = np.promote_types(input.dtype, np.complex64) if complex_output else input.dtype
        return xp.empty(shape, dtype=dt)
    if isinstance(output, (type, np.dtype, str)):
        dt = np.dtype(output)
        if complex_output and dt.kind != "c":
            if isinstance(output, str):
                raise RuntimeError("output must have complex dtype")
            warnings.warn("promoting specified output dtype to complex", stacklevel=4)
            dt = np.promote_types(dt, np.complex64)
        if isinstance(output, str) and not issubclass(dt.type, np.number):
            raise RuntimeError("output must have numeric dtype")
        return xp.empty(shape, dtype=check_dtype(dt))
    if xp is np and not hasattr(output, "shape"):  # scipy's np.asarray: a list is filled and returned as an array
        output = np.asarray(output)
    if xp_of(output) is not xp:
        raise TypeError("output must be an array of the same library and device as input")
    if output.shape != shape:
        raise RuntimeError("output shape not correct")
    if complex_output and output.dtype.kind != "c":
        raise RuntimeError("output must have complex dtype")
    check_dtype(output.dtype)
    return output


def may_share(a, b):
    xp = xp_of(a)
    return xp.may_share_memory(a, b) if hasattr(xp, "may_share_memory") else True


def native_output(fn):
    """Filters write the native byte order: an output array in another one is filled from a native copy."""
    import inspect

    at = list(inspect.signature(fn).parameters).index("output")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = args[at] if at < len(args) else kwargs.get("output")
        if not isinstance(out, np.ndarray) or out.dtype.isnative:
            return fn(*args, **kwargs)
        tmp = np.empty(out.shape, out.dtype.newbyteorder("="))
        if at < len(args):
            args = args[:at] + (tmp,) + args[at + 1:]
        else:
            kwargs["output"] = tmp
        out[...] = fn(*args, **kwargs)
        return out

    return wrapper


def complex_via_real(func, input, weights, output, cval, **kwargs):
    """scipy's complex filtering by a linear filter `func(input, weights, output=, cval=, **kwargs)`: real
    filters of the real and imaginary parts of the input and the weights, combined into the complex
    `output` (an array)."""
    re, im = np.real(cval), np.imag(cval)
    if input.dtype.kind == "c" and weights.dtype.kind == "c":
        func(input.real, weights.real, output=output.real, cval=re, **kwargs)
        output.real -= func(input.imag, weights.imag, output=None, cval=im, **kwargs)
        func(input.real, weights.imag, output=output.imag, cval=re, **kwargs)
        output.imag += func(input.imag, weights.real, output=None, cval=im, **kwargs)
    elif input.dtype.kind == "c":
        func(input.real, weights, output=output.real, cval=re, **kwargs)
        func(input.imag, weights, output=output.imag, cval=im, **kwargs)
    else:
        if np.iscomplexobj(cval):
            raise ValueError("Cannot provide a complex-valued cval when the input is real.")
        func(input, weights.real, output=output.real, cval=cval, **kwargs)
        func(input, weights.imag, output=output.imag, cval=cval, **kwargs)
    return output
