"""Filters with a caller's function (scipy.ndimage semantics): generic_filter, generic_filter1d,
generic_laplace, generic_gradient_magnitude and vectorized_filter.

generic_filter and generic_filter1d call a Python function (or a scipy.LowLevelCallable's C function) per
window or per line, on the CPU: the windows are gathered in C++ into one reusable float64 array that each
call receives (a function that keeps it finds it refilled by the next call; scipy passes a fresh copy).
GPU input raises a TypeError: vectorized_filter runs a vectorized function on CuPy arrays instead.
generic_laplace and generic_gradient_magnitude run on the input's engine: their derivative gets the
engine's arrays (NumPy or CuPy).
"""
from __future__ import annotations

import ctypes
import math
import operator
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from ._footprint import check_footprint_shape, expand_footprint, tap_offsets, to_host
from ._rank import _MAX_BOX_TAPS, _check_footprint_origins
from ._separable import sum_over_axes
from ._support import (as_input, check_dtype, get_output, mode_code, native_output, normalize_axes, normalize_axis,
                       per_axis, real_cval)

# ---------------------------------------------------------------------------------------------------
# the function argument: a Python callable, a scipy.LowLevelCallable or a legacy PyCapsule (no name)
# ---------------------------------------------------------------------------------------------------
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule" and type(obj).__module__ == "builtins"


def _signatures(template):
    """scipy's accepted C signatures: the index type spelled intptr_t, npy_intp, or the C type of its size."""
    names = ["intptr_t", "npy_intp"] + [c for c, t in (("short", ctypes.c_short), ("int", ctypes.c_int),
                                                        ("long", ctypes.c_long), ("long long", ctypes.c_longlong))
                                        if ctypes.sizeof(t) == ctypes.sizeof(ctypes.c_ssize_t)]
    return [template.format(i=n) for n in names]


_WINDOW_SIGNATURES = _signatures("int (double *, {i}, double *, void *)")
_LINE_SIGNATURES = _signatures("int (double *, {i}, double *, {i}, void *)")


def _callback(function, signatures, extra_arguments, extra_keywords):
    """What the core calls: a Python callable as is, a C function as its PyCapsule (signature checked), with
    scipy's errors."""
    if not isinstance(extra_arguments, tuple):
        raise RuntimeError("extra_arguments must be a tuple")
    if not isinstance(extra_keywords, dict):
        raise RuntimeError("extra_keywords must be a dictionary")
    if _is_capsule(function) and _capsule_name(function) is None:   # a legacy low-level function
        return function
    if callable(function):
        return function
    if isinstance(function, tuple) and type(function).__name__ == "LowLevelCallable":
        capsule = tuple.__getitem__(function, 0)
        if _is_capsule(capsule):
            name = _capsule_name(capsule)
            name = name.decode() if name is not None else "NULL"
            if name not in signatures:
                raise ValueError(f'Invalid scipy.LowLevelCallable signature "{name}". Expected one of: {signatures!r}')
            return capsule
    raise ValueError("invalid callable given")


def _host_only(input, name):
    if xp_of(input) is not np:
        raise TypeError(f"{name} calls its function on the CPU, one window at a time: pass a NumPy array "
                        "(e.g. cupy.asnumpy(x)), or use vectorized_filter with a function that takes CuPy arrays")


def _writable(output):
    if isinstance(output, np.ndarray) and not output.flags.writeable:
        raise ValueError("output array is read-only.")


_MAX_LINE = 1 << 27   # generic_filter1d's longest filter: its extended lines are float64 buffers


def _index(value):
    """An integer argument scipy's C layer takes (a float is a TypeError)."""
    return operator.index(value)


@engine_aware("input", "output")
@native_output
def generic_filter(input, function, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0,
                   extra_arguments=(), extra_keywords=None, *, axes=None):
    """`function(window values, *extra_arguments, **extra_keywords)` at every element, the window's values (the
    footprint's, in C order, extended by `mode`) as a float64 array (scipy.ndimage.generic_filter). CPU only."""
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)
    _host_only(input, "generic_filter")
    extra_keywords = {} if extra_keywords is None else extra_keywords
    input = np.asarray(input)
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    axes = normalize_axes(axes, input.ndim)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        sizes = per_axis(size, len(axes))
        if math.prod(_index(s) for s in sizes) > _MAX_BOX_TAPS:
            raise MemoryError(f"a window of {math.prod(sizes)} elements is too large (at most {_MAX_BOX_TAPS})")
        footprint = np.ones(sizes, dtype=bool)
    else:
        footprint = np.asarray(to_host(footprint), dtype=bool)
        if np.count_nonzero(footprint) > _MAX_BOX_TAPS:
            raise MemoryError(f"a footprint of {np.count_nonzero(footprint)} elements is too large (at most "
                              f"{_MAX_BOX_TAPS})")
    footprint = expand_footprint(input.ndim, axes, footprint)
    origins = [_index(o) for o in per_axis(origin, len(axes))]
    full = [0] * input.ndim
    for o, ax in zip(origins, axes):
        full[ax] = o
    check_footprint_shape(footprint, input.ndim, len(axes))
    _check_footprint_origins(footprint, full)
    input = as_input(input, dtype_in_message=False)
    out = get_output(output, input)
    _writable(out)
    code, cval = mode_code(mode), real_cval(cval)
    fn = _callback(function, _WINDOW_SIGNATURES, extra_arguments, extra_keywords)
    check_dtype(out.dtype, False, real=True)
    if input.ndim == 0:   # the core takes arrays of at least one dimension: every tap reads the one element
        offsets, src, dst = (0,) * int(footprint.sum()), input.reshape(1), out.reshape(1)
    else:
        offsets, src, dst = tap_offsets(footprint, full)[0], input, out
    _core.generic_filter(src, dst, offsets, code, cval, fn, extra_arguments, extra_keywords)
    return out


