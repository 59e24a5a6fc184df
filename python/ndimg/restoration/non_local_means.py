"""skimage.restoration's non-local means (skimage/restoration/non_local_means.py) on ndimg's patch
primitives, on both engines: the fast form (Darbon et al.'s integral-image distances, float64) for 2-D to
4-D images with or without channels, the exact form (per-patch Gaussian-weighted distances, in the image's
float type) for 2-D images with channels and 3-D grayscale ones."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import convert_to_float
from ..transform._warps import _channel_last


def _patch_weights(s, nchannels, h, dtype, ndim):
    """The exact form's Gaussian patch weights (sigma (s - 1) / 4), normalised by channels * sum * h^2,
    evaluated in the image's float type as scikit-image evaluates them."""
    offset = s // 2
    a = (s - 1.0) / 4.0
    if dtype == np.float32:
        a = float(np.float32(a))   # scikit-image holds it in the image's float type
    grid = np.meshgrid(*([np.arange(-offset, offset + 1, dtype=dtype)] * ndim), indexing="ij")
    w = np.exp(-sum(g * g for g in grid) / (2 * a * a))
    w *= 1.0 / (nchannels * np.sum(w) * h * h)
    return np.ascontiguousarray(w)


@engine_aware("image")
@_channel_last
def denoise_nl_means(image, patch_size=7, patch_distance=11, h=0.1, fast_mode=True, sigma=0.0, *,
                     preserve_range=False, channel_axis=None):
    """Non-local means denoising (skimage.restoration.denoise_nl_means): each pixel the mean of the pixels
    within `patch_distance` weighted by the similarity of their `patch_size` patches (cut-off `h`, noise
    `sigma` subtracted)."""
    xp = xp_of(image)
    multichannel = channel_axis is not None
    if not multichannel:
        image = image[..., np.newaxis]
    nd = image.ndim - 1
    if nd < 2 or nd > 4:
        raise NotImplementedError("Non-local means denoising is only implemented for 2D, 3D or 4D grayscale or "
                                  "multichannel images.")
    image = xp.ascontiguousarray(convert_to_float(image, preserve_range))
    if nd == 3 and multichannel and not fast_mode:
        raise NotImplementedError("Multichannel 3D requires fast_mode to be True.")
    if nd == 4 and not fast_mode:
        raise NotImplementedError("4D requires fast_mode to be True.")
    s = int(patch_size)
    s += 1 - s % 2   # an odd patch, symmetric about its centre
    d = int(patch_distance)
    var = float(sigma) * float(sigma)
    if fast_mode:
        pad = s // 2 + d + 1
        padded = xp.ascontiguousarray(xp.pad(image, [(pad, pad)] * nd + [(0, 0)], mode="reflect"), dtype=np.float64)
        out = xp.empty(image.shape, dtype=np.float64)
        _core.nl_means_fast(padded, s, d, float(h), var, out, stream=stream_ptr(out))
        return xp.squeeze(out.astype(image.dtype, copy=False))
    offset = s // 2
    padded = xp.ascontiguousarray(xp.pad(image, [(offset, offset)] * nd + [(0, 0)], mode="reflect"))
    # the 3-D exact form has no channel axis (and no channel count in its weights)
    w = xp.asarray(_patch_weights(s, image.shape[-1], h, image.dtype, nd))
    out = xp.empty_like(image)
    _core.nl_means(padded, w, d, var, out, stream=stream_ptr(out))
    return xp.squeeze(out) if nd == 2 else out[..., 0]
