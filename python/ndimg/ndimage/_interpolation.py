"""B-spline interpolation and geometric transforms (scipy.ndimage 1.17's map_coordinates, affine_transform,
shift, zoom, rotate and geometric_transform), n-D on both engines.

Every function samples its input with B-splines of order 0-5 at mapped coordinates, exactly as scipy's
ni_interpolation.c does: the same boundary modes (including the mirrored taps that 'constant' and 'wrap'
use beyond the edge, and the cval taps of 'grid-constant'), the same weights, and integer outputs rounded
half away from zero and clipped to their range. For order > 1 with ``prefilter=True`` the input is first
turned into spline coefficients (ndimg.ndimage._splines.prefilter_for_interpolation: scipy's prepadding and
spline_filter), in float64. Complex input is sampled as its real and imaginary parts.

The sampling itself is one C++ primitive with three coordinate sources (ndimg._core.map_coordinates,
affine_sample and zoom_shift): a coordinate array, an affine map computed per output point, and the
separable zoom/shift map whose per-axis taps are computed once.

For a blockwise (Dask) wrapper: output point o reads the input (or its coefficients) at taps
floor(c) - order // 2 ... + order (odd orders; even: floor(c + 0.5) - order // 2 ...) around its input
coordinate c, mapped back inside by the mode; the coordinates are closed-form for shift (o - shift), zoom
(o * (n_in - 1) / (n_out - 1), or (o + 0.5) * n_in / n_out - 0.5 with grid_mode) and affine_transform
(matrix @ o + offset), and read from the array for map_coordinates. The prefilter (order > 1) is a recursive
filter along whole lines: exact per chunk only where each chunk holds its lines whole (or a halo long enough
for the poles to decay, ~ -log(1e-16) / -log|z| elements).
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, is_gpu_array, stream_ptr, xp_of
from ._generic import _callback, _signatures
from ._splines import prefilter_for_interpolation, spline_filter1d
from ._support import as_input, get_output, may_share, native_output, real_cval

_M = _core.InterpMode
# scipy's _extend_mode_to_code for the interpolation functions ('grid-mirror' is 'reflect')
_MODES = {"nearest": _M.nearest, "wrap": _M.wrap, "reflect": _M.reflect, "grid-mirror": _M.reflect,
          "mirror": _M.mirror, "constant": _M.constant, "grid-wrap": _M.grid_wrap,
          "grid-constant": _M.grid_constant}
_PREPAD = 12  # scipy's _prepad_for_spline_filter: 'nearest' and 'grid-constant' pad by 12 before filtering


def _mode_code(mode):
    try:
        return _MODES[mode]
    except (KeyError, TypeError):
        raise RuntimeError("boundary mode not supported") from None


def _check_order(order, prefilter):
    """The order as an int, with scipy's errors: RuntimeError outside [0, 5] (and for an order between 1 and 2,
    which its spline_filter refuses), TypeError for another non-integer."""
    if order < 0 or order > 5 or (prefilter and 1 < order < 2):
        raise RuntimeError("spline order not supported")
    return operator.index(order)


def _host(x, dtype=np.float64):
    """A parameter array (matrix, offset) on the host, whatever library the caller gave it in."""
    if is_gpu_array(x):
        x = x.get() if hasattr(x, "get") else np.asarray(x.cpu())
    return np.asarray(x, dtype=dtype)


def _per_axis(value, n):
    """scipy's _normalize_sequence: a scalar (a 0-d array too) repeated n times, or a sequence of n values."""
    if not isinstance(value, str) and np.iterable(value):
        value = list(value)
        if len(value) != n:
            raise RuntimeError("sequence argument must have length equal to input rank")
        return value
    return [value] * n


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (type, np.dtype, str))


def _real_output(output, input):
    """Real input writes a real output: a complex one is refused as scipy's C layer refuses it."""
    if output.dtype.kind == "c" and input.dtype.kind != "c":
        raise RuntimeError("data type not supported")


def _complex_parts(fn, input, output, cval, **kwargs):
    """scipy's complex interpolation: the real and imaginary parts sampled alone, each with its part of cval."""
    fn(input.real, output=output.real, cval=float(np.real(cval)), **kwargs)
    fn(input.imag, output=output.imag, cval=float(np.imag(cval)), **kwargs)
    return output


