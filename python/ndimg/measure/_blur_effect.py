"""blur_effect (skimage.measure._blur_effect): the Crete et al. blur metric over ndimg's filters."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import img_as_float
from ..color._colorconv import rgb2gray
from ..filters import sobel
from ..ndimage import uniform_filter1d

_EPSILON = np.spacing(np.float64(1))


@engine_aware("image")
def blur_effect(image, h_size=11, channel_axis=None, reduce_func=np.max):
    """Blur per axis (0 sharp .. 1 blurred): how much a `h_size` box blur along the axis lowers the image's
    Sobel response there; the list of them, or ``reduce_func`` of it (default: the maximum)."""
    xp = xp_of(image)
    if channel_axis is not None:
        try:
            image = xp.moveaxis(image, channel_axis, -1)
        except np.exceptions.AxisError:
            print("channel_axis must be one of the image array dimensions")
            raise
        except TypeError:
            print("channel_axis must be an integer")
            raise
        image = rgb2gray(image)   # scikit-image's own call: the same grey as color.rgb2gray's
    n_axes = image.ndim   # before the conversion, as in scikit-image (a list has none)
    image = img_as_float(image)
    slices = tuple(slice(2, s - 1) for s in image.shape)
    out = []
    for ax in range(n_axes):
        blurred = uniform_filter1d(image, h_size, axis=ax)
        sharp = xp.maximum(_EPSILON, xp.abs(sobel(image, axis=ax)))
        blur = xp.maximum(_EPSILON, xp.abs(sobel(blurred, axis=ax)))
        m1 = xp.sum(sharp[slices])
        m2 = xp.sum(xp.maximum(0, sharp - blur)[slices])
        out.append(abs(float(m1 - m2)) / float(m1) if xp is not np else np.abs(m1 - m2) / m1)
    return out if reduce_func is None else reduce_func(out)
