"""skimage.filters.unsharp_mask on the ndimg engines."""
from __future__ import annotations

from collections.abc import Iterable

from .._engine import engine_aware, xp_of
from .._rules import array_argument, channel_axis_index, img_as_float, supported_float_type
from ._gaussian import gaussian


@engine_aware("image")
def unsharp_mask(image, radius=1.0, amount=1.0, preserve_range=False, *, channel_axis=None):
    """Sharpen as image + amount * (image - gaussian(image, radius)) (skimage.filters.unsharp_mask)."""
    image = array_argument(image)
    if image.ndim == 0:  # scikit-image's Gaussian cannot write a 0-d result
        raise TypeError("return arrays must be of ArrayType")
    xp = xp_of(image)
    float_dtype = supported_float_type(image.dtype)
    vrange = None  # results are clipped to the valid range of img_as_float's output
    if preserve_range:
        fimg = image.astype(float_dtype, copy=False)
    else:
        fimg = img_as_float(image).astype(float_dtype, copy=False)
        vrange = (-1.0, 1.0) if bool(xp.any(fimg < 0)) else (0.0, 1.0)
    if channel_axis is not None:
        # scikit-image blurs each channel as an (ndim - 1)-D image
        if isinstance(radius, Iterable) and len(list(radius)) != image.ndim - 1:
            raise RuntimeError("sequence argument must have length equal to input rank")
        channel_axis = channel_axis_index(channel_axis, image.ndim)
    blurred = gaussian.__wrapped_impl__(fimg, sigma=radius, mode="reflect", channel_axis=channel_axis)
    # image + (image - blurred) * amount, rounded exactly like that, computed in place as
    # image - ((blurred - image) * amount)
    blurred -= fimg
    blurred *= amount
    xp.subtract(fimg, blurred, out=blurred)
    if vrange is not None:
        xp.clip(blurred, vrange[0], vrange[1], out=blurred)
    return blurred