@engine_aware("input", "output")
@native_output
def generic_filter1d(input, function, filter_size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0,
                     extra_arguments=(), extra_keywords=None):
    """`function(input line, output line, *extra_arguments, **extra_keywords)` for every line along `axis`, the
    input line extended by `mode` (float64 arrays; the output line is written in place)
    (scipy.ndimage.generic_filter1d). CPU only."""
    _host_only(input, "generic_filter1d")
    extra_keywords = {} if extra_keywords is None else extra_keywords
    input = np.asarray(input)
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    out = get_output(output, input)
    if filter_size < 1:
        raise RuntimeError("invalid filter size")
    axis = normalize_axis(axis, input.ndim)
    if filter_size // 2 + origin < 0 or filter_size // 2 + origin >= filter_size:
        raise ValueError("invalid origin")
    code, cval = mode_code(mode), real_cval(cval)
    filter_size, origin = _index(filter_size), _index(origin)
    if filter_size > _MAX_LINE:
        raise MemoryError(f"filter_size {filter_size} is too large (at most {_MAX_LINE})")
    fn = _callback(function, _LINE_SIGNATURES, extra_arguments, extra_keywords)
    _writable(out)
    input = as_input(input)
    check_dtype(out.dtype, real=True)
    _core.generic_filter1d(input, out, filter_size, axis, code, cval, origin, fn, extra_arguments, extra_keywords)
    return out


def _plain_output(output, input):
    """scipy's output argument where its C layer does not check the dtype (the derivative decides)."""
    if output is None:
        return xp_of(input).zeros(input.shape, dtype=input.dtype)
    if isinstance(output, (type, np.dtype)):
        return xp_of(input).zeros(input.shape, dtype=output)
    return get_output(output, input)


def _derivative_sum(input, derivative, output, mode, cval, extra_arguments, extra_keywords, axes, square):
    extra_keywords = {} if extra_keywords is None else extra_keywords
    if xp_of(input) is np:
        input = np.asarray(input)
    output = _plain_output(output, input)
    axes = normalize_axes(axes, input.ndim)
    return sum_over_axes(input, output, mode, axes, lambda ax, out, m: derivative(
        input, ax, out, m, cval, *extra_arguments, **extra_keywords), square)


@engine_aware("input", "output")
def generic_laplace(input, derivative2, output=None, mode="reflect", cval=0.0, extra_arguments=(),
                    extra_keywords=None, *, axes=None):
    """Sum over `axes` of `derivative2(input, axis, output, mode, cval, *extra_arguments, **extra_keywords)`
    (scipy.ndimage.generic_laplace), on the input's engine."""
    return _derivative_sum(input, derivative2, output, mode, cval, extra_arguments, extra_keywords, axes, False)


@engine_aware("input", "output")
def generic_gradient_magnitude(input, derivative, output=None, mode="reflect", cval=0.0, extra_arguments=(),
                               extra_keywords=None, *, axes=None):
    """Root of the sum over `axes` of the squares of `derivative(input, axis, output, mode, cval,
    *extra_arguments, **extra_keywords)` (scipy.ndimage.generic_gradient_magnitude), on the input's engine."""
    return _derivative_sum(input, derivative, output, mode, cval, extra_arguments, extra_keywords, axes, True)


# ---------------------------------------------------------------------------------------------------
# vectorized_filter
# ---------------------------------------------------------------------------------------------------
_PAD_MODES = {"reflect": "symmetric", "grid-mirror": "reflect", "mirror": "reflect", "nearest": "edge",
              "wrap": "wrap", "grid-wrap": "wrap", "constant": "constant", "grid-constant": "constant",
              "valid": "valid"}


def _integers(values):
    return all(np.issubdtype(np.asarray(v).dtype, np.integer) for v in values)


