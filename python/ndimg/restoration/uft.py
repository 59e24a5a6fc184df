"""skimage.restoration.uft over working arrays (NumPy or CuPy): unitary FFTs over the last `dim` axes, the
transfer function of an impulse response, and the Laplacian regulariser. The FFTs are the engine's
(ndimg._fft: scipy.fft on the CPU engine's threads, cuFFT for CuPy)."""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from .._fft import fft_of
from .._rules import supported_float_type


def _no_axes(dim):
    if dim == 0:   # scipy.fft's refusal (cupyx's differs): a 0-d image has no axis to transform
        raise ValueError("at least 1 axis must be transformed")


def _unitary(name, inarray, dim, s=None):
    if dim is None:
        dim = inarray.ndim
    _no_axes(dim)
    fn = getattr(fft_of(xp_of(inarray)), name)
    return fn(inarray, s, axes=tuple(range(-dim, 0)), norm="ortho")


def ufftn(inarray, dim=None):
    return _unitary("fftn", inarray, dim)


def uifftn(inarray, dim=None):
    return _unitary("ifftn", inarray, dim)


def urfftn(inarray, dim=None):
    return _unitary("rfftn", inarray, dim)


def uirfftn(inarray, dim=None, shape=None):
    return _unitary("irfftn", inarray, dim, shape)


def image_quad_norm(inarray):
    """The squared norm of an image from its (half, when the last axis is a real FFT's) spectrum over the
    last two axes: the half spectrum's bins but the first column stand for two."""
    xp = xp_of(inarray)
    sq = xp.sum(xp.sum(xp.abs(inarray) ** 2, axis=-1), axis=-1)
    if inarray.shape[-1] != inarray.shape[-2]:
        return 2 * sq - xp.sum(xp.abs(inarray[..., 0]) ** 2, axis=-1)
    return sq


def ir2tf(imp_resp, shape, dim=None, is_real=True):
    """The transfer function of impulse response `imp_resp` on an image of `shape`: the response padded to
    `shape`, its centre rolled to the origin, FFT over the last `dim` axes (complex64 for float32 input)."""
    xp = xp_of(imp_resp)
    if not dim:
        dim = imp_resp.ndim
    _no_axes(dim)
    dtype = supported_float_type(imp_resp.dtype)
    if imp_resp.ndim == len(shape) and all(m <= min(_DFT_TAPS, n) for m, n in zip(imp_resp.shape, shape)):
        return _small_transfer(xp, imp_resp, shape, dim, is_real, dtype)
    padded = xp.zeros(shape, dtype=dtype)
    padded[tuple(slice(0, s) for s in imp_resp.shape)] = imp_resp
    first = imp_resp.ndim - dim
    shifts = tuple(-(n // 2) for n in imp_resp.shape[first:])
    padded = xp.roll(padded, shifts, axis=tuple(range(first, imp_resp.ndim)))
    fft = fft_of(xp)
    out = (fft.rfftn if is_real else fft.fftn)(padded, axes=tuple(range(-dim, 0)))
    return out.astype(np.promote_types(dtype, np.complex64), copy=False)


# taps per axis up to which a transfer function is summed directly, one axis at a time (about taps
# multiply-adds per output value), instead of an FFT of the whole zero-padded image
_DFT_TAPS = 16


def _small_transfer(xp, imp_resp, shape, dim, is_real, dtype):
    """ir2tf of a small response by its DFT axis by axis: along each transformed axis, tap j (rolled to
    j - m // 2) contributes h_j exp(-2 pi i k (j - m // 2) / n) to frequency k; the other axes are
    zero-padded. Sums in the FFT's complex type (ir2tf's result: complex64 for float32, as its FFT)."""
    ctype = np.promote_types(dtype, np.complex64)
    out = imp_resp.astype(ctype)
    last = imp_resp.ndim - 1
    for ax in range(imp_resp.ndim):
        m, n = imp_resp.shape[ax], shape[ax]
        if ax < imp_resp.ndim - dim:
            pad = [(0, 0)] * imp_resp.ndim
            pad[ax] = (0, n - m)
            out = xp.pad(out, pad)
            continue
        k = xp.arange(n // 2 + 1 if is_real and ax == last else n, dtype=np.float64)
        j = xp.arange(m, dtype=np.float64) - m // 2
        basis = xp.exp((-2j * np.pi / n) * (k[:, None] * j[None, :])).astype(ctype)    # (frequencies, taps)
        # tap by tap (a few multiply-adds; a BLAS product would leave its spinning threads on busy cores)
        moved = xp.moveaxis(out, ax, -1)
        acc = moved[..., :1] * basis[:, 0]
        for t in range(1, m):
            acc += moved[..., t:t + 1] * basis[:, t]
        out = xp.moveaxis(acc, -1, ax)
    return xp.ascontiguousarray(out)


def laplacian(ndim, shape, is_real=True, xp=np):
    """The discrete Laplacian's impulse response (3 per axis) and its transfer function on `shape`."""
    impr = np.zeros([3] * ndim)
    centre = (1,) * ndim
    for axis in range(ndim):
        for side in (0, 2):
            at = list(centre)
            at[axis] = side
            impr[tuple(at)] = -1.0
    impr[centre] = 2.0 * ndim
    impr = xp.asarray(impr)
    return ir2tf(impr, shape, is_real=is_real), impr
