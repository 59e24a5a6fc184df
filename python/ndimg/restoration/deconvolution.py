"""skimage.restoration's deconvolutions (wiener, unsupervised_wiener, richardson_lucy) over NumPy or CuPy:
spectra through the engine's FFT (ndimg._fft), the iterations over `xp` so CuPy runs them on the GPU."""
from __future__ import annotations

import numpy as np
import scipy.fft

from .._blocks import blockwise
from .._engine import engine_aware, xp_of
from .._fft import fft_of
from .._rules import supported_float_type
from ..ndimage import convolve
from . import uft


def _clip_unit(xp, x):
    """Values above 1 set to 1, below -1 to -1 (NaN kept), as scikit-image's masked assignments do."""
    if x.dtype.kind == "c":   # complex order (real part first), which CuPy's clip does not take
        x[x > 1] = 1
        x[x < -1] = -1
        return x
    return xp.clip(x, -1, 1, out=x)


def _regulariser_and_transfer(xp, image, psf, reg, is_real):
    """(image, transfer function, regulariser spectrum) in the image's float type, as scikit-image builds them:
    the Laplacian by default, impulse responses turned into transfer functions on the image's shape, and
    the real parts of `psf` and `reg` kept."""
    if reg is None:
        reg, _ = uft.laplacian(image.ndim, image.shape, is_real=is_real, xp=xp)
    if reg.dtype.kind != "c":
        reg = uft.ir2tf(reg, image.shape, is_real=is_real)
    float_type = supported_float_type(image.dtype)
    image = image.astype(float_type, copy=False)
    psf = psf.real.astype(float_type, copy=False)
    reg = reg.real.astype(float_type, copy=False)
    trans = uft.ir2tf(psf, image.shape, is_real=is_real) if psf.shape != reg.shape else psf
    return image, trans, reg, float_type


@engine_aware("image", "psf", "reg")
def wiener(image, psf, balance, reg=None, is_real=True, clip=True):
    """Wiener-Hunt deconvolution with a fixed regularisation weight `balance` (skimage 0.26)."""
    xp = xp_of(image, psf)
    image, trans, reg, _ = _regulariser_and_transfer(xp, image, psf, reg, is_real)
    spectrum = uft.urfftn(image) if is_real else uft.ufftn(image)

    def apply(t, r, s):   # the filter conj(H) / (|H|^2 + balance |reg|^2) times the image's spectrum
        s *= xp.conj(t) / (xp.abs(t) ** 2 + balance * xp.abs(r) ** 2)

    if xp is np and trans.shape == reg.shape == spectrum.shape and spectrum.dtype == np.result_type(trans, spectrum):
        blockwise(apply, np.ascontiguousarray(trans), np.ascontiguousarray(reg), spectrum)
    else:
        spectrum = xp.conj(trans) / (xp.abs(trans) ** 2 + balance * xp.abs(reg) ** 2) * spectrum
    deconv = uft.uirfftn(spectrum, shape=image.shape) if is_real else uft.uifftn(spectrum)
    return _clip_unit(xp, deconv) if clip else deconv


def _host_scalars(q):
    """A reduction's value on the host: a float for a 0-d result, a NumPy array otherwise (the random
    generator runs on the host: the same stream as scikit-image's on either engine)."""
    q = q.get() if hasattr(q, "get") else np.asarray(q)
    return float(q) if q.ndim == 0 else q


@engine_aware("image", "psf", "reg")
def unsupervised_wiener(image, psf, reg=None, user_params=None, is_real=True, clip=True, *, rng=None):
    """Wiener-Hunt deconvolution with the noise and prior weights estimated by a Gibbs sampler (skimage
    0.26). The samples are drawn by NumPy's generator on the host, in scikit-image's order, so that a seed
    gives scikit-image's chain on either engine."""
    xp = xp_of(image, psf)
    params = {"threshold": 1e-4, "max_num_iter": 200, "min_num_iter": 30, "burnin": 15, "callback": None}
    params.update(user_params or {})
    image, trans, reg, float_type = _regulariser_and_transfer(xp, image, psf, reg, is_real)
    x_postmean = xp.zeros(trans.shape, dtype=float_type)
    prev_x_postmean = xp.zeros(trans.shape, dtype=float_type)
    delta = np.nan
    gn_chain, gx_chain = [1], [1]
    areg2 = xp.abs(reg) ** 2
    atf2 = xp.abs(trans) ** 2
    data_spectrum = uft.urfftn(image, 2) if is_real else uft.ufftn(image, 2)
    conj_trans = xp.conj(trans)
    rng = np.random.default_rng(rng)
    burnin = params["burnin"]
    for iteration in range(params["max_num_iter"]):
        gn, gx = gn_chain[-1], gx_chain[-1]
        if not np.isscalar(gn):
            gn, gx = xp.asarray(gn), xp.asarray(gx)
        rand1 = xp.asarray(rng.standard_normal(data_spectrum.shape).astype(float_type, copy=False))
        rand2 = xp.asarray(rng.standard_normal(data_spectrum.shape).astype(float_type, copy=False))
        precision = gn * atf2 + gx * areg2
        excursion = xp.sqrt(0.5 / precision) * (rand1 + 1j * rand2)
        x_sample = gn * conj_trans / precision * data_spectrum + excursion
        noise_norm = _host_scalars(uft.image_quad_norm(data_spectrum - x_sample * trans))
        prior_norm = _host_scalars(uft.image_quad_norm(x_sample * reg))
        if params["callback"]:
            params["callback"](x_sample)
        gn_chain.append(rng.gamma(image.size / 2, 2 / noise_norm))
        gx_chain.append(rng.gamma((image.size - 1) / 2, 2 / prior_norm))
        if iteration > burnin:
            x_postmean = prev_x_postmean + x_sample
        if iteration > burnin + 1:
            current = x_postmean / (iteration - burnin)
            previous = prev_x_postmean / (iteration - burnin - 1)
            delta = xp.sum(xp.abs(current - previous)) / xp.sum(xp.abs(x_postmean)) / (iteration - burnin)
        prev_x_postmean = x_postmean
        if iteration > params["min_num_iter"] and delta < params["threshold"]:
            break
    x_postmean = x_postmean / (iteration - burnin)
    if is_real:
        x_postmean = uft.uirfftn(x_postmean, 2, shape=image.shape)
    else:
        x_postmean = uft.uifftn(x_postmean, 2)
    if clip:
        x_postmean = _clip_unit(xp, x_postmean)
    return x_postmean, {"noise": gn_chain, "prior": gx_chain}


