"""B-spline prefilters: spline_filter1d and spline_filter (scipy.ndimage semantics).

The exact recursive filter runs in C++ (``_core.spline_filter``, cpp/src/interp/spline_filter.hpp) in
double, one pass per axis, each pass writing the output in its dtype and the next reading it back, as
scipy chains them. ``prefilter_for_interpolation`` is what the interpolation functions call: scipy's
padding for 'nearest' and 'grid-constant' and its choice of filter, on NumPy or CuPy arrays.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ._support import as_input, get_output, may_share, native_output, normalize_axis

_B = _core.SplineBoundary


def _installed_scipy_aliases():
    """Whether the installed scipy predates 1.18, whose reflect initial condition read its own partial sum
    back (scipy#24615, visible on lines of a few values): ndimg then gives the same coefficients as it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(p) for p in version("scipy").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) < (1, 18)


_REFLECT = _B.reflect_scipy117 if _installed_scipy_aliases() else _B.reflect
# scipy's apply_filter: which initial conditions each mode's prefilter uses ('wrap' and the constant modes use
# mirror's; 'nearest' and 'grid-mirror' reflect's; only 'grid-wrap' is periodic)
_BOUNDARY = {"mirror": _B.mirror, "constant": _B.mirror, "grid-constant": _B.mirror, "wrap": _B.mirror,
             "reflect": _REFLECT, "grid-mirror": _REFLECT, "nearest": _REFLECT, "grid-wrap": _B.wrap}
# scipy's prepadding before the prefilter of an interpolation: these modes have no exact initial condition
_PREPAD = 12


def _boundary(mode):
    try:
        return _BOUNDARY[mode]
    except (KeyError, TypeError):
        raise RuntimeError("boundary mode not supported") from None


def _filter(input, output, order, axes, mode):
    """The prefilter of real `input` along `axes` into `output` (an array), order 2..5."""
    boundary = _boundary(mode)
    if output.dtype.kind == "c":  # real input (complex input is filtered by parts)
        raise RuntimeError(f"array type {output.dtype!r} not supported")
    src = input
    # the CPU engine filters in place line by line (in is out is fine); otherwise the input is copied
    if may_share(input, output) and (output is not input or not isinstance(output, np.ndarray)):
        src = input.copy()
    _core.spline_filter(src, output, operator.index(order), list(axes), boundary, stream_ptr(output))
    return output


def _by_parts(fn, input, output, *args):
    """scipy's complex prefilter: the real and imaginary parts filtered alone."""
    fn(input.real, output=output.real, *args)
    fn(input.imag, output=output.imag, *args)
    return output


def _spline_filter1d(input, order=3, axis=-1, output=np.float64, mode="mirror"):
    if order < 0 or order > 5:
        raise RuntimeError("spline order not supported")
    input = as_input(input)
    output = get_output(output, input, complex_output=input.dtype.kind == "c")
    if input.dtype.kind == "c":
        return _by_parts(lambda x, output, *a: _spline_filter1d(x, order, axis, output, mode), input, output)
    if order in (0, 1):
        output[...] = input
        return output
    _boundary(mode)  # scipy checks the mode before the axis
    axis = normalize_axis(axis, input.ndim)
    return _filter(input, output, order, (axis,), mode)


def _spline_filter(input, order=3, output=np.float64, mode="mirror"):
    if order < 2 or order > 5:
        raise RuntimeError("spline order not supported")
    input = as_input(input)
    output = get_output(output, input, complex_output=input.dtype.kind == "c")
    if input.dtype.kind == "c":
        return _by_parts(lambda x, output, *a: _spline_filter(x, order, output, mode), input, output)
    if input.ndim == 0:
        output[...] = input
        return output
    return _filter(input, output, order, range(input.ndim), mode)


@engine_aware("input", "output")
@native_output
def spline_filter1d(input, order=3, axis=-1, output=np.float64, mode="mirror"):
    """1-D B-spline prefilter along `axis` (scipy.ndimage.spline_filter1d): orders 2-5 filter, 0 and 1
    copy; complex input filtered by parts."""
    return _spline_filter1d(input, order, axis, output, mode)


@engine_aware("input", "output")
@native_output
def spline_filter(input, order=3, output=np.float64, mode="mirror"):
    """Multidimensional B-spline prefilter (scipy.ndimage.spline_filter): spline_filter1d along every axis,
    intermediate results in the output's dtype."""
    return _spline_filter(input, order, output, mode)


def prefilter_for_interpolation(input, order, mode, cval, output_dtype=np.float64):
    """The spline coefficients an interpolation of `order` under `mode` reads, as scipy 1.17 makes them
    (its _prepad_for_spline_filter and spline_filter): 'nearest' and 'grid-constant' first pad the input
    by 12 on every side (edge values, or cval in the input's dtype), the other modes have exact initial
    conditions. Returns (coefficients, npad), coefficients an array of the input's library (NumPy or CuPy)
    in `output_dtype` (complex input: its complex counterpart, the parts filtered alone); orders 0 and 1
    return the input itself and 0."""
    if order < 2:
        return input, 0
    xp = xp_of(input)
    npad = 0
    if mode == "nearest":
        npad = _PREPAD
        input = xp.pad(input, npad, mode="edge")
    elif mode == "grid-constant":
        npad = _PREPAD
        input = xp.pad(input, npad, mode="constant", constant_values=cval)
    dt = np.dtype(output_dtype)
    if input.dtype.kind == "c" and dt.kind != "c":
        dt = np.promote_types(dt, np.complex64)
    return _spline_filter(input, order, dt, mode), npad


# ---- Dask: a line needs all of its values, so the filtered axis becomes one chunk ----

def _dask_output_dtype(input, output):
    if output is not None and not isinstance(output, (type, np.dtype, str)):
        raise TypeError("on Dask arrays, output must be a dtype (the result is a new Dask array)")
    dt = np.dtype(input.dtype if output is None else output)
    if input.dtype.kind == "c" and dt.kind != "c":
        dt = np.promote_types(dt, np.complex64)
    return dt


def _filter_lines(input, order, axis, dt, mode):
    """spline_filter1d along `axis` of a Dask array, that axis rechunked to one chunk."""
    if order > 1:
        _boundary(mode)
        axis = normalize_axis(axis, input.ndim)
        input = input.rechunk({axis: -1})
    return input.map_blocks(spline_filter1d, order, axis, dt, mode, dtype=dt)


def spline_filter1d_dask(input, order=3, axis=-1, output=np.float64, mode="mirror"):
    """spline_filter1d on a Dask array: exact, by filtering whole lines (the axis rechunked to one chunk,
    the result back to the input's chunks)."""
    if order < 0 or order > 5:
        raise RuntimeError("spline order not supported")
    return _filter_lines(input, order, axis, _dask_output_dtype(input, output), mode).rechunk(input.chunks)


def spline_filter_dask(input, order=3, output=np.float64, mode="mirror"):
    """spline_filter on a Dask array: whole lines along each axis in turn, intermediate results in the
    output dtype as scipy keeps them; the result in the input's chunks."""
    if order < 2 or order > 5:
        raise RuntimeError("spline order not supported")
    dt = _dask_output_dtype(input, output)
    _boundary(mode)
    result = input
    for axis in range(input.ndim):
        result = _filter_lines(result, order, axis, dt, mode)
    return result.astype(dt).rechunk(input.chunks)
