"""skimage.filters.butterworth: a Butterworth gain applied to the image's spectrum (FFT of each engine)."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._fft import fft_of
from .._rules import supported_float_type


def _butterworth_gain(xp, shape, ratio, order, high_pass, real, dtype, squared):
    """The gain on the FFT grid of `shape` (last axis halved for a real FFT), in `dtype`.

    The squared radius is summed in float64 from sparse per-axis vectors (as the reference does), then
    cast; the gain is 1 / (1 + q^order), times q^order for a high pass, square-rooted unless squared."""
    q2 = 0
    for i, n in enumerate(shape):
        k = xp.fft.ifftshift(xp.arange(-(n - 1) // 2, (n - 1) // 2 + 1))  # signed frequencies, FFT order
        k = (k / (n * ratio)) ** 2
        if real and i == len(shape) - 1:
            k = k[: n // 2 + 1]
        q2 = q2 + k.reshape((-1,) + (1,) * (len(shape) - 1 - i))
    q = q2.astype(dtype) ** order
    gain = 1 / (1 + q)
    if high_pass:
        gain *= q
    if not squared:
        xp.sqrt(gain, out=gain)
    return gain


@engine_aware("image")
def butterworth(image, cutoff_frequency_ratio=0.005, high_pass=True, order=2.0, channel_axis=None, *,
                squared_butterworth=True, npad=0):
    """Butterworth high- or low-pass filter of an n-D image in the Fourier domain (skimage 0.26)."""
    xp = xp_of(image)
    if npad < 0:
        raise ValueError("npad must be >= 0")
    if npad > 0:
        center = tuple(slice(npad, n + npad) for n in image.shape)
        image = xp.pad(image, npad, mode="edge")
    spatial = tuple(int(a) for a in np.delete(np.arange(image.ndim), channel_axis)) \
        if channel_axis is not None else tuple(range(image.ndim))
    fft_shape = tuple(image.shape[a] for a in spatial)
    if not 0 <= cutoff_frequency_ratio <= 0.5:
        raise ValueError("cutoff_frequency_ratio should be in the range [0, 0.5]")
    if image.size == 0:
        raise ValueError(f"invalid number of data points ({list(image.shape)}) specified")
    float_dtype = supported_float_type(image.dtype, allow_complex=True)
    real = float_dtype.kind != "c"
    gain = _butterworth_gain(xp, fft_shape, cutoff_frequency_ratio, order, high_pass, real,
                             np.finfo(float_dtype).dtype, squared_butterworth)
    fft = fft_of(xp)
    channel = None if channel_axis is None else channel_axis % image.ndim
    if channel is not None and xp is not np:
        # cuFFT transforms trailing contiguous axes as one batched plan, where a channel axis among them
        # makes every transform strided: the channels go first, converted in the same copy
        image = xp.moveaxis(image, channel, 0).astype(float_dtype, order="C")
        spatial = tuple(range(1, image.ndim))
        gain = gain[None]
    else:
        if channel is not None:
            gain = xp.expand_dims(gain, channel)
        image = image.astype(float_dtype, copy=False)
    spectrum = fft.rfftn(image, axes=spatial) if real else fft.fftn(image, axes=spatial)
    spectrum *= gain
    if real:
        out = fft.irfftn(spectrum, s=fft_shape, axes=spatial, overwrite_x=True)
    else:
        out = fft.ifftn(spectrum, axes=spatial, overwrite_x=True)
    if channel is not None and xp is not np:
        out = xp.ascontiguousarray(xp.moveaxis(out, 0, channel))  # scikit-image's layout
    return out[center] if npad > 0 else out
