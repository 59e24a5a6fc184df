"""skimage.transform's image pyramids (0.26): pyramid_reduce, pyramid_expand, pyramid_gaussian and
pyramid_laplacian, composed of ndimg.filters.gaussian and ndimg's resize (no anti-aliasing: the Gaussian
is the pyramid's own)."""
from __future__ import annotations

import math

from .._engine import engine_aware
from ._warps import _convert
from ..filters import gaussian
from ._warps import resize


def _smooth(image, sigma, mode, cval, channel_axis):
    """The Gaussian of a pyramid level (not across channels), in the image's float type (scikit-image writes
    it into an array like the image: the same dtype ndimg's gaussian gives a float image)."""
    if channel_axis is not None:
        channel_axis = channel_axis % image.ndim
        sigma = (sigma,) * (image.ndim - 1)
    return gaussian(image, sigma=sigma, mode=mode, cval=cval, channel_axis=channel_axis)


def _check_factor(factor):
    if factor <= 1:
        raise ValueError("scale factor must be greater than 1")


def _level_shape(shape, size, channel_axis):
    """A level's shape: size(d) along every axis but the channels."""
    if channel_axis is not None:
        channel_axis = channel_axis % len(shape)
    return tuple(d if ax == channel_axis else size(d) for ax, d in enumerate(shape))


@engine_aware("image")
def pyramid_reduce(image, downscale=2, sigma=None, order=1, mode="reflect", cval=0, preserve_range=False, *,
                   channel_axis=None):
    """Smooth, then shrink by `downscale` (skimage.transform.pyramid_reduce): ceil(shape / downscale)."""
    _check_factor(downscale)
    image = _convert(image, preserve_range)
    out_shape = _level_shape(image.shape, lambda d: math.ceil(d / float(downscale)), channel_axis)
    if sigma is None:
        sigma = 2 * downscale / 6.0
    smoothed = _smooth(image, sigma, mode, cval, channel_axis)
    return resize(smoothed, out_shape, order=order, mode=mode, cval=cval, anti_aliasing=False)


@engine_aware("image")
def pyramid_expand(image, upscale=2, sigma=None, order=1, mode="reflect", cval=0, preserve_range=False, *,
                   channel_axis=None):
    """Grow by `upscale`, then smooth (skimage.transform.pyramid_expand): ceil(shape * upscale)."""
    _check_factor(upscale)
    image = _convert(image, preserve_range)
    out_shape = _level_shape(image.shape, lambda d: math.ceil(upscale * d), channel_axis)
    if sigma is None:
        sigma = 2 * upscale / 6.0
    resized = resize(image, out_shape, order=order, mode=mode, cval=cval, anti_aliasing=False)
    return _smooth(resized, sigma, mode, cval, channel_axis)


def pyramid_gaussian(image, max_layer=-1, downscale=2, sigma=None, order=1, mode="reflect", cval=0,
                     preserve_range=False, *, channel_axis=None):
    """Yield the Gaussian pyramid (skimage.transform.pyramid_gaussian): the image, then pyramid_reduce of the
    previous layer, up to `max_layer` layers or until the shape stops changing. Layers are arrays of the
    input's library."""
    _check_factor(downscale)
    image = _convert(image, preserve_range)
    yield image
    layer, current_shape, prev = 0, image.shape, image
    while layer != max_layer:
        layer += 1
        layer_image = pyramid_reduce(prev, downscale, sigma, order, mode, cval, channel_axis=channel_axis)
        prev_shape, prev, current_shape = current_shape, layer_image, layer_image.shape
        if current_shape == prev_shape:
            break
        yield layer_image


def pyramid_laplacian(image, max_layer=-1, downscale=2, sigma=None, order=1, mode="reflect", cval=0,
                      preserve_range=False, *, channel_axis=None):
    """Yield the Laplacian pyramid (skimage.transform.pyramid_laplacian): each layer the difference of a
    level and its Gaussian, levels shrunk by `downscale` from the smoothed previous one."""
    _check_factor(downscale)
    image = _convert(image, preserve_range)
    if sigma is None:
        sigma = 2 * downscale / 6.0
    current_shape = image.shape
    smoothed = _smooth(image, sigma, mode, cval, channel_axis)
    yield image - smoothed
    spatial = list(current_shape)
    if channel_axis is not None:
        spatial.pop(channel_axis % image.ndim)
    if max_layer == -1:
        max_layer = math.ceil(math.log(max(spatial), downscale))
    for _ in range(max_layer):
        out_shape = _level_shape(current_shape, lambda d: math.ceil(d / float(downscale)), channel_axis)
        resized = resize(smoothed, out_shape, order=order, mode=mode, cval=cval, anti_aliasing=False)
        smoothed = _smooth(resized, sigma, mode, cval, channel_axis)
        current_shape = resized.shape
        yield resized - smoothed