def _coefficients(input, order, mode, cval, prefilter, axes=None):
    """(array to sample, npad per axis): the input itself (order <= 1 or no prefilter) or its spline
    coefficients in float64, prepadded as scipy does. `axes`: filter and pad only these (rotate's planes)."""
    if not prefilter or order < 2:
        return input, []
    if axes is None:
        coeffs, npad = prefilter_for_interpolation(input, order, mode, cval)
        return coeffs, [npad] * input.ndim
    xp = xp_of(input)
    npad = [_PREPAD if ax in axes and mode in ("nearest", "grid-constant") else 0 for ax in range(input.ndim)]
    if any(npad):
        width = [(p, p) for p in npad]
        input = xp.pad(input, width, mode="edge") if mode == "nearest" else \
            xp.pad(input, width, mode="constant", constant_values=cval)
    for ax in axes:
        input = spline_filter1d(input, order, ax, output=np.float64, mode=mode)
    return input, npad


def _into(output, input, run):
    """run(target) fills `output` (an array), through a temporary where it shares memory with the input or
    is in the other byte order (an output dtype such as '>f8': scipy returns such an array)."""
    if may_share(output, input) or not output.dtype.isnative:
        tmp = xp_of(output).empty(output.shape, output.dtype.newbyteorder("="))
        run(tmp)
        output[...] = tmp
    else:
        run(output)
    return output


@engine_aware("input", "coordinates", "output")
@native_output
def map_coordinates(input, coordinates, output=None, order=3, mode="constant", cval=0.0, prefilter=True):
    """Map the input array to new coordinates by B-spline interpolation (scipy.ndimage.map_coordinates).

    ``coordinates[:, i...]`` is the input coordinate of output point ``i...``: the output has shape
    ``coordinates.shape[1:]``. Orders 0-5, every mode, ``cval`` and ``prefilter`` as scipy's.
    """
    order = _check_order(order, prefilter)
    input = as_input(input)
    xp = xp_of(input)
    coordinates = xp.asarray(coordinates)
    if coordinates.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    output_shape = coordinates.shape[1:]
    if input.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    if coordinates.shape[0] != input.ndim:
        raise RuntimeError("invalid shape for coordinate array")
    code = _mode_code(mode)
    output = get_output(output, input, shape=output_shape, complex_output=input.dtype.kind == "c")
    if input.dtype.kind == "c":
        return _complex_parts(map_coordinates, input, output, cval, coordinates=coordinates, order=order,
                              mode=mode, prefilter=prefilter)
    _real_output(output, input)
    cval = real_cval(cval)
    if coordinates.dtype not in (np.float32, np.float64):
        coordinates = coordinates.astype(np.float64)
    filtered, npad = _coefficients(input, order, mode, cval, prefilter)
    return _into(output, input, lambda out: _core.map_coordinates(filtered, coordinates, out, order, code, cval, npad,
                                                                  stream=stream_ptr(out)))


