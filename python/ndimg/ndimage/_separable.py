"""Separable filters: correlate1d and everything built from 1-D passes (scipy.ndimage semantics).

Every filter here becomes a list of 1-D passes run by one core call (``_core.separable``): the first pass
reads the input, each pass writes the output array in its dtype and the next reads it back, which is how
scipy chains its 1-D filters (intermediate results are rounded to the output dtype).
"""
from __future__ import annotations

import copy
import functools
import numbers
import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ._footprint import to_host
from ._support import (as_input, check_origin_1d, complex_via_real, get_output, mode_code, may_share, native_output,
                       is_complex, normalize_axes, normalize_axis, per_axis, real_cval)


class Pass:
    """One 1-D pass: correlation with `weights` along `axis`, or with `mean` (a count) the average of that
    many values (scipy's uniform_filter1d; no weights, so a huge window costs nothing here)."""

    __slots__ = ("axis", "weights", "mode", "cval", "origin", "mean")

    def __init__(self, axis, weights, mode, cval, origin=0, mean=False):
        # a complex cval is kept for complex data (its parts go to the two parts' passes)
        cval = complex(cval) if is_complex(cval) else real_cval(cval)
        self.axis, self.mode, self.cval, self.origin, self.mean = axis, mode_code(mode), cval, int(origin), mean
        self.weights = weights if type(weights) is tuple else tuple(float(v) for v in weights)

    def part(self, imag):
        """This pass on the real (imag False) or imaginary part of complex data."""
        p = copy.copy(self)
        p.cval = self.cval.imag if imag else self.cval.real
        return p


def run_passes(input, output, passes, fresh=False):
    """Apply `passes` to `input` into `output` (an array; `fresh` when just allocated, so it cannot overlap
    the input); no passes copies, as scipy does."""
    if not passes:
        output[...] = input
        return output
    if input.dtype.kind == "c" or output.dtype.kind == "c":
        # scipy filters complex data as its real and imaginary parts, each with its part of cval
        if output.dtype.kind != "c":
            raise RuntimeError("output must have complex dtype")
        if input.dtype.kind != "c":
            raise RuntimeError(f"array type {output.dtype!r} not supported")
        run_passes(input.real, output.real, [p.part(False) for p in passes], fresh)
        run_passes(input.imag, output.imag, [p.part(True) for p in passes], fresh)
        return output
    src = input
    # the CPU engine filters in place line by line; the CUDA engine needs distinct arrays
    if not fresh and may_share(input, output) and (output is not input or not isinstance(output, np.ndarray)):
        src = input.copy()
    _core.separable(src, output, [_core.Pass1d(p.axis, p.weights, p.mode, real_cval(p.cval), p.origin, int(p.mean))
                                  for p in passes], stream_ptr(output))
    return output


def _weights(weights):
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] < 1:
        raise RuntimeError("no filter weights given")
    return weights


