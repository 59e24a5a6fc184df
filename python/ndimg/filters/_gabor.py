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
    y = np.arange(-half_y, half_y + 1)[:, None]
    x = np.arange(-half_x, half_x + 1)[None, :]
    xr = x * c + y * s
    yr = -x * s + y * c
    g = np.empty(np.broadcast_shapes(xr.shape, yr.shape), dtype=dtype)
    np.exp(-0.5 * ((xr / sigma_x) ** 2 + (yr / sigma_y) ** 2) + 1j * (2 * np.pi * frequency * xr + offset), out=g)
    g *= 1 / (2 * np.pi * sigma_x * sigma_y)
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
