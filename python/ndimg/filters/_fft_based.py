"""skimage.filters.butterworth: a Butterworth gain applied to the image's spectrum (FFT of each engine)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._engine import engine_aware, get_num_threads, xp_of
from .._fft import fft_of
from .._rules import supported_float_type


def _over_slabs(xp, n, fn):
    """fn(rows) over slices of range(n): one per CPU engine thread for NumPy (its ufuncs release the GIL),
    the whole range for CuPy."""
    parts = min(get_num_threads(), n) if xp is np else 1
    if parts <= 1:
        return fn(slice(0, n))
    bounds = [n * k // parts for k in range(parts + 1)]
    with ThreadPoolExecutor(parts) as pool:
        for done in [pool.submit(fn, slice(bounds[k], bounds[k + 1])) for k in range(parts)]:
            done.result()


def _butterworth_gain(xp, shape, ratio, order, high_pass, real, dtype, squared):
    """The gain on the FFT grid of `shape` (last axis halved for a real FFT), in `dtype`.

    The squared radius is summed in float64 from sparse per-axis vectors (as the reference does), then
    cast; the gain is 1 / (1 + q^order), times q^order for a high pass, square-rooted unless squared. Slabs of
    the first axis on the CPU engine's threads (the same operations per element)."""
    vectors = []
    for i, n in enumerate(shape):
        k = xp.fft.ifftshift(xp.arange(-(n - 1) // 2, (n - 1) // 2 + 1))  # signed frequencies, FFT order
        k = (k / (n * ratio)) ** 2
        if real and i == len(shape) - 1:
            k = k[: n // 2 + 1]
        vectors.append(k.reshape((-1,) + (1,) * (len(shape) - 1 - i)))
    gain = xp.empty(tuple(v.shape[0] for v in vectors), dtype=dtype)

    def fill(rows):
        q2 = 0
        for i, k in enumerate(vectors):
            q2 = q2 + (k[rows] if i == 0 else k)
        q = q2.astype(dtype) ** order
        g = gain[rows]
        xp.divide(1, 1 + q, out=g)
        if high_pass:
            g *= q
        if not squared:
            xp.sqrt(g, out=g)

    _over_slabs(xp, gain.shape[0] if gain.ndim else 1, fill)
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
    lead = (slice(None),) * spatial[0]  # slabs of the first transformed axis (gain has its size there)

    def multiply(rows):
        spectrum[lead + (rows,)] *= gain[lead + (rows,)]

    _over_slabs(xp, spectrum.shape[spatial[0]], multiply)
    if real:
        out = fft.irfftn(spectrum, s=fft_shape, axes=spatial, overwrite_x=True)
    else:
        out = fft.ifftn(spectrum, axes=spatial, overwrite_x=True)
    if channel is not None and xp is not np:
        out = xp.ascontiguousarray(xp.moveaxis(out, 0, channel))  # scikit-image's layout
    return out[center] if npad > 0 else out