@engine_aware("input", "output")
@native_output
def affine_transform(input, matrix, offset=0.0, output_shape=None, output=None, order=3, mode="constant", cval=0.0,
                     prefilter=True):
    """Apply an affine transformation (scipy.ndimage.affine_transform): output point ``o`` samples the input
    at ``matrix @ o + offset``.

    ``matrix`` is (ndim, ndim), (ndim, ndim + 1) or (ndim + 1, ndim + 1) (homogeneous coordinates; the
    offset is taken from its last column), or (ndim,), a diagonal, for which the separable zoom/shift
    sampling runs (scipy's fast path, with its arithmetic: ``(o + offset / matrix) * matrix``).
    """
    order = _check_order(order, prefilter)
    input = as_input(input)
    if output_shape is None:
        output_shape = output.shape if _is_array(output) else input.shape
    if input.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    output = get_output(output, input, shape=output_shape, complex_output=input.dtype.kind == "c")
    if input.dtype.kind == "c":
        return _complex_parts(affine_transform, input, output, cval, matrix=matrix, offset=offset,
                              output_shape=output_shape, order=order, mode=mode, prefilter=prefilter)
    _real_output(output, input)
    code = _mode_code(mode)
    cval = real_cval(cval)
    matrix = _host(matrix)
    if matrix.ndim not in (1, 2) or matrix.shape[0] < 1:
        raise RuntimeError("no proper affine matrix provided")
    nd = input.ndim
    if matrix.ndim == 2 and matrix.shape[1] == nd + 1 and matrix.shape[0] in (nd, nd + 1):
        if matrix.shape[0] == nd + 1:
            expected = [0] * nd + [1]
            if not np.all(matrix[nd] == expected):
                raise ValueError(f"Expected homogeneous transformation matrix with shape {matrix.shape} for image "
                                 f"shape {input.shape}, but bottom row was not equal to {expected}")
        offset = matrix[:nd, nd]
        matrix = matrix[:nd, :nd]
    if matrix.shape[0] != nd:
        raise RuntimeError("affine matrix has wrong number of rows")
    if matrix.ndim == 2 and matrix.shape[1] != output.ndim:
        raise RuntimeError("affine matrix has wrong number of columns")
    offset = _host(_per_axis(_host(offset) if is_gpu_array(offset) else offset, nd))
    if offset.ndim != 1 or offset.shape[0] < 1:
        raise RuntimeError("no proper offset provided")
    if matrix.ndim == 1 and output.ndim != nd:
        raise RuntimeError("affine matrix has wrong number of columns")
    filtered, npad = _coefficients(input, order, mode, cval, prefilter)
    if matrix.ndim == 1:
        shift = offset / matrix  # scipy's fast path divides (with NumPy's warnings for zeros)
        run = lambda out: _core.zoom_shift(filtered, matrix.tolist(), shift.tolist(), False, out, order, code, cval,
                                           npad, stream=stream_ptr(out))
    else:
        run = lambda out: _core.affine_sample(filtered, matrix.ravel().tolist(), offset.tolist(), out, order, code,
                                              cval, npad, [], stream=stream_ptr(out))
    return _into(output, input, run)


@engine_aware("input", "output")
@native_output
def shift(input, shift, output=None, order=3, mode="constant", cval=0.0, prefilter=True):
    """Shift an array (scipy.ndimage.shift): output index ``k`` samples input coordinate ``k - shift``
    along each axis. The taps and weights of each axis are computed once per output index."""
    order = _check_order(order, prefilter)
    input = as_input(input)
    if input.ndim < 1:
        raise RuntimeError("input and output rank must be > 0")
    output = get_output(output, input, complex_output=input.dtype.kind == "c")
    if input.dtype.kind == "c":
        return _complex_parts(globals()["shift"], input, output, cval, shift=shift, order=order, mode=mode,
                              prefilter=prefilter)
    _real_output(output, input)
    code = _mode_code(mode)
    cval = real_cval(cval)
    filtered, npad = _coefficients(input, order, mode, cval, prefilter)
    shifts = [-float(s) for s in _per_axis(shift, input.ndim)]
    return _into(output, input, lambda out: _core.zoom_shift(filtered, [], shifts, False, out, order, code, cval, npad,
                                                             stream=stream_ptr(out)))


@engine_aware("input", "output")
@native_output
def zoom(input, zoom, output=None, order=3, mode="constant", cval=0.0, prefilter=True, *, grid_mode=False):
    """Zoom an array (scipy.ndimage.zoom): the output has shape ``round(input.shape * zoom)``.

    Without ``grid_mode`` the corner samples are aligned (output index k samples ``k * (n_in - 1) /
    (n_out - 1)``); with it the pixel edges are (``(k + 0.5) * n_in / n_out - 0.5``). The taps and weights
    of each axis are computed once per output index.
    """
    order = _check_order(order, prefilter)
    input = as_input(input)
    if input.ndim < 1:
        raise RuntimeError("input and output rank must be > 0")
    zoom = _per_axis(zoom, input.ndim)
    output_shape = tuple(int(round(n * z)) for n, z in zip(input.shape, zoom))
    output = get_output(output, input, shape=output_shape, complex_output=input.dtype.kind == "c")
    if all(z == 1 for z in zoom) and prefilter:  # scipy returns the input itself (gh-20999)
        output[...] = input
        return output
    if input.dtype.kind == "c":
        return _complex_parts(globals()["zoom"], input, output, cval, zoom=zoom, order=order, mode=mode,
                              prefilter=prefilter, grid_mode=grid_mode)
    _real_output(output, input)
    code = _mode_code(mode)
    cval = real_cval(cval)
    filtered, npad = _coefficients(input, order, mode, cval, prefilter)
    if grid_mode and mode in ("constant", "wrap"):
        suggest = "grid-constant" if mode == "constant" else "grid-wrap"
        warnings.warn(f"It is recommended to use mode = {suggest} instead of {mode} when grid_mode is True.",
                      stacklevel=3)
    div = np.array(output_shape, dtype=np.int64)
    num = np.array(input.shape, dtype=np.int64)
    if not grid_mode:
        div -= 1
        num -= 1
    # a zoom to a single sample would divide by zero: scipy takes 1 there
    factors = np.divide(num, div, out=np.ones(input.ndim, dtype=np.float64), where=div != 0)
    return _into(output, input, lambda out: _core.zoom_shift(filtered, factors.tolist(), [], bool(grid_mode), out,
                                                             order, code, cval, npad, stream=stream_ptr(out)))


