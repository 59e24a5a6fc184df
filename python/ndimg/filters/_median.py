"""skimage.filters.median on the ndimg engines."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware
from .._rules import array_argument
from ..ndimage._rank import _rank_filter


@engine_aware("image", "out")
def median(image, footprint=None, out=None, mode="nearest", cval=0.0, behavior="ndimage"):
    """Local median of `image` over `footprint` (default: a 3-pixel box in every dimension), with
    scipy.ndimage.median_filter's boundary modes; same dtype as the input."""
    if behavior == "rank":
        raise NotImplementedError("median(behavior='rank') needs skimage.filters.rank, which ndimg does not "
                                  "provide yet; use behavior='ndimage'")
    image = array_argument(image, "ndim")
    if footprint is None:
        footprint = np.ones((3,) * image.ndim, dtype=bool)
    return _rank_filter(image, 0, None, footprint, out, mode, cval, 0, "median", None)
