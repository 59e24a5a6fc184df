"""scipy.ndimage's Fourier filters (fourier_gaussian, fourier_uniform, fourier_ellipsoid, fourier_shift) on the
ndimg engines: the input is an FFT's output (numpy.fft / scipy.fft on the host, cupy.fft's cuFFT output on
the GPU) and each element is multiplied by the filter's transform at its frequency, one pass by the core
(``_core.fourier_filter``), factors in double as scipy computes them.

On Dask arrays each chunk is filtered with the frequencies of its place in the whole array, which is exact:
the filters are pointwise in the frequency domain.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ._support import may_share, native_output, normalize_axis, per_axis

_K = _core.FourierKind
_ANY_OUT = (np.complex64, np.complex128, np.float32, np.float64)
_COMPLEX_OUT = (np.complex64, np.complex128)


def _get_output(output, input, complex_only):
    """scipy's output rules: None keeps float32 and complex types (complex types only for the shift) and
    makes the others double; a type must be one of those; an array must have the input's shape."""
    xp = xp_of(input)
    if output is None:
        keep = _COMPLEX_OUT if complex_only else (np.complex64, np.complex128, np.float32)
        dt = input.dtype if input.dtype.type in keep else (np.complex128 if complex_only else np.float64)
        return xp.empty(input.shape, dtype=dt)
    if type(output) is type:
        if output not in (_COMPLEX_OUT if complex_only else _ANY_OUT):
            raise RuntimeError("output type not supported")
        return xp.empty(input.shape, dtype=output)
    if output.shape != input.shape:   # a dtype instance, a list or a string fail here as in scipy
        raise RuntimeError("output shape not correct")
    return output


def _supported(dt, kinds):
    return (dt.kind in "biu" and dt.itemsize <= 8) or (dt.kind in kinds and dt.itemsize in
                                                       {"f": (4, 8), "c": (8, 16)}[dt.kind])


def _check_types(input, output, complex_only):
    """scipy's C layer: a writable output, data types it handles, a complex output for complex data."""
    if not getattr(output.flags, "writeable", True):
        raise ValueError("output array is read-only.")
    complex_out = complex_only or input.dtype.kind == "c"
    if not _supported(input.dtype, "fc") or output.dtype.kind not in ("c" if complex_out else "fc") \
            or not _supported(output.dtype, "fc"):
        raise RuntimeError("data type not supported")


def _same_view(a, b):
    xp = xp_of(a)
    ptr = (lambda x: x.ctypes.data) if xp is np else (lambda x: x.data.ptr)
    return a.dtype == b.dtype and a.strides == b.strides and ptr(a) == ptr(b)


def _parts(a):
    return [a.real, a.imag] if a.dtype.kind == "c" else [a]


def _run(input, output, kind, params, n, axis, full_shape=(), offset=()):
    """The core call on checked arguments: integer data read as double, an input overlapping the output
    otherwise than element for element copied first."""
    src = input
    if src.dtype.kind in "biu":
        src = src.astype(np.float64)
    elif may_share(src, output) and not _same_view(src, output):
        src = src.copy()
    _core.fourier_filter(_parts(src), _parts(output), kind, params, n, axis, list(full_shape), list(offset),
                         stream_ptr(output))
    return output


def _filter(input, param, n, axis, output, kind):
    if not hasattr(input, "dtype") or not hasattr(input, "shape"):
        input = np.asarray(input)
    complex_only = kind == _K.shift
    if kind == _K.ellipsoid and input.ndim > 3:
        raise NotImplementedError("Only 1d, 2d and 3d inputs are supported")
    output = _get_output(output, input, complex_only)
    if kind == _K.ellipsoid and output.size == 0:
        return output
    axis = normalize_axis(axis, input.ndim)
    params = [float(p) for p in np.asarray(per_axis(param, input.ndim), dtype=np.float64)]
    n = operator.index(n)
    if not -2**63 <= n < 2**63:
        raise OverflowError("Python int too large to convert to C ssize_t")
    _check_types(input, output, complex_only)
    return _run(input, output, kind, params, n, axis)


