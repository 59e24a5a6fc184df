"""n-D correlation and convolution with arbitrary weights (scipy.ndimage.correlate / convolve)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr
from ._footprint import (check_footprint_shape, expand_footprint, expand_origin, run_into,
                         single_mode, tap_offsets, to_host)
from ._support import (as_input, check_dtype, complex_via_real, get_output, native_output, normalize_axes,
                       real_cval)


def _correlate_or_convolve(input, weights, output, mode, cval, origin, convolution, axes):
    input = as_input(input, dtype_in_message=False)
    weights = to_host(weights)
    if input.dtype.kind == "c" or weights.dtype.kind == "c":
        # as scipy (and np.correlate): real filters of the parts, correlation conjugating the weights
        if weights.dtype.kind == "c" and not convolution:
            weights = weights.conj()
        return complex_via_real(_correlate_or_convolve, input, weights, get_output(output, input, complex_output=True),
                                cval, mode=mode, origin=origin, convolution=convolution, axes=axes)
    if input.ndim == 0:  # the binding takes arrays of at least one dimension
        out = get_output(output, input)
        weights = weights.reshape(1) if weights.ndim == 0 else weights
        _correlate_or_convolve(input.reshape(1), weights, out.reshape(1), mode, cval, origin, convolution, axes)
        return out
    axes = normalize_axes(axes, input.ndim)
    weights = expand_footprint(input.ndim, axes, np.asarray(weights, dtype=np.float64), "weights")
    origins = expand_origin(input.ndim, axes, origin)
    check_footprint_shape(weights, input.ndim, len(axes), "weights")
    if convolution:
        weights = weights[(slice(None, None, -1),) * weights.ndim]
        origins = [-o - (1 - (n & 1)) for o, n in zip(origins, weights.shape)]
    for o, n in zip(origins, weights.shape):
        if o < -(n // 2) or o > (n - 1) // 2:
            raise ValueError("Invalid origin; origin must satisfy -(weights.shape[k] // 2) <= origin[k] <= "
                             "(weights.shape[k]-1) // 2")
    code = single_mode(mode, "")
    output = get_output(output, input)
    check_dtype(output.dtype, False, real=True)   # real data: scipy's C loops write real outputs only
    # scipy keeps the weights with |w| > DBL_EPSILON: zero, tiny and NaN weights are left out
    offsets, idx = tap_offsets(np.abs(weights) > np.finfo(np.float64).eps, origins)
    values = weights[idx].tolist()
    return run_into(output, input, lambda src, dst: _core.correlate(
        src, dst, offsets, values, code, real_cval(cval), stream_ptr(dst)))


@engine_aware("input", "output")
@native_output
def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional correlation with `weights` (scipy.ndimage.correlate), on the input's engine."""
    return _correlate_or_convolve(input, weights, output, mode, cval, origin, False, axes)


@engine_aware("input", "output")
@native_output
def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional convolution with `weights` (scipy.ndimage.convolve), on the input's engine."""
    return _correlate_or_convolve(input, weights, output, mode, cval, origin, True, axes)
