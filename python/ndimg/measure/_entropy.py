"""shannon_entropy (skimage.measure.entropy): the entropy of the image's value counts, on NumPy or CuPy."""
from __future__ import annotations

import math

import numpy as np

from .._engine import engine_aware, xp_of
from ..metrics._common import scalar


@engine_aware("image")
def shannon_entropy(image, base=2):
    """-sum(p log p) / log(base) over the frequencies p of the image's distinct values (scipy.stats.entropy
    of their counts)."""
    xp = xp_of(image)
    image = xp.asarray(image) if xp is not np else np.asarray(image)
    if image.dtype.kind in "biu" and image.dtype.itemsize == 1 and image.size:
        # bytes: one counting pass instead of a sort (NumPy's unique is as fast from 16 bits on); the present
        # values' counts in value order, as unique gives them
        flat = image.reshape(-1)
        counts = xp.bincount(flat.view(np.uint8) ^ np.uint8(0x80) if image.dtype.kind == "i" else flat.view(np.uint8))
        counts = counts[counts > 0]
    else:
        _, counts = xp.unique(image, return_counts=True)
    return entropy_of_counts(counts, base)


def entropy_of_counts(counts, base):
    """The entropy of the counts of an image's distinct values, in value order (NumPy or CuPy)."""
    xp = xp_of(counts)
    p = counts / xp.sum(counts, keepdims=True)
    # scipy.special.entr: -p log p, 0 at p = 0 (no count is 0 here)
    s = xp.sum(-p * xp.log(p))
    if base is not None:
        s = s / math.log(base)
    return scalar(xp.asarray(s, dtype=np.float64) if xp is np else s)
