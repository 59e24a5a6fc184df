"""Grey morphology (scipy.ndimage semantics): erosion and dilation, flat (the minimum/maximum filters of
the rank family: separable passes for boxes, tap lists otherwise) or with a non-flat structure (the
footprint family's min-plus / max-plus), and the compositions scipy builds from them."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ._footprint import (check_footprint_shape, expand_footprint, expand_origin, run_into, single_mode, tap_offsets,
                         to_host)
from ._rank import _check_footprint_origins, _min_or_max_filter
from ._support import as_input, get_output, native_output, no_complex, normalize_axes, per_axis, real_cval


def _line_factors(footprint):
    """The 1-D lines whose product a footprint is (one per axis), or None."""
    nd = footprint.ndim
    lines = [footprint.any(axis=tuple(j for j in range(nd) if j != d)) for d in range(nd)]
    product = np.ones(footprint.shape, bool)
    for d, line in enumerate(lines):
        product &= line.reshape([-1 if j == d else 1 for j in range(nd)])
    return lines if np.array_equal(product, footprint) else None


def _filter(input, footprint, structure, output, mode, cval, origin, minimum, axes):
    """scipy's min/max filter over a footprint's taps (NI_MinOrMaxFilter), with a structure: out = min(in - s)
    (erosion) or max(in + s) (dilation); without one (flat), the minimum or maximum."""
    if structure is not None:
        structure = np.asarray(to_host(structure), dtype=np.float64)
    footprint = np.ones(structure.shape, bool) if footprint is None else np.asarray(to_host(footprint), dtype=bool)
    input = as_input(input, dtype_in_message=False)
    no_complex(input)
    axes = normalize_axes(axes, input.ndim)
    flat = np.flatnonzero(footprint)  # C order, as the taps
    footprint = expand_footprint(input.ndim, axes, footprint)
    origins = expand_origin(input.ndim, axes, origin)
    check_footprint_shape(footprint, input.ndim, len(axes))
    _check_footprint_origins(footprint, origins)
    # scipy reads the structure at the footprint's flat positions: a smaller one would be read past its end
    if structure is not None and (structure.ndim != len(axes) or structure.size < footprint.size):
        raise RuntimeError("structure array has incorrect shape")
    if flat.size == 0:
        raise ValueError("All-zero footprint is not supported.")
    code = single_mode(mode, " for non-separable footprints")
    cval = real_cval(cval)
    out = get_output(output, input)
    # scipy computes bool as unsigned char and stores its result's byte as is (2 or 255 stay): bytes in and out
    as_bytes = lambda a: a.view(np.uint8) if a.dtype == np.bool_ else a

    def run(src, dst, footprint, origins, values):
        offsets, _ = tap_offsets(footprint, origins)
        run_into(as_bytes(dst), as_bytes(src), lambda a, b: _core.grey_filter(
            a, b, offsets, values, minimum, code, cval, stream_ptr(b)))

    if structure is not None:
        values = structure.ravel()[flat]
        run(input, out, footprint, origins, (-values if minimum else values).tolist())
        return out
    # A flat product of lines: one pass per line, last axis first (each output keeps its first extreme in C
    # order, as the n-D fold), in the input's type. Exact unless NaN is about: then the n-D fold's order.
    lines = _line_factors(footprint)
    passes = [] if lines is None else [d for d in reversed(range(input.ndim)) if lines[d].size > 1]
    nan = input.dtype.kind == "f" and (math.isnan(cval) or bool(xp_of(input).isnan(input).any()))
    if len(passes) < 2 or nan:
        run(input, out, footprint, origins, [])
        return out
    src = input
    for i, d in enumerate(passes):
        dst = out if i == len(passes) - 1 else get_output(None, input)
        line = lines[d].reshape([-1 if j == d else 1 for j in range(input.ndim)])
        run(src, dst, line, [origins[d] if j == d else 0 for j in range(input.ndim)], [])
        src = dst
    return out


def _erosion(input, size, footprint, structure, output, mode, cval, origin, axes, minimum=True):
    if size is None and footprint is None and structure is None:
        raise ValueError("size, footprint, or structure must be specified")
    if structure is None:
        # boxes (size, or a footprint all True) by the separable passes of minimum/maximum_filter
        box = footprint is None or np.asarray(to_host(footprint), dtype=bool).all()
        if box or not np.asarray(to_host(footprint), dtype=bool).any():
            return _min_or_max_filter(input, size, footprint, output, mode, cval, origin, minimum, axes)
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=4)
    return _filter(input, footprint, structure, output, mode, cval, origin, minimum, axes)


def _dilation(input, size, footprint, structure, output, mode, cval, origin, axes):
    """scipy's grey_dilation: erosion's filter (maximum) with the footprint and structure reflected and
    the origin negated, one less along axes of even size (the reflection moves their centre)."""
    if size is None and footprint is None and structure is None:
        raise ValueError("size, footprint, or structure must be specified")
    if structure is not None:
        structure = np.asarray(to_host(structure))
        structure = structure[(slice(None, None, -1),) * structure.ndim]
    if footprint is not None:
        footprint = np.asarray(to_host(footprint))
        footprint = footprint[(slice(None, None, -1),) * footprint.ndim]
    input = as_input(input, dtype_in_message=False)
    axes = normalize_axes(axes, input.ndim)
    origin = per_axis(origin, len(axes))
    for i in range(len(origin)):
        origin[i] = -origin[i]
        if footprint is not None:
            n = footprint.shape[i]
        elif structure is not None:
            n = structure.shape[i]
        elif np.isscalar(size):
            n = size
        else:
            n = size[i]
        if not n & 1:
            origin[i] -= 1
    return _erosion(input, size, footprint, structure, output, mode, cval, origin, axes, minimum=False)


def _warn_size(size, footprint):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=4)


def _is_array(output):
    """An output array (scipy: an ndarray; here also the GPU library's), not a dtype."""
    return not isinstance(output, (type, np.dtype, str)) and hasattr(output, "shape") and hasattr(output, "dtype")


@engine_aware("input", "output")
@native_output
def grey_erosion(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0, origin=0,
                 *, axes=None):
    """Greyscale erosion (scipy.ndimage.grey_erosion): the minimum over the footprint, of input - structure
    where a structure is given."""
    return _erosion(input, size, footprint, structure, output, mode, cval, origin, axes)


@engine_aware("input", "output")
@native_output
def grey_dilation(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                  origin=0, *, axes=None):
    """Greyscale dilation (scipy.ndimage.grey_dilation): the maximum over the reflected footprint, of
    input + structure where a structure is given."""
    return _dilation(input, size, footprint, structure, output, mode, cval, origin, axes)


@engine_aware("input", "output")
@native_output
def grey_opening(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """Greyscale opening (scipy.ndimage.grey_opening): erosion, then dilation."""
    _warn_size(size, footprint)
    tmp = _erosion(input, size, footprint, structure, None, mode, cval, origin, axes)
    return _dilation(tmp, size, footprint, structure, output, mode, cval, origin, axes)


@engine_aware("input", "output")
@native_output
def grey_closing(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """Greyscale closing (scipy.ndimage.grey_closing): dilation, then erosion."""
    _warn_size(size, footprint)
    tmp = _dilation(input, size, footprint, structure, None, mode, cval, origin, axes)
    return _erosion(tmp, size, footprint, structure, output, mode, cval, origin, axes)


@engine_aware("input", "output")
@native_output
def morphological_gradient(input, size=None, footprint=None, structure=None, output=None, mode="reflect",
                           cval=0.0, origin=0, *, axes=None):
    """dilation - erosion (scipy.ndimage.morphological_gradient), in the input's dtype unless `output` is
    an array (a dtype there is ignored, as scipy does)."""
    input = as_input(input, dtype_in_message=False)
    xp = xp_of(input)
    tmp = _dilation(input, size, footprint, structure, None, mode, cval, origin, axes)
    if _is_array(output):
        _erosion(input, size, footprint, structure, output, mode, cval, origin, axes)
        return xp.subtract(tmp, output, out=output)
    return tmp - _erosion(input, size, footprint, structure, None, mode, cval, origin, axes)


@engine_aware("input", "output")
@native_output
def morphological_laplace(input, size=None, footprint=None, structure=None, output=None, mode="reflect",
                          cval=0.0, origin=0, *, axes=None):
    """dilation + erosion - 2 input (scipy.ndimage.morphological_laplace), with scipy's in-place steps and
    their dtypes (the input's unless `output` is an array)."""
    input = as_input(input, dtype_in_message=False)
    xp = xp_of(input)
    tmp1 = _dilation(input, size, footprint, structure, None, mode, cval, origin, axes)
    if _is_array(output):
        _erosion(input, size, footprint, structure, output, mode, cval, origin, axes)
        xp.add(tmp1, output, out=output)
        xp.subtract(output, input, out=output)
        return xp.subtract(output, input, out=output)
    tmp2 = _erosion(input, size, footprint, structure, None, mode, cval, origin, axes)
    xp.add(tmp1, tmp2, out=tmp2)
    xp.subtract(tmp2, input, out=tmp2)
    xp.subtract(tmp2, input, out=tmp2)
    return tmp2


def _bool_xor(xp, input, tmp):
    """scipy's bitwise_xor of bools into `tmp`: NumPy xors their truth (a byte 2 is True), while CuPy's C
    `^` xors the raw bytes (2 ^ 1 is True), and the filters may leave bytes 2 or 255 (scipy's unsigned char
    arithmetic): compare the bytes' truth on either engine."""
    xp.not_equal(input.view(np.uint8) != 0, tmp.view(np.uint8) != 0, out=tmp)


@engine_aware("input", "output")
@native_output
def white_tophat(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """input - opening (scipy.ndimage.white_tophat); bool: input xor opening."""
    input = as_input(input, dtype_in_message=False)
    xp = xp_of(input)
    _warn_size(size, footprint)
    tmp = _erosion(input, size, footprint, structure, None, mode, cval, origin, axes)
    tmp = _dilation(tmp, size, footprint, structure, output, mode, cval, origin, axes)
    if input.dtype == np.bool_ and tmp.dtype == np.bool_:
        _bool_xor(xp, input, tmp)
    else:
        xp.subtract(input, tmp, out=tmp)
    return tmp


@engine_aware("input", "output")
@native_output
def black_tophat(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """closing - input (scipy.ndimage.black_tophat); bool: closing xor input."""
    input = as_input(input, dtype_in_message=False)
    xp = xp_of(input)
    _warn_size(size, footprint)
    tmp = _dilation(input, size, footprint, structure, None, mode, cval, origin, axes)
    tmp = _erosion(tmp, size, footprint, structure, output, mode, cval, origin, axes)
    if input.dtype == np.bool_ and tmp.dtype == np.bool_:
        _bool_xor(xp, input, tmp)
    else:
        xp.subtract(tmp, input, out=tmp)
    return tmp
