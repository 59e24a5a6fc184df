"""Radon transforms (skimage.transform.radon_transform): projections, filtered back projection and SART
on the proj family (cpp/src/proj), the ramp filters by FFT (scipy.fft on the CPU, cuFFT on the GPU)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._fft import fft_of
from .._rules import check_allocation, convert_to_float
from ..ndimage._footprint import to_host

_GOLDEN_RATIO = (1 + math.sqrt(5)) / 2
_FILTERS = ("ramp", "shepp-logan", "cosine", "hamming", "hann", None)
_INTERPOLATIONS = ("linear", "nearest", "cubic")


def _cos_sin(angles_deg):
    """cos and sin of each angle (degrees) computed one scalar at a time, as scikit-image's loops do (NumPy's
    vector and scalar paths may round differently)."""
    rad = np.deg2rad(angles_deg)
    return [float(np.cos(a)) for a in rad], [float(np.sin(a)) for a in rad]


@engine_aware("image")
def radon(image, theta=None, circle=True, *, preserve_range=False):
    """The sinogram (N, len(theta)) of a 2-D image: for each angle (degrees), the column sums of the image
    rotated about (N // 2, N // 2) with bilinear interpolation. circle: the image is taken as zero outside
    its inscribed circle (and cropped to a square), else padded to hold its diagonal."""
    if image.ndim != 2:
        raise ValueError("The input image must be 2-D")
    if theta is None:
        theta = np.arange(180)
    xp = xp_of(image)
    image = convert_to_float(image, preserve_range)
    shape = np.array(image.shape)
    if circle:
        side = int(shape.min())
        radius = side // 2
        r, c = xp.ogrid[:image.shape[0], :image.shape[1]]
        outside = (r - int(shape[0] // 2)) ** 2 + (c - int(shape[1] // 2)) ** 2 > radius ** 2
        if bool(xp.any(image[outside])):
            warnings.warn("Radon transform: image must be zero outside the reconstruction circle", stacklevel=2)
        starts = [int(np.ceil(e / 2)) if e > 0 else 0 for e in shape - side]
        square = image[starts[0]:starts[0] + side, starts[1]:starts[1] + side]
    else:
        diagonal = np.sqrt(2) * max(image.shape)
        pad = [int(np.ceil(diagonal - s)) for s in image.shape]
        before = [(s + p) // 2 - s // 2 for s, p in zip(image.shape, pad)]
        square = xp.pad(image, [(b, p - b) for b, p in zip(before, pad)], mode="constant", constant_values=0)
    if square.shape[0] != square.shape[1]:
        raise ValueError("padded_image must be a square")
    square = xp.ascontiguousarray(square)
    center = square.shape[0] // 2
    cos, sin = _cos_sin(to_host(theta))
    # warp's inverse map of each angle: input (x, y) = R (column, row, 1), in the image's type
    matrix = []
    for ca, sa in zip(cos, sin):
        matrix += [ca, sa, -center * (ca + sa - 1), -sa, ca, -center * (ca - sa - 1)]
    out = xp.zeros((square.shape[0], len(cos)), dtype=image.dtype)
    if out.size:
        _core.proj_radon(square, matrix, out, stream=stream_ptr(out))
    return out


def _sinogram_circle_to_square(sinogram):
    xp = xp_of(sinogram)
    diagonal = int(np.ceil(np.sqrt(2) * sinogram.shape[0]))
    pad = diagonal - sinogram.shape[0]
    before = diagonal // 2 - sinogram.shape[0] // 2
    return xp.pad(sinogram, ((before, pad - before), (0, 0)), mode="constant", constant_values=0)


def _get_fourier_filter(size, filter_name):
    """The (size, 1) frequency response of the ramp filter (from its spatial form, Kak & Slaney ch. 3 eq. 61)
    times the named window; all ones for None."""
    from scipy.fft import fft, fftfreq, fftshift

    n = np.concatenate((np.arange(1, size / 2 + 1, 2, dtype=int), np.arange(size / 2 - 1, 0, -2, dtype=int)))
    f = np.zeros(size)
    f[0] = 0.25
    f[1::2] = -1 / (np.pi * n) ** 2
    response = 2 * np.real(fft(f))
    if filter_name == "shepp-logan":
        omega = np.pi * fftfreq(size)[1:]
        response[1:] *= np.sin(omega) / omega
    elif filter_name == "cosine":
        response *= fftshift(np.sin(np.linspace(0, np.pi, size, endpoint=False)))
    elif filter_name == "hamming":
        response *= fftshift(np.hamming(size))
    elif filter_name == "hann":
        response *= fftshift(np.hanning(size))
    elif filter_name is None:
        response[:] = 1
    return response[:, np.newaxis]


def _cubic_coefficients(x, values, xp):
    """(knots, coefficients (n, m)) of scipy's not-a-knot cubic interpolating spline of each column of
    `values` on the grid x: on the host by scipy's banded solve; for GPU values, the grid's inverse
    collocation matrix (host, from the grid alone) applied on the device."""
    from scipy.interpolate import make_interp_spline

    if xp is np:
        spline = make_interp_spline(x, values, k=3, axis=0, check_finite=False)
        return spline.t, spline.c
    spline = make_interp_spline(x, np.eye(len(x)), k=3, axis=0, check_finite=False)
    return spline.t, xp.asarray(spline.c) @ values


@engine_aware("radon_image")
def iradon(radon_image, theta=None, output_size=None, filter_name="ramp", interpolation="linear", circle=True,
           preserve_range=True):
    """Filtered back projection of a sinogram (one column per angle, in degrees): the projections ramp-filtered
    by FFT, then each pixel sums them interpolated ('linear', 'nearest' or 'cubic') at its distance from the
    rotation axis; scaled by pi / (2 * angles)."""
    if radon_image.ndim != 2:
        raise ValueError("The input image must be 2-D")
    if theta is None:
        theta = np.linspace(0, 180, radon_image.shape[1], endpoint=False)
    angles_count = len(theta)
    if angles_count != radon_image.shape[1]:
        raise ValueError("The given ``theta`` does not match the number of projections in ``radon_image``.")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Unknown interpolation: {interpolation}")
    if filter_name not in _FILTERS:
        raise ValueError(f"Unknown filter: {filter_name}")
    xp = xp_of(radon_image)
    radon_image = convert_to_float(radon_image, preserve_range)
    dtype = radon_image.dtype
    img_shape = radon_image.shape[0]
    if output_size is None:
        output_size = img_shape if circle else int(np.floor(np.sqrt(img_shape ** 2 / 2.0)))
    if circle:
        radon_image = _sinogram_circle_to_square(radon_image)
        img_shape = radon_image.shape[0]
    check_allocation((output_size, output_size), dtype)
    padded = max(64, int(2 ** np.ceil(np.log2(2 * img_shape))))
    img = xp.pad(radon_image, ((0, padded - img_shape), (0, 0)), mode="constant", constant_values=0)
    fft = fft_of(xp)
    response = xp.asarray(_get_fourier_filter(padded, filter_name))
    filtered = xp.real(fft.ifftn(fft.fftn(img, axes=(0,)) * response, axes=(0,))[:img_shape, :])
    filtered = xp.ascontiguousarray(filtered, dtype=np.float64)
    knots = []
    if interpolation == "cubic":
        x = np.arange(img_shape) - img_shape // 2
        knots, filtered = _cubic_coefficients(x, filtered, xp)
        knots = knots.tolist()
    rows = xp.ascontiguousarray(filtered.T)
    reconstructed = xp.zeros((output_size, output_size), dtype=dtype)
    radius = output_size // 2
    cos, sin = _cos_sin(to_host(theta))
    _core.proj_backproject(rows, cos, sin, radius, getattr(_core.ProjInterp, interpolation), knots, reconstructed,
                           stream=stream_ptr(reconstructed))
    if circle:
        r, c = xp.ogrid[:output_size, :output_size]
        reconstructed[(r - radius) ** 2 + (c - radius) ** 2 > radius ** 2] = 0.0
    return reconstructed * np.pi / (2 * angles_count)


def order_angles_golden_ratio(theta):
    """Indices into theta (degrees, no duplicates) in Kohler's golden-ratio order: each next angle the one
    remaining closest (modulo 180) to the previous plus 180 / golden_ratio**2. A generator, as scikit-image's."""
    interval = 180
    remaining = list(np.argsort(theta))
    angle = theta[remaining[0]]
    yield remaining.pop(0)
    step = interval / _GOLDEN_RATIO ** 2
    while remaining:
        left = theta[remaining]
        angle = (angle + step) % interval
        above = np.searchsorted(left, angle)
        below = above - 1
        above %= len(remaining)
        d_below = abs(angle - left[below])
        d_above = abs(angle - left[above])
        if min(d_below % interval, d_below % -interval) < min(d_above % interval, d_above % -interval):
            yield remaining.pop(below)
        else:
            yield remaining.pop(above)


@engine_aware("radon_image", "image")
def iradon_sart(radon_image, theta=None, image=None, projection_shifts=None, clip=None, relaxation=0.15, dtype=None):
    """One SART iteration (Andersen and Kak) over the projections of a sinogram, in golden-ratio order, from
    `image` (zeros by default): each projection's bilinear ray deviations spread back with a Hamming window,
    times `relaxation`, then clipped to `clip`."""
    if radon_image.ndim != 2:
        raise ValueError("radon_image must be two dimensional")
    if dtype is None:
        if radon_image.dtype.char in "fd":
            dtype = radon_image.dtype
        else:
            warnings.warn("Only floating point data type are valid for SART inverse radon transform. Input data is "
                          "cast to float. To disable this warning, please cast image_radon to float.", stacklevel=2)
            dtype = np.dtype(float)
    elif np.dtype(dtype).char not in "fd":
        raise ValueError("Only floating point data type are valid for inverse radon transform.")
    xp = xp_of(radon_image)
    dtype = np.dtype(dtype)
    radon_image = radon_image.astype(dtype, copy=False)
    shape = (radon_image.shape[0], radon_image.shape[0])
    if theta is None:
        theta = np.linspace(0, 180, radon_image.shape[1], endpoint=False, dtype=dtype)
    elif len(theta) != radon_image.shape[1]:
        raise ValueError(f"Shape of theta ({len(theta)}) does not match the number of projections "
                         f"({radon_image.shape[1]})")
    else:
        theta = np.asarray(to_host(theta), dtype=dtype)
    if image is None:
        image = xp.zeros(shape, dtype=dtype)
    elif image.shape != shape:
        raise ValueError(f"Shape of image ({image.shape}) does not match first dimension of radon_image ({shape})")
    elif image.dtype != dtype:
        warnings.warn(f"image dtype does not match output dtype: image is cast to {dtype}", stacklevel=2)
    image = xp.array(image, dtype=dtype, order="C")
    if projection_shifts is None:
        shifts = np.zeros((radon_image.shape[1],), dtype=dtype)
    elif len(projection_shifts) != radon_image.shape[1]:
        raise ValueError(f"Shape of projection_shifts ({len(projection_shifts)}) does not match the number of "
                         f"projections ({radon_image.shape[1]})")
    else:
        shifts = np.asarray(to_host(projection_shifts), dtype=dtype)
    if clip is not None:
        if len(clip) != 2:
            raise ValueError("clip must be a length-2 sequence")
        clip = np.asarray(to_host(clip), dtype=dtype)
    order = np.fromiter(order_angles_golden_ratio(theta), dtype=np.int64, count=len(theta))
    projections = xp.ascontiguousarray(radon_image.T[xp.asarray(order)])
    _core.proj_sart(image, projections, theta[order].astype(np.float64).tolist(),
                    shifts[order].astype(np.float64).tolist(), float(relaxation),
                    [] if clip is None else clip.astype(np.float64).tolist(), stream=stream_ptr(image))
    return image
