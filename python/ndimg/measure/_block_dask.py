"""block_reduce of a Dask array: the image rechunked so that every chunk but the last along an axis holds
whole blocks, then the in-memory function on each chunk (the last pads its end with cval, as the whole
image's end is padded): the same blocks as the whole image's, reduced alike."""
from __future__ import annotations

import numpy as np

from . import _block as b


def _aligned(chunks, n, size):
    """Chunks of an axis of n elements whose inner edges fall on multiples of `size`."""
    edges = sorted({min(n, -(-e // size) * size) for e in np.cumsum(chunks).tolist()})
    return tuple(int(e - s) for s, e in zip([0] + edges[:-1], edges) if e > s) or (n,)


def block_reduce(image, block_size=2, func=np.sum, cval=0, func_kwargs=None):
    # the in-memory function on a small image: its argument errors, and the result's dtype and array type
    sample = b.block_reduce(np.zeros((1,) * image.ndim, image.dtype), block_size, func, cval, func_kwargs)
    sizes = (block_size,) * image.ndim if np.isscalar(block_size) else tuple(block_size)
    sizes = tuple(int(s) for s in sizes)
    chunks = tuple(_aligned(c, n, s) for c, n, s in zip(image.chunks, image.shape, sizes))
    out_chunks = tuple(tuple(-(-c // s) for c in cs) for cs, s in zip(chunks, sizes))
    import dask.array as da

    meta = da.utils.meta_from_array(image._meta, ndim=image.ndim, dtype=np.asarray(sample).dtype)
    return image.rechunk(chunks).map_blocks(b.block_reduce, sizes, func, cval, func_kwargs, chunks=out_chunks,
                                            dtype=meta.dtype, meta=meta)