def _rotation(angle, axes, shape, reshape):
    """scipy's rotate geometry: (sorted axes, 2x2 matrix, offset, output plane shape)."""
    from scipy import special  # cosdg/sindg: exact at multiples of 90 degrees, as scipy computes them

    ndim = len(shape)
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError("axes should contain exactly two values")
    if not all(float(ax).is_integer() for ax in axes):
        raise ValueError("axes should contain only integer values")
    axes = [int(ax) + ndim if ax < 0 else int(ax) for ax in axes]
    if any(ax < 0 or ax >= ndim for ax in axes):
        raise ValueError("invalid rotation plane specified")
    axes.sort()
    c, s = special.cosdg(angle), special.sindg(angle)
    rot = np.array([[c, s], [-s, c]])
    in_plane = np.asarray(shape)[axes]
    if reshape:
        iy, ix = in_plane
        bounds = rot @ [[0, 0, iy, iy], [0, ix, 0, ix]]
        out_plane = (np.ptp(bounds, axis=1) + 0.5).astype(int)
    else:
        out_plane = in_plane
    offset = (in_plane - 1) / 2 - rot @ ((out_plane - 1) / 2)
    return axes, rot, offset, out_plane


@engine_aware("input", "output")
@native_output
def rotate(input, angle, axes=(1, 0), reshape=True, output=None, order=3, mode="constant", cval=0.0,
           prefilter=True):
    """Rotate an array by `angle` degrees in the plane of `axes` (scipy.ndimage.rotate), about the centre of
    the plane; with `reshape` the output plane grows to hold the whole rotated input.

    Arrays of more than two dimensions rotate every plane at once (one affine map that leaves the other axes
    alone); the spline prefilter then runs along the plane's axes only, as scipy's plane by plane one does.
    """
    input = as_input(input)
    if input.ndim < 2:
        raise ValueError("input array should be at least 2D")
    axes, rot, offset, out_plane = _rotation(angle, axes, input.shape, reshape)
    output_shape = list(input.shape)
    for ax, n in zip(axes, out_plane):
        output_shape[ax] = int(n)
    output = get_output(output, input, shape=output_shape, complex_output=input.dtype.kind == "c")
    if input.ndim == 2:
        return affine_transform(input, rot, offset, tuple(output_shape), output, order, mode, cval, prefilter)
    order = _check_order(order, prefilter)
    if input.dtype.kind == "c":
        return _complex_parts(rotate, input, output, cval, angle=angle, axes=axes, reshape=reshape, order=order,
                              mode=mode, prefilter=prefilter)
    _real_output(output, input)
    code = _mode_code(mode)
    cval = real_cval(cval)
    # the rotation embedded in the identity: the coordinates of the plane's axes sum the same terms as
    # scipy's 2-D ones (plus exact zeros), the other axes map to themselves and are read at order 0 (their
    # values are not spline coefficients: scipy samples each plane alone)
    nd = input.ndim
    matrix = np.eye(nd)
    full_offset = np.zeros(nd)
    for i, a in enumerate(axes):
        full_offset[a] = offset[i]
        for j, b in enumerate(axes):
            matrix[a, b] = rot[i, j]
    filtered, npad = _coefficients(input, order, mode, cval, prefilter, axes=axes)
    return _into(output, input, lambda out: _core.affine_sample(filtered, matrix.ravel().tolist(),
                                                                full_offset.tolist(), out, order, code, cval, npad,
                                                                [ax for ax in range(nd) if ax not in axes],
                                                                stream=stream_ptr(out)))