# psf taps up to which a direct convolution beats the FFT's (measured on 2 cores: 5x5 on 4K 10x faster,
# 5x5x5 on 192^3 even), as scipy's convolve also picks a direct sum for small kernels
_DIRECT_TAPS = 100


def _same_convolver(xp, psf, shape):
    """conv(x) = scipy.signal.convolve(x, psf, mode='same') for x of `shape`: a small psf summed directly
    (ndimg.ndimage.convolve with zeros outside; scipy's 'same' centre is one tap earlier along even axes),
    else by FFT: both zero-padded to a fast length of the full convolution, the psf's spectrum computed
    once, the centre kept."""
    if psf.size <= _DIRECT_TAPS:
        origin = [-1 if k % 2 == 0 else 0 for k in psf.shape]
        return lambda x: convolve(x, psf, mode="constant", cval=0.0, origin=origin)
    fft = fft_of(xp)
    full = [s + k - 1 for s, k in zip(shape, psf.shape)]
    fshape = [scipy.fft.next_fast_len(n, True) for n in full]
    axes = tuple(range(len(shape)))
    spectrum = fft.rfftn(psf, fshape, axes=axes)
    centre = tuple(slice((k - 1) // 2, (k - 1) // 2 + s) for s, k in zip(shape, psf.shape))

    def conv(x):
        f = fft.rfftn(x, fshape, axes=axes, overwrite_x=False)
        f *= spectrum
        return fft.irfftn(f, fshape, axes=axes, overwrite_x=True)[centre]

    return conv


@engine_aware("image", "psf")
def richardson_lucy(image, psf, num_iter=50, clip=True, filter_epsilon=None):
    """Richardson-Lucy deconvolution (skimage 0.26): `num_iter` multiplicative updates, convolutions by FFT."""
    xp = xp_of(image, psf)
    float_type = supported_float_type(image.dtype)
    image = image.astype(float_type, copy=False)
    psf = psf.astype(float_type, copy=False)
    if image.ndim != psf.ndim:
        raise ValueError("volume and kernel should have the same dimensionality")
    im_deconv = xp.full(image.shape, 0.5, dtype=float_type)
    if image.size == 0:
        return im_deconv
    if psf.size == 0:   # scipy's convolve gives an empty 1-d array, which the update cannot broadcast
        raise ValueError(f"operands could not be broadcast together with shapes {image.shape} (0,)")
    if image.ndim == 0:   # scipy's convolve of 0-d arrays: their product
        for _ in range(num_iter):
            conv = im_deconv * psf + 1e-12
            blur = xp.where(conv < filter_epsilon, 0, image / conv) if filter_epsilon else image / conv
            im_deconv *= blur * psf
        return _clip_unit(xp, im_deconv) if clip else im_deconv
    forward = _same_convolver(xp, psf, image.shape)
    backward = _same_convolver(xp, xp.flip(psf), image.shape)
    eps = float_type.type(1e-12)
    image = xp.ascontiguousarray(image)
    for _ in range(num_iter):
        conv = xp.ascontiguousarray(forward(im_deconv))
        if xp is np:
            blur = np.empty_like(conv)
            blockwise(lambda c, i, b: _relative_blur(np, c, i, b, eps, filter_epsilon), conv, image, blur)
        else:
            blur = xp.empty_like(conv)
            _relative_blur(xp, conv, image, blur, eps, filter_epsilon)
        im_deconv *= backward(blur)
    return _clip_unit(xp, im_deconv) if clip else im_deconv


def _relative_blur(xp, conv, image, out, eps, filter_epsilon):
    """out = image / (conv + eps), 0 where conv + eps < filter_epsilon (when filter_epsilon is set)."""
    conv = conv + eps
    xp.divide(image, conv, out=out)
    if filter_epsilon:
        out[conv < filter_epsilon] = 0
