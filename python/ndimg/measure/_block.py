"""block_reduce (skimage.measure.block): a reduction over non-overlapping blocks, on NumPy or CuPy."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of


@engine_aware("image")
def block_reduce(image, block_size=2, func=np.sum, cval=0, func_kwargs=None):
    """`func` over each block of `block_size` (a scalar or one size per axis), the image padded at its end
    with `cval` to whole blocks; ``func(blocks, axis=<the block axes>, **func_kwargs)`` as in scikit-image."""
    if np.isscalar(block_size):
        block_size = (block_size,) * image.ndim
    elif len(block_size) != image.ndim:
        raise ValueError("`block_size` must be a scalar or have the same length as `image.shape`")
    if func_kwargs is None:
        func_kwargs = {}
    pad_width = []
    for size, b in zip(image.shape, block_size):
        if b < 1:
            raise ValueError("Down-sampling factors must be >= 1. Use `skimage.transform.resize` to up-sample an "
                             "image.")
        pad_width.append((0, b - size % b if size % b else 0))
    xp = xp_of(image)
    if np.any(np.asarray(pad_width)):
        image = xp.pad(image, pad_width=pad_width, mode="constant", constant_values=cval)
    if not all(float(b) == int(b) for b in block_size):
        raise TypeError("`block_size` must hold integers")
    block_size = tuple(int(b) for b in block_size)
    # scikit-image's view_as_blocks: a C-contiguous image seen as (blocks..., block shape...), the same strides
    image = xp.asarray(image, order="C")
    nd = image.ndim
    split = image.reshape(tuple(x for s, b in zip(image.shape, block_size) for x in (s // b, b)))
    blocked = split.transpose(tuple(range(0, 2 * nd, 2)) + tuple(range(1, 2 * nd, 2)))
    return func(blocked, axis=tuple(range(nd, 2 * nd)), **func_kwargs)
