"""skimage.restoration's J-invariant denoising and self-supervised calibration
(skimage/restoration/j_invariant.py): each grid phase of the image denoised with its pixels replaced by
their neighbours' mean, so that no output pixel sees its own noise."""
from __future__ import annotations

import functools
import itertools

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import img_as_float, supported_float_type
from ..metrics._simple_metrics import mean_squared_error
from ..ndimage._binary import generate_binary_structure
from ..ndimage._correlate import convolve


def _interpolate_image(image, *, multichannel=False):
    """Each pixel replaced by the mean of its face neighbours (mirror boundaries), channel by channel."""
    xp = xp_of(image)
    spatial = image.ndim - 1 if multichannel else image.ndim
    weights = generate_binary_structure(spatial, 1).astype(image.dtype)
    weights.ravel()[weights.size // 2] = 0
    weights /= weights.sum()
    weights = xp.asarray(weights)
    if not multichannel:
        return convolve(image, weights, mode="mirror")
    interp = xp.zeros_like(image)
    for c in range(image.shape[-1]):
        interp[..., c] = convolve(image[..., c], weights, mode="mirror")
    return interp


def _grid_slice(shape, *, offset, stride=3):
    """The pixels of phase `offset` of a grid of `stride` along every axis of `shape`."""
    phases = np.unravel_index(offset, (stride,) * len(shape))
    return tuple(slice(p, None, stride) for p in phases)


@engine_aware("image")
def denoise_invariant(image, denoise_function, *, stride=4, masks=None, denoiser_kwargs=None):
    """J-invariant version of `denoise_function` (skimage.restoration.denoise_invariant)."""
    image = img_as_float(image)
    image = image.astype(supported_float_type(image.dtype), copy=False)
    denoiser_kwargs = {} if denoiser_kwargs is None else denoiser_kwargs
    multichannel = denoiser_kwargs.get("channel_axis", None) is not None
    interp = _interpolate_image(image, multichannel=multichannel)
    output = xp_of(image).zeros_like(image)
    if masks is None:
        spatial = image.ndim - 1 if multichannel else image.ndim
        masks = (_grid_slice(image.shape[:spatial], offset=i, stride=stride) for i in range(stride**spatial))
    for mask in masks:
        masked = image.copy()
        masked[mask] = interp[mask]
        output[mask] = denoise_function(masked, **denoiser_kwargs)[mask]
    return output


def _calibrate_denoiser_search(image, denoise_function, denoise_parameters, *, stride=4, approximate_loss=True):
    """Every combination of `denoise_parameters` and its self-supervised loss."""
    image = img_as_float(image)
    keys = list(denoise_parameters)
    tested = [dict(zip(keys, values)) for values in itertools.product(*denoise_parameters.values())]
    losses = []
    for kwargs in tested:
        multichannel = kwargs.get("channel_axis", None) is not None
        if not approximate_loss:
            denoised = denoise_invariant(image, denoise_function, stride=stride, denoiser_kwargs=kwargs)
            losses.append(mean_squared_error(image, denoised))
        else:
            # one grid phase only (the middle one) stands for all
            spatial = image.ndim - 1 if multichannel else image.ndim
            mask = _grid_slice(image.shape[:spatial], offset=stride**spatial // 2, stride=stride)
            denoised = denoise_invariant(image, denoise_function, masks=[mask], denoiser_kwargs=kwargs)
            losses.append(mean_squared_error(image[mask], denoised[mask]))
    return tested, losses


@engine_aware("image")
def calibrate_denoiser(image, denoise_function, denoise_parameters, *, stride=4, approximate_loss=True,
                       extra_output=False):
    """The J-invariant denoiser with the parameters of least self-supervised loss
    (skimage.restoration.calibrate_denoiser)."""
    tested, losses = _calibrate_denoiser_search(image, denoise_function, denoise_parameters, stride=stride,
                                                approximate_loss=approximate_loss)
    best = tested[int(np.argmin(losses))]
    best_function = functools.partial(denoise_invariant, denoise_function=denoise_function, stride=stride,
                                      denoiser_kwargs=best)
    return (best_function, (tested, losses)) if extra_output else best_function