def _window_args(input, function, size, footprint, origin, axes, mode, cval, batch_memory, xp):
    """scipy's checks of vectorized_filter's arguments, in its order and with its messages: (window shape,
    footprint or None, origins, axes, np.pad mode, cval)."""
    if not callable(function):
        raise ValueError("`function` must be a callable.")
    if size is None and footprint is None:
        raise ValueError("Either `size` or `footprint` must be provided.")
    if size is not None and footprint is not None:
        raise ValueError("Either `size` or `footprint` may be provided, not both.")
    axes = tuple(range(-input.ndim, 0)) if axes is None else (axes,) if np.isscalar(axes) else tuple(axes)
    if len(axes) > input.ndim:
        raise ValueError("The length of `axes` may not exceed the dimensionality of `input`(`input.ndim`).")
    if size is not None:
        size = (size,) * len(axes) if np.isscalar(size) else tuple(size)
        if not all(_integers([s]) and s > 0 for s in size):
            raise ValueError("All elements of `size` must be positive integers.")
    else:
        footprint = xp.asarray(to_host(footprint) if xp is np else footprint, dtype=bool)
        size = footprint.shape
    if len(axes) != len(size):
        raise ValueError("`axes` must be compatible with the dimensionality of the window specified by `size` or "
                         "`footprint`.")
    origin = (0,) * len(axes) if origin is None else (origin,) * len(axes) if np.isscalar(origin) else tuple(origin)
    if not _integers(origin):
        raise ValueError("All elements of `origin` must be integers.")
    if len(origin) != len(axes):
        raise ValueError("`origin` must be an integer or tuple of integers with length equal to the number of axes.")
    if mode not in _PAD_MODES:
        raise ValueError(f"`mode` must be one of {set(_PAD_MODES)}.")
    mode = _PAD_MODES[mode]
    if mode == "valid" and any(origin):
        raise ValueError("`mode='valid'` is incompatible with use of `origin`.")
    if cval is None:
        cval = 0.0
    elif mode != "constant":
        raise ValueError("Use of `cval` is compatible only with `mode='constant'`.")
    if not np.issubdtype(np.asarray(to_host(cval)).dtype, np.number):
        raise ValueError("`cval` must include only numbers.")
    bm = np.asarray(batch_memory)
    if bm.ndim != 0 or not np.issubdtype(bm.dtype, np.number) or not bm > 0:
        raise ValueError("`batch_memory` must be positive number.")
    return size, footprint, origin, axes, mode, cval


@engine_aware("input", "output")
def vectorized_filter(input, function, *, size=None, footprint=None, output=None, mode="reflect", cval=None,
                      origin=None, axes=None, batch_memory=2**30):
    """`function(windows, axis=window axes)` over sliding windows of the input padded by `mode`
    (scipy.ndimage.vectorized_filter), the windows a strided view given `batch_memory` bytes at a time. On GPU
    input the padding and the view stay on the GPU and `function` gets CuPy arrays (PyTorch tensors too)."""
    xp = xp_of(input)
    input = xp.asarray(input)
    size, footprint, origin, axes, mode, cval = _window_args(input, function, size, footprint, origin, axes, mode,
                                                             cval, batch_memory, xp)
    n = len(size)
    if footprint is None:
        call = function
    else:
        def call(windows, axis):   # the footprint's values along one last axis, in C order
            return function(windows[..., footprint], axis=-1)
    if input.size == 0:
        return xp.asarray(input)
    if input.ndim == 0 and size == ():   # no window axes: the function sees the value (or its footprint's)
        return xp.asarray(call(input if footprint is None else input[footprint], axis=()))
    window_axes = tuple(range(-n, 0))
    moved = xp.moveaxis(input, axes, window_axes)
    out = None if output is None else xp.moveaxis(output, axes, window_axes)
    if mode != "valid":
        pads = [(0, 0)] * (input.ndim - n) + [(s // 2 + o, (s - 1) // 2 - o) for s, o in zip(size, origin)]
        kw = dict(constant_values=xp.asarray(cval)[()] if xp is np else cval) if mode == "constant" else {}
        moved = xp.pad(moved, pads, mode=mode, **kw)
    view = xp.lib.stride_tricks.sliding_window_view(moved, size, axis=window_axes)
    if window_axes == ():
        return xp.moveaxis(call(view, axis=window_axes), window_axes, axes)
    # batches of whole slices along the view's first axis, each at most batch_memory bytes of windows
    per_slice = math.prod(view.shape[1:]) * view.dtype.itemsize
    step = min(view.shape[0], batch_memory // per_slice)
    if step < 1:
        raise ValueError("`batch_memory` is insufficient for minimum chunk size.")
    step = int(step)
    if step == view.shape[0] and out is None:
        res = call(view, axis=window_axes)
    else:
        for i in range(0, view.shape[0], step):
            part = call(view[i:i + step], axis=window_axes)
            if out is None:   # the function's dtype, known from its first batch
                out = xp.empty(view.shape[:-n], dtype=part.dtype)
            out[i:i + step, ...] = part
        res = out
    return xp.moveaxis(res, window_axes, axes)