@engine_aware("input", "output")
@native_output
def fourier_gaussian(input, sigma, n=-1, axis=-1, output=None):
    """Multiply an FFT's output by the transform of a Gaussian of standard deviation `sigma` (one per axis
    or one for all): exp(-2 pi^2 sigma^2 f^2) per axis (scipy.ndimage.fourier_gaussian). n < 0: `input` is a
    complex FFT's output; n >= 0: a real FFT's along `axis`, of a signal of length n."""
    return _filter(input, sigma, n, axis, output, _K.gaussian)


@engine_aware("input", "output")
@native_output
def fourier_uniform(input, size, n=-1, axis=-1, output=None):
    """Multiply an FFT's output by the transform of a box of `size`: sinc(size f) per axis
    (scipy.ndimage.fourier_uniform); `n` and `axis` as fourier_gaussian."""
    return _filter(input, size, n, axis, output, _K.uniform)


@engine_aware("input", "output")
@native_output
def fourier_ellipsoid(input, size, n=-1, axis=-1, output=None):
    """Multiply an FFT's output by the transform of an ellipsoid of `size` (scipy.ndimage.fourier_ellipsoid):
    sin(r)/r in 1-D, 2 J1(r)/r in 2-D, 3 (sin r - r cos r)/r^3 in 3-D of the scaled frequency radius r; 1 to 3
    dimensions, as scipy; `n` and `axis` as fourier_gaussian."""
    return _filter(input, size, n, axis, output, _K.ellipsoid)


@engine_aware("input", "output")
@native_output
def fourier_shift(input, shift, n=-1, axis=-1, output=None):
    """Multiply an FFT's output by the transform of a shift by `shift`: exp(-2 pi i shift f) per axis
    (scipy.ndimage.fourier_shift); the result is complex; `n` and `axis` as fourier_gaussian."""
    return _filter(input, shift, n, axis, output, _K.shift)


# ---- Dask: each chunk filtered with the frequencies of its place in the whole array ----
def _block(x, kind, params, n, axis, out_dtype, full_shape, block_info=None):
    if isinstance(x, np.ndarray) and not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    offset = [lo for lo, _ in block_info[0]["array-location"]]
    out = xp_of(x).empty(x.shape, dtype=out_dtype)
    return _run(x, out, getattr(_K, kind), params, n, axis, full_shape, offset)


def _dask(public, kind, input, param, n, axis, output):
    if hasattr(output, "shape") and not isinstance(output, (type, np.dtype)):   # others fail in the sample call
        raise NotImplementedError(f"ndimg.ndimage.{public.__name__}: output= arrays cannot take a lazy Dask "
                                  f"result; pass an output type or None")
    meta = input._meta
    xp = xp_of(meta) if hasattr(meta, "dtype") else np
    # scipy's checks and the output's dtype from a call on a one-element block of the input's dimensionality
    sample = public(xp.zeros(tuple(min(s, 1) for s in input.shape), dtype=input.dtype), param, n, axis, output)
    ndim = input.ndim
    params = [float(p) for p in np.asarray(per_axis(param, ndim), dtype=np.float64)]
    return input.map_blocks(_block, kind=kind, params=params, n=operator.index(n), axis=normalize_axis(axis, ndim),
                            out_dtype=sample.dtype, dtype=sample.dtype, full_shape=tuple(input.shape), meta=sample[(slice(0, 0),) * ndim],
                            token=public.__name__)


def fourier_gaussian_dask(input, sigma, n=-1, axis=-1, output=None):
    return _dask(fourier_gaussian, "gaussian", input, sigma, n, axis, output)


def fourier_uniform_dask(input, size, n=-1, axis=-1, output=None):
    return _dask(fourier_uniform, "uniform", input, size, n, axis, output)


def fourier_ellipsoid_dask(input, size, n=-1, axis=-1, output=None):
    return _dask(fourier_ellipsoid, "ellipsoid", input, size, n, axis, output)


def fourier_shift_dask(input, shift, n=-1, axis=-1, output=None):
    return _dask(fourier_shift, "shift", input, shift, n, axis, output)
