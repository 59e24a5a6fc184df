"""Felzenszwalb's graph segmentation (skimage.segmentation.felzenszwalb): the smoothing (ndimg.filters)
and the edge weights as scikit-image computes them, its edge order (NumPy's argsort of the weights, ties
as it leaves them) and the greedy merge in C++ (cpp/src/segmentation/felzenszwalb*), so the labels equal
its labels. On the CUDA engine the smoothing, the weights and a stable sort run on the device; the merge
and the min_size pass (sequential: every test reads what all earlier merges left) and the numbering run on
the host over the sorted edges copied back, and the labels go back to the device."""
from __future__ import annotations

import operator
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import as_image, img_as_float
from ._slic import _channel_last


def _device_order_is_numpys(sorted_costs, scale, pixels):
    """Whether a stable order of these sorted costs gives scikit-image's labels, though NumPy's quicksort
    orders ties its own way (and NaNs anyhow): true where no two costs tie, or only zeros tie while every
    zero-cost edge merges whatever the order (the zero block comes first, where every internal cost is 0,
    so each test is 0 < float32(scale / size): true for every size up to the pixel count exactly when
    scale / pixels is above 2**-150, float32's rounding to 0; the min_size pass then finds both ends of each
    in one component)."""
    later, earlier = sorted_costs[1:], sorted_costs[:-1]
    unsure = ~(later > earlier)   # a tie, or a NaN on either side
    if scale / pixels > 2.0 ** -150:
        unsure &= later != 0
    return not bool(unsure.any())


@engine_aware("image")
def felzenszwalb(image, scale=1, sigma=0.8, min_size=20, *, channel_axis=-1):
    """Computes Felsenszwalb's efficient graph based image segmentation (skimage.segmentation.felzenszwalb)."""
    image, channel_axis = _channel_last(image, channel_axis)
    if channel_axis is None and image.ndim > 2:   # read before any conversion: a list fails here, as there
        raise ValueError("This algorithm works only on single or multi-channel 2d images. ")
    image = as_image(image)
    xp = xp_of(image)
    image = xp.atleast_3d(image)
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
    if 0 < channels < 8 and height and width:
        # the weights on the engine's threads, summed in channel order as np.sum sums fewer than 8
        image = xp.ascontiguousarray(image)
        costs = xp.empty(4 * height * width - 3 * (height + width) + 2, dtype=np.float64)
        _core.felzenszwalb_costs(image, costs, stream=stream_ptr(costs))
    else:   # NumPy's pairwise sum over 8 channels or more (or none), on the host for either engine
        image = image if xp is np else image.get()

        def cost(a, b):
            d = a - b
            return np.sqrt(np.sum(d * d, axis=-1))

        costs = xp.asarray(np.hstack([cost(image[:, 1:], image[:, :width - 1]).ravel(),
                                      cost(image[1:], image[:height - 1]).ravel(),
                                      cost(image[1:, 1:], image[:height - 1, :width - 1]).ravel(),
                                      cost(image[1:, :width - 1], image[:height - 1, 1:]).ravel()]).astype(float))
    order = None
    if xp is not np:
        if costs.size:
            sorted_costs = xp.empty_like(costs)
            device_order = xp.empty(costs.size, dtype=np.int64)
            _core.felzenszwalb_sort(costs, sorted_costs, device_order, stream=stream_ptr(costs))
            if _device_order_is_numpys(sorted_costs, scale, height * width):
                order = device_order.get()
        costs = costs.get()
    if order is None:
        order = np.argsort(costs).astype(np.int64, copy=False)
    labels = np.empty((height, width), dtype=np.int64)
    if labels.size:
        _core.felzenszwalb_merge(costs, order, scale, min_size, labels)
    return xp.asarray(labels.astype(np.intp, copy=False))
