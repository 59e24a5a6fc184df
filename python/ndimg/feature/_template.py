"""skimage.feature.match_template on the ndimg engines: the normalized cross-correlation written over xp,
with scikit-image's running-sum window statistics and scipy.signal.fftconvolve's transform sizes (scipy.fft
on the CPU threads, cuFFT for CuPy), so that NumPy input gets scikit-image's values.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.fft import next_fast_len

from .._blocks import blockwise_rows
from .._engine import engine_aware, xp_of
from .._fft import fft_of
from .._prim import scan as _scan
from .._rules import array_argument, as_image, check_nD, supported_float_type


def _window_sums(xp, image, window_shape):
    """Sum over every window of `window_shape` that fits one element in from the padded image's edges, by
    running sums along each axis (scikit-image's _window_sum_2d/_3d; on the host, cumsum and differences
    in one sweep per axis)."""
    out = image
    for axis, w in enumerate(window_shape):
        if xp is np:
            out = _scan.window_sums(out, axis=axis, w=w)
            continue
        out = _scan.cumsum(out, axis=axis, out=xp.empty(out.shape, out.dtype))   # NumPy's bits
        hi = [slice(None)] * out.ndim
        lo = [slice(None)] * out.ndim
        hi[axis], lo[axis] = slice(w, -1), slice(None, -w - 1)
        out = out[tuple(hi)] - out[tuple(lo)]
    return out


def _pointwise(xp, ufunc, *args):
    """ufunc(*args) of arrays of one shape, NumPy's by blocks of rows on the engine's threads."""
    if xp is not np:
        return ufunc(*args)
    out = np.empty(args[0].shape, args[0].dtype)
    blockwise_rows(lambda o, *a: ufunc(*a, out=o), out, *args)
    return out


def _rfftn_padded(fft, x, fshape, axes):
    """fft.rfftn(x, fshape, axes=axes) of a small array (the template), axis by axis in rfftn's order (the
    last one, then the others from the first) with each pass over the lines of x's own extent along the axes
    still to come: the same lines' transforms, without those of the zero padding (zeros)."""
    out = fft.rfftn(x, fshape[-1:], axes=axes[-1:])
    for a, n in zip(axes[:-1], fshape[:-1]):
        out = fft.fftn(out, [n], axes=[a])
    return out


def _fftconvolve_valid(xp, in1, in2):
    """scipy.signal.fftconvolve(in1, in2, mode='valid') for real arrays of one dimensionality, in1 the larger:
    axes where either is 1 long are broadcast, not transformed; the transforms at next_fast_len sizes."""
    s1, s2 = in1.shape, in2.shape
    axes = [a for a in range(in1.ndim) if s1[a] != 1 and s2[a] != 1]
    if not axes:
        ret = in1 * in2
    else:
        if in1.dtype.kind in "iub":
            in1 = in1.astype(np.float64)
        if in2.dtype.kind in "iub":
            in2 = in2.astype(np.float64)
        shape = [s1[a] + s2[a] - 1 if a in axes else max(s1[a], s2[a]) for a in range(in1.ndim)]
        fshape = [next_fast_len(shape[a], True) for a in axes]
        fft = fft_of(xp)
        f2 = _rfftn_padded(fft, in2, fshape, axes) if xp is np else fft.rfftn(in2, fshape, axes=axes)
        ret = fft.irfftn(fft.rfftn(in1, fshape, axes=axes) * f2, fshape, axes=axes)
        ret = ret[tuple(slice(n) for n in shape)]
    valid = [s1[a] - s2[a] + 1 if a in axes else ret.shape[a] for a in range(ret.ndim)]
    start = [(n - v) // 2 for n, v in zip(ret.shape, valid)]
    return ret[tuple(slice(b, b + v) for b, v in zip(start, valid))]


@engine_aware("image", "template")
def match_template(image, template, pad_input=False, mode="constant", constant_values=0):
    """Normalized cross-correlation of a 2-D or 3-D image with a template (skimage.feature.match_template)."""
    check_nD(image, (2, 3))
    image, template = array_argument(image, "ndim"), as_image(template)
    if image.ndim < template.ndim:
        raise ValueError("Dimensionality of template must be less than or equal to the dimensionality of image.")
    if np.any(np.less(image.shape, template.shape)):
        raise ValueError("Image must be larger than template.")
    xp = xp_of(image)
    image_shape = image.shape
    float_dtype = supported_float_type(image.dtype)
    image = image.astype(float_dtype, copy=False)
    pad_width = tuple((w, w) for w in template.shape)
    if mode == "constant":
        image = xp.pad(image, pad_width=pad_width, mode=mode, constant_values=constant_values)
    else:
        image = xp.pad(image, pad_width=pad_width, mode=mode)
    window_sum = _window_sums(xp, image, template.shape)
    window_sum2 = _window_sums(xp, _pointwise(xp, xp.multiply, image, image), template.shape)
    template_mean = template.mean()
    template_volume = math.prod(template.shape)
    template_ssd = xp.sum((template - template_mean) ** 2)
    inner = (slice(1, -1),) * image.ndim
    xcorr = _fftconvolve_valid(xp, image, template[(slice(None, None, -1),) * template.ndim])[inner]
    eps = np.finfo(float_dtype).eps

    def normalize(response, xcorr, window_sum, window_sum2):
        """The response from the correlation and the window sums (the sums overwritten)."""
        numerator = xcorr - window_sum * template_mean
        denominator = window_sum2
        xp.multiply(window_sum, window_sum, out=window_sum)
        xp.divide(window_sum, template_volume, out=window_sum)
        denominator -= window_sum
        denominator *= template_ssd
        xp.maximum(denominator, 0, out=denominator)   # no square root of a negative rounding residue
        xp.sqrt(denominator, out=denominator)
        valid = denominator > eps   # no division by zero
        if xp is np:
            response[...] = 0
            np.divide(numerator, denominator, out=response, where=valid)
        else:
            response[...] = xp.where(valid, numerator / xp.where(valid, denominator, 1), 0)

    response = xp.empty(xcorr.shape, dtype=float_dtype)
    if xp is np:   # by blocks of rows on the threads
        blockwise_rows(normalize, response, xcorr, window_sum, window_sum2)
    else:
        normalize(response, xcorr, window_sum, window_sum2)
    slices = []
    for i, t in enumerate(template.shape):
        d0 = (t - 1) // 2 if pad_input else t - 1
        d1 = d0 + image_shape[i] if pad_input else d0 + image_shape[i] - t + 1
        slices.append(slice(d0, d1))
    return response[tuple(slices)]
