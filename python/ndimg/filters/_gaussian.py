"""skimage.filters.gaussian and difference_of_gaussians on the ndimg engines."""
from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import array_argument, as_image, convert_to_float, img_as_float, supported_float_type
from ..ndimage._separable import gaussian_passes, run_passes


def _with_channel_sigma(sigma, ndim, channel_axis):
    """skimage's rule: a scalar or an (ndim - 1)-sequence sigma gets 0 inserted at the channel axis."""
    if channel_axis is None:
        return sigma
    if not isinstance(sigma, Iterable):
        sigma = [sigma] * (ndim - 1)
    if len(sigma) == ndim - 1:
        sigma = list(sigma)
        sigma.insert(channel_axis % ndim, 0)
    return sigma


@engine_aware("image", "out")
def gaussian(image, sigma=1.0, *, mode="nearest", cval=0, preserve_range=False, truncate=4.0, channel_axis=None,
             out=None):
    """Gaussian blur with scikit-image's dtype rules, `channel_axis` and `out` (skimage.filters.gaussian)."""
    image = array_argument(image)
    # a plain number is checked without building an array (that was a third of a small call's time)
    if (sigma < 0.0) if isinstance(sigma, numbers.Real) else np.any(np.asarray(sigma) < 0.0):
        raise ValueError("Sigma values less than zero are not valid")
    sigma = _with_channel_sigma(sigma, image.ndim, channel_axis)
    scale = None
    if not preserve_range and image.dtype.kind in "bu":
        # img_as_float of unsigned data is x / max: folded into the first pass's weights instead of
        # writing a float64 copy of the image (the result is float64, as scikit-image's)
        scale = 1.0 if image.dtype.kind == "b" else float(np.iinfo(image.dtype).max)
    else:
        image = convert_to_float(image, preserve_range)
        image = image.astype(supported_float_type(image.dtype), copy=False)
    if out is not None and out.dtype.kind != "f":
        raise ValueError(f"dtype of `out` must be float; got {out.dtype!r}.")
    xp = xp_of(image)
    if out is None:
        out = xp.empty(image.shape, np.float64 if scale is not None else image.dtype)
    elif out.shape != image.shape:
        raise RuntimeError("output shape not correct")
    passes = gaussian_passes(image.ndim, sigma, 0, mode, cval, truncate, None, None)
    if scale is not None:
        if not passes:
            out[...] = image
            out *= 1.0 / scale
            return out
        first = passes[0]
        first.weights = tuple(w / scale for w in first.weights)
        first.cval *= scale
    # out's dtype must be the one the passes compute in anyway (float64 for unsigned and bool images, else
    # the image's), so that the copy changes no value
    if xp is not np and passes and _few_channels_last(image, channel_axis) and \
            (out.dtype == image.dtype or (image.dtype.kind in "bu" and out.dtype == np.float64)):
        return _channel_first(image, out, passes, xp)
    return run_passes(image, out, passes)


def _few_channels_last(image, channel_axis):
    """Whether the channels are the last axis and few: a pass along another axis then sees lines only
    `channels` wide, which the CUDA schedules (correlate1d_cuda.cu) tile badly (one thread per output), so
    the CUDA engine filters a channel-first copy."""
    ndim = image.ndim
    return channel_axis is not None and ndim > 1 and channel_axis % ndim == ndim - 1 and image.shape[-1] < 16


def _channel_first(image, out, passes, xp):
    """The passes on a C-contiguous channel-first copy (converted in the same sweep), then back into out."""
    work = xp.moveaxis(image, -1, 0).astype(out.dtype, order="C")
    for p in passes:
        p.axis = (p.axis + 1) % image.ndim
    res = run_passes(work, xp.empty(work.shape, out.dtype), passes, fresh=True)
    out[...] = xp.moveaxis(res, 0, -1)
    return out


@engine_aware("image")
def difference_of_gaussians(image, low_sigma, high_sigma=None, *, mode="nearest", cval=0, channel_axis=None,
                            truncate=4.0):
    """Band-pass: the image blurred with `low_sigma` minus it blurred with `high_sigma`
    (skimage.filters.difference_of_gaussians)."""
    image = as_image(image)
    if image.dtype.kind not in "bu":
        # unsigned and bool images go to gaussian as they are: it folds img_as_float's 1 / max into its
        # first pass (a float64 result, as here), instead of a float64 copy that both blurs read
        image = img_as_float(image)
    low_sigma = np.array(low_sigma, dtype="float", ndmin=1)
    high_sigma = low_sigma * 1.6 if high_sigma is None else np.array(high_sigma, dtype="float", ndmin=1)
    spatial = image.ndim - 1 if channel_axis is not None else image.ndim
    for name, s in (("low_sigma", low_sigma), ("high_sigma", high_sigma)):
        if len(s) != 1 and len(s) != spatial:
            raise ValueError(f"{name} must have length equal to number of spatial dimensions of input")
    low_sigma = low_sigma * np.ones(spatial)
    high_sigma = high_sigma * np.ones(spatial)
    if any(high_sigma < low_sigma):
        raise ValueError("high_sigma must be equal to or larger than low_sigma for all axes")
    kw = dict(mode=mode, cval=cval, truncate=truncate)
    xp = xp_of(image)
    if xp is not np and isinstance(mode, str) and _few_channels_last(image, channel_axis):
        return _dog_channel_first(image, low_sigma, high_sigma, kw, xp)
    kw["channel_axis"] = channel_axis
    low = gaussian.__wrapped_impl__(image, sigma=low_sigma, **kw)
    low -= gaussian.__wrapped_impl__(image, sigma=high_sigma, **kw)
    return low[()] if low.ndim == 0 and isinstance(low, np.ndarray) else low  # NumPy's 0-d difference: a scalar


def _dog_channel_first(image, low_sigma, high_sigma, kw, xp):
    """difference_of_gaussians with few channels last (_few_channels_last): both blurs of one channel-first
    copy, their difference written in the image's layout; the same passes, so the same values."""
    first = xp.ascontiguousarray(xp.moveaxis(image, -1, 0))
    low = gaussian.__wrapped_impl__(first, sigma=low_sigma, channel_axis=0, **kw)
    high = gaussian.__wrapped_impl__(first, sigma=high_sigma, channel_axis=0, **kw)
    out = xp.empty(image.shape, low.dtype)
    xp.subtract(xp.moveaxis(low, 0, -1), xp.moveaxis(high, 0, -1), out=out)
    return out