_MAPPING_SIGNATURES = _signatures("int ({i} *, double *, int, int, void *)")


def _as_double(v):
    """A mapping's coordinate as scipy's PyFloat_AsDouble takes it (no strings)."""
    if isinstance(v, (str, bytes)):
        raise TypeError(f"must be real number, not {type(v).__name__}")
    return float(v)


def _mapped_coordinates(mapping, output_shape, irank, extra_arguments, extra_keywords):
    """The input coordinates of every output point, (irank,) + output_shape float64 on the host: the mapping
    evaluated once over arrays of all output coordinates where it accepts them (a tuple of irank real
    arrays broadcastable to the output's shape), else point by point as scipy calls it."""
    grid = tuple(np.indices(output_shape, dtype=np.intp))
    try:
        with np.errstate(all="ignore"):
            res = mapping(grid, *extra_arguments, **extra_keywords)
        if isinstance(res, tuple) and len(res) >= irank:
            parts = [np.asarray(r) for r in res[:irank]]
            if all(p.dtype.kind in "biuf" for p in parts):
                return np.stack([np.broadcast_to(p.astype(np.float64), output_shape) for p in parts])
    except Exception:  # noqa: BLE001 - a mapping written for scalars: evaluated point by point below
        pass
    coords = np.empty((irank,) + tuple(output_shape), dtype=np.float64)
    for idx in np.ndindex(*output_shape):
        res = mapping(tuple(int(i) for i in idx), *extra_arguments, **extra_keywords)
        if not isinstance(res, tuple) or len(res) < irank:  # scipy reads irank items of a tuple
            raise TypeError("bad argument type for built-in operation")
        for h in range(irank):
            coords[(h,) + idx] = _as_double(res[h])
    return coords


@engine_aware("input", "output")
@native_output
def geometric_transform(input, mapping, output_shape=None, output=None, order=3, mode="constant", cval=0.0,
                        prefilter=True, extra_arguments=(), extra_keywords=None):
    """Apply an arbitrary geometric transform (scipy.ndimage.geometric_transform): output point ``o`` samples
    the input at ``mapping(o, *extra_arguments, **extra_keywords)``, a tuple of input coordinates.

    Note on the mapping: ndimg first calls it ONCE with a tuple of integer coordinate arrays (one per output
    axis, every output point at once), which is fast for mappings written with arithmetic and NumPy
    functions. Where that call raises, or does not return a tuple of real arrays broadcastable to the output
    shape, the mapping is called per point with a tuple of Python ints, as scipy does, on the CPU (slow:
    one Python call per output element). A mapping whose result depends on being called per point (state
    kept between calls, type checks of its arguments) may see the array call first. On GPU input the
    mapping is evaluated the same way on the host (NumPy arrays), and the coordinates are copied to the
    device for the sampling. A scipy.LowLevelCallable (or a PyCapsule) mapping, signature
    ``int (intptr_t *, double *, int, int, void *)``, is called per point from C++.
    """
    if extra_keywords is None:
        extra_keywords = {}
    order = _check_order(order, prefilter)
    input = as_input(input)
    extra_arguments = tuple(extra_arguments) if isinstance(extra_arguments, list) else extra_arguments
    if not isinstance(extra_arguments, tuple):
        raise TypeError("extra_arguments must be a tuple")
    if not callable(mapping):   # a C mapping (scipy's errors for anything else)
        mapping = _callback(mapping, _MAPPING_SIGNATURES, extra_arguments, extra_keywords)
    if output_shape is None:
        output_shape = input.shape
    output_shape = tuple(int(n) for n in output_shape)
    if input.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    output = get_output(output, input, shape=output_shape, complex_output=input.dtype.kind == "c")
    _mode_code(mode)
    if callable(mapping):
        coords = _mapped_coordinates(mapping, output_shape, input.ndim, extra_arguments, extra_keywords)
    else:
        coords = np.empty((input.ndim,) + output_shape, dtype=np.float64)
        _core.mapped_coordinates(mapping, coords)
    coords = xp_of(input).asarray(coords)
    return map_coordinates(input, coords, output=output, order=order, mode=mode, cval=cval, prefilter=prefilter)
