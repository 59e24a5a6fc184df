"""Felzenszwalb's graph segmentation (skimage.segmentation.felzenszwalb): the smoothing (ndimg.filters)
and the edge weights as scikit-image computes them, its edge order (NumPy's argsort of the weights, ties
as it leaves them) and the greedy merge in C++ (cpp/src/segmentation/felzenszwalb*), so the labels equal
its labels. Host only (no CUDA engine yet)."""
from __future__ import annotations

import operator
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, host_only
from .._rules import img_as_float
from ._slic import _channel_last


@engine_aware("image")
def felzenszwalb(image, scale=1, sigma=0.8, min_size=20, *, channel_axis=-1):
    """Computes Felsenszwalb's efficient graph based image segmentation (skimage.segmentation.felzenszwalb)."""
    host_only("felzenszwalb", image)
    image, channel_axis = _channel_last(image, channel_axis)
    if channel_axis is None and image.ndim > 2:   # read before any conversion: a list fails here, as there
        raise ValueError("This algorithm works only on single or multi-channel 2d images. ")
    image = np.atleast_3d(np.asarray(image))
    # scikit-image's Cython signature converts these (a float min_size is its TypeError)
    scale = float(scale)
    min_size = operator.index(min_size)
    if image.shape[2] > 3:
        warnings.warn(RuntimeWarning(f"Got image with third dimension of {image.shape[2]}. This image will be "
                                     "interpreted as a multichannel 2d image, which may not be intended."),
                      stacklevel=3)
    image = img_as_float(image).astype(np.float64, copy=False)
    scale = scale / 255.0
    from ..filters import gaussian

    image = gaussian(image, sigma=[sigma, sigma, 0], mode="reflect", channel_axis=-1)
    height, width = image.shape[:2]

    channels = image.shape[2]
    if channels < 8 and height and width:
        # the weights on the CPU engine's threads, summed in channel order as np.sum sums fewer than 8
        image = np.ascontiguousarray(image)
        costs = np.empty(4 * height * width - 3 * (height + width) + 2, dtype=np.float64)
        _core.felzenszwalb_costs(image, costs)
    else:
        def cost(a, b):
            d = a - b
            return np.sqrt(np.sum(d * d, axis=-1))

        costs = np.hstack([cost(image[:, 1:], image[:, :width - 1]).ravel(),
                           cost(image[1:], image[:height - 1]).ravel(),
                           cost(image[1:, 1:], image[:height - 1, :width - 1]).ravel(),
                           cost(image[1:, :width - 1], image[:height - 1, 1:]).ravel()]).astype(float)
    order = np.argsort(costs).astype(np.int64, copy=False)
    labels = np.empty((height, width), dtype=np.int64)
    if labels.size:
        _core.felzenszwalb_merge(costs, order, scale, min_size, labels)
    return labels.astype(np.intp, copy=False)
