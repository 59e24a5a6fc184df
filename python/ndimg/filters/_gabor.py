"""Gabor filtering (skimage.filters.gabor, gabor_kernel)."""
from __future__ import annotations

import math

import numpy as np

from .._engine import engine_aware
from .._rules import array_argument, check_nD, supported_float_type
from ..ndimage._correlate import _correlate_or_convolve


def _sigma_for_bandwidth(bandwidth):
    # half-magnitude bandwidth b (octaves) -> sigma * frequency
    two_b = 2.0**bandwidth
    return math.sqrt(math.log(2) / 2.0) / math.pi * (two_b + 1) / (two_b - 1)


def gabor_kernel(frequency, theta=0, bandwidth=1, sigma_x=None, sigma_y=None, n_stds=3, offset=0,
                 dtype=np.complex128):
    """Complex 2-D Gabor kernel: a Gaussian envelope times exp(i (2 pi f x' + offset)), normalised by
    1 / (2 pi sigma_x sigma_y) (skimage.filters.gabor_kernel); a NumPy array."""
    if sigma_x is None:
        sigma_x = _sigma_for_bandwidth(bandwidth) / frequency
    if sigma_y is None:
        sigma_y = _sigma_for_bandwidth(bandwidth) / frequency
    if np.dtype(dtype).kind != "c":
        raise ValueError("dtype must be complex")
    c, s = math.cos(theta), math.sin(theta)
    half_x = math.ceil(max(abs(n_stds * sigma_x * c), abs(n_stds * sigma_y * s), 1))
    half_y = math.ceil(max(abs(n_stds * sigma_y * c), abs(n_stds * sigma_x * s), 1))
    x = np.arange(-half_x, half_x + 1, dtype=float)
    y = np.arange(-half_y, half_y + 1, dtype=float)
    # The phase 2 pi f (x c + y s) + offset is a row term plus a column term, so the harmonic is an outer
    # product of two complex vectors: as many complex exponentials as the kernel's sides, not its elements.
    # So is the envelope where its quadratic form has no xy term (equal sigmas, or theta a multiple of pi/2
    # exactly). Within a few ulp of scikit-image's one complex exponential per element.
    row = np.exp(1j * (2 * np.pi * frequency * c * x))
    col = np.exp(1j * (2 * np.pi * frequency * s * y + offset)) * (1 / (2 * np.pi * sigma_x * sigma_y))
    g = np.empty((y.size, x.size), dtype=dtype)
    if sigma_x == sigma_y or c * s == 0:
        row *= np.exp(-0.5 * (c * c / sigma_x**2 + s * s / sigma_y**2) * x**2)
        col *= np.exp(-0.5 * (s * s / sigma_x**2 + c * c / sigma_y**2) * y**2)
        np.multiply.outer(col, row, out=g)
    else:
        xr = x[None, :] * c + y[:, None] * s
        yr = -x[None, :] * s + y[:, None] * c
        envelope = np.exp(-0.5 * ((xr / sigma_x) ** 2 + (yr / sigma_y) ** 2))
        np.multiply(envelope * col[:, None], row, out=g)
    return g


@engine_aware("image")
def gabor(image, frequency, theta=0, bandwidth=1, sigma_x=None, sigma_y=None, n_stds=3, offset=0,
          mode="reflect", cval=0):
    """Real and imaginary responses of `image` to a Gabor kernel (skimage.filters.gabor). Integer
    images keep their dtype, as in scikit-image."""
    check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
    image = array_argument(image)
    if image.dtype.kind == "f":
        image = image.astype(supported_float_type(image.dtype), copy=False)
        kernel_dtype = np.promote_types(image.dtype, np.complex64)
    else:
        kernel_dtype = np.complex128
    g = gabor_kernel(frequency, theta, bandwidth, sigma_x, sigma_y, n_stds, offset, dtype=kernel_dtype)
    real = _correlate_or_convolve(image, g.real, None, mode, cval, 0, True, None)
    imag = _correlate_or_convolve(image, g.imag, None, mode, cval, 0, True, None)
    return real, imag