@engine_aware("input", "output")
@native_output
def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """One-dimensional correlation along `axis` (scipy.ndimage.correlate1d); complex input or weights as
    scipy does, by real correlations of their parts (weights conjugated)."""
    input = as_input(input)
    weights = to_host(weights)
    if input.dtype.kind == "c" or weights.dtype.kind == "c":
        weights = weights.conj().astype(np.complex128, copy=False) if weights.dtype.kind == "c" else weights
        return complex_via_real(correlate1d.__wrapped_impl__, input, weights,
                                get_output(output, input, complex_output=True), cval,
                                axis=axis, mode=mode, origin=origin)
    weights = _weights(weights)
    axis = normalize_axis(axis, input.ndim)
    n = len(weights)
    if origin < -(n // 2) or origin > (n - 1) // 2:
        raise ValueError("Invalid origin; origin must satisfy -(len(weights) // 2) <= origin <= (len(weights)-1) // 2")
    origin = operator.index(origin)
    output = get_output(output, input)
    return run_passes(input, output, [Pass(axis, weights, mode, cval, origin)])


@engine_aware("input", "output")
@native_output
def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """One-dimensional convolution along `axis` (scipy.ndimage.convolve1d)."""
    weights = to_host(weights)
    if weights.dtype.kind == "c":  # correlate1d conjugates complex weights, convolution does not
        weights = weights.conj()
    weights = weights[::-1]
    origin = -origin
    if not len(weights) & 1:
        origin -= 1
    return correlate1d.__wrapped_impl__(input, weights, axis, output, mode, cval, origin)


@functools.lru_cache(maxsize=256)
def gaussian_kernel1d(sigma, order, radius):
    """Correlation weights (a tuple) of the order-th derivative of a Gaussian (O(radius) work, cached:
    repeated calls with one sigma are the common case). The arithmetic is scipy's, operation for
    operation, so that weights (and integer results truncated from them) agree to the last bit."""
    if order < 0:
        raise ValueError("order must be non-negative")
    order = int(order)
    x = np.arange(-radius, radius + 1)
    s2 = sigma * sigma
    phi = np.exp(-0.5 / s2 * x ** 2)
    phi = phi / phi.sum()
    if order > 0:
        # the derivative is q(x) phi(x) with q' = dq/dx - x q / sigma^2, applied `order` times to q = 1
        # on q's coefficients as a bidiagonal operator
        down = np.ones(order) / -s2
        q = np.zeros(order + 1)
        q[0] = 1
        op = np.diag(np.arange(1, order + 1), 1) + np.diag(down, -1)
        for _ in range(order):
            q = op.dot(q)
        phi = np.vander(x, order + 1, increasing=True).dot(q) * phi
    return tuple(phi[::-1].tolist())  # correlation, so reversed


def _gaussian_pass(axis, sigma, order, mode, cval, truncate, radius):
    order = operator.index(order)
    sd = float(sigma)
    lw = int(truncate * sd + 0.5) if radius is None else radius
    if not isinstance(lw, numbers.Integral) or lw < 0:
        raise ValueError("Radius must be a nonnegative integer.")
    return Pass(axis, gaussian_kernel1d(sd, order, int(lw)), mode, cval)


@engine_aware("input", "output")
@native_output
def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *,
                      radius=None):
    """Gaussian filter (or its derivative of `order`) along one axis (scipy.ndimage.gaussian_filter1d)."""
    p = _gaussian_pass(0, sigma, order, mode, cval, truncate, radius)
    input = as_input(input)
    p.axis = normalize_axis(axis, input.ndim)
    output = get_output(output, input)
    return run_passes(input, output, [p])


def gaussian_passes(ndim, sigma, order, mode, cval, truncate, radius, axes):
    """The passes of scipy's gaussian_filter (axes with sigma <= 1e-15 are skipped)."""
    axes = normalize_axes(axes, ndim)
    n = len(axes)
    orders, sigmas = per_axis(order, n), per_axis(sigma, n)
    modes, radii = per_axis(mode, n), per_axis(radius, n)
    return [_gaussian_pass(a, s, o, m, cval, truncate, r)
            for a, s, o, m, r in zip(axes, sigmas, orders, modes, radii) if s > 1e-15]


@engine_aware("input", "output")
@native_output
def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *, radius=None,
                    axes=None):
    """Multidimensional Gaussian filter as a sequence of 1-D passes (scipy.ndimage.gaussian_filter)."""
    input = as_input(input)
    fresh = output is None
    output = get_output(output, input)
    return run_passes(input, output, gaussian_passes(input.ndim, sigma, order, mode, cval, truncate, radius, axes),
                      fresh)


def _uniform_pass(axis, size, mode, cval, origin):
    if size < 1:
        raise RuntimeError("incorrect filter size")
    origin = check_origin_1d(size, origin)
    return Pass(axis, (), mode, cval, origin, mean=operator.index(size))


@engine_aware("input", "output")
@native_output
def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """Mean over `size` values along one axis (scipy.ndimage.uniform_filter1d)."""
    input = as_input(input)
    axis = normalize_axis(axis, input.ndim)
    p = _uniform_pass(axis, size, mode, cval, origin)
    output = get_output(output, input, complex_output=input.dtype.kind == "c")
    return run_passes(input, output, [p])


def uniform_passes(ndim, size, mode, cval, origin, axes):
    axes = normalize_axes(axes, ndim)
    n = len(axes)
    sizes, origins, modes = per_axis(size, n), per_axis(origin, n), per_axis(mode, n)
    return [_uniform_pass(a, int(s), m, cval, o) for a, s, o, m in zip(axes, sizes, origins, modes) if s > 1]


@engine_aware("input", "output")
@native_output
def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional mean filter as a sequence of 1-D passes (scipy.ndimage.uniform_filter)."""
    input = as_input(input)
    fresh = output is None
    output = get_output(output, input, complex_output=input.dtype.kind == "c")
    return run_passes(input, output, uniform_passes(input.ndim, size, mode, cval, origin, axes), fresh)


def _derivative_smooth(input, axis, output, mode, cval, smooth):
    input = as_input(input)
    axis = normalize_axis(axis, input.ndim)
    fresh = output is None
    output = get_output(output, input)
    modes = per_axis(mode, input.ndim)
    passes = [Pass(axis, (-1.0, 0.0, 1.0), modes[axis], cval)]
    passes += [Pass(d, smooth, modes[d], cval) for d in range(input.ndim) if d != axis]
    return run_passes(input, output, passes, fresh)


@engine_aware("input", "output")
@native_output
def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """Sobel derivative along `axis`, smoothed along the others (scipy.ndimage.sobel)."""
    return _derivative_smooth(input, axis, output, mode, cval, (1.0, 2.0, 1.0))


@engine_aware("input", "output")
@native_output
def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """Prewitt derivative along `axis`, averaged along the others (scipy.ndimage.prewitt)."""
    return _derivative_smooth(input, axis, output, mode, cval, (1.0, 1.0, 1.0))


def sum_over_axes(input, output, mode, axes, derivative, square):
    """scipy's generic_laplace / generic_gradient_magnitude: derivative(axis, out, mode) per axis, summed
    (squared first, with a final square root, for the gradient magnitude) in the output dtype. As scipy's,
    the first axis is given the output array and the others its dtype (their results are returned)."""
    if not axes:
        output[...] = input
        return output
    xp = xp_of(output)
    modes = per_axis(mode, len(axes))
    derivative(axes[0], output, modes[0])
    if square:
        xp.multiply(output, output, out=output)
    for ax, m in zip(axes[1:], modes[1:]):
        tmp = derivative(ax, output.dtype, m)
        if square:
            xp.multiply(tmp, tmp, out=tmp)
        output += tmp
    if square:
        if output.dtype.kind == "f":
            xp.sqrt(output, out=output)
        else:
            output[...] = xp.sqrt(output)
    return output


@engine_aware("input", "output")
@native_output
def laplace(input, output=None, mode="reflect", cval=0.0, *, axes=None):
    """Sum of second differences over `axes` (scipy.ndimage.laplace)."""
    input = as_input(input)
    output = get_output(output, input)
    axes = normalize_axes(axes, input.ndim)
    return sum_over_axes(input, output, mode, axes, lambda ax, out, m: run_passes(
        input, get_output(out, input), [Pass(ax, [1, -2, 1], m, cval)]), False)


@engine_aware("input", "output")
@native_output
def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None, **kwargs):
    """Laplace filter of Gaussian second derivatives (scipy.ndimage.gaussian_laplace)."""
    input = as_input(input)
    output = get_output(output, input)
    axes = normalize_axes(axes, input.ndim)
    sigmas = per_axis(sigma, len(axes))
    if len(axes) < input.ndim:  # axes not filtered get sigma 0
        full = [0] * input.ndim
        for s, ax in zip(sigmas, axes):
            full[ax] = s
        sigmas = full
    return _gaussian_derivative_sum(input, output, sigmas, 2, mode, cval, axes, kwargs)


@engine_aware("input", "output")
@native_output
def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None, **kwargs):
    """Gradient magnitude from Gaussian first derivatives (scipy.ndimage.gaussian_gradient_magnitude)."""
    input = as_input(input)
    output = get_output(output, input)
    axes = normalize_axes(axes, input.ndim)
    return _gaussian_derivative_sum(input, output, sigma, 1, mode, cval, axes, kwargs)


def _gaussian_derivative_sum(input, output, sigma, order, mode, cval, axes, kwargs):
    """Gaussian derivatives of `order` along each of `axes`, summed: the Laplacian for order 2, the gradient
    magnitude (squares summed, then the root) for order 1."""

    def derivative(ax, out, m):
        orders = [order if d == ax else 0 for d in range(input.ndim)]
        return run_passes(input, get_output(out, input), gaussian_passes(input.ndim, sigma, orders, m, cval,
                                                      kwargs.get("truncate", 4.0), kwargs.get("radius"), None))

    _check_kwargs(kwargs)
    return sum_over_axes(input, output, mode, axes, derivative, order == 1)


def _check_kwargs(kwargs):
    bad = set(kwargs) - {"truncate", "radius"}
    if bad:
        raise TypeError(f"gaussian_filter() got an unexpected keyword argument {sorted(bad)[0]!r}")
