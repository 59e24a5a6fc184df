"""skimage.util.apply_parallel on Dask (as scikit-image), chunked for and computed on the CPU engine's
threads."""
from __future__ import annotations

import math

import numpy as np

from .._engine import get_num_threads


def _chunks(shape, ncpu):
    """scikit-image's default chunking: about ncpu ** (1 / ndim) chunks along each axis until there are
    ncpu chunks, the last of each axis taking the remainder."""
    per_axis = int(math.ceil(ncpu ** (1.0 / len(shape))))
    chunks, used = [], 1
    for n in shape:
        if used < ncpu:
            regular = n // per_axis
            last = regular + n % per_axis
            chunks.append((last,) if regular == 0 else (regular,) * (per_axis - 1) + (last,))
        else:
            chunks.append((n,))
        used *= per_axis
    return tuple(chunks)


_BOUNDARY = {"wrap": "periodic", "symmetric": "reflect", "edge": "nearest", None: "reflect"}


def apply_parallel(function, array, chunks=None, depth=0, mode=None, extra_arguments=(), extra_keywords=None, *,
                   dtype=None, compute=None, channel_axis=None):
    """function(chunk, *extra_arguments, **extra_keywords) over the chunks of `array` with `depth` elements
    of overlap (filled at the array's border by `mode`), through Dask's map_overlap: a Dask array in gives a
    lazy Dask array back (compute=False), anything else the computed NumPy result."""
    try:
        import dask
        import dask.array as da
    except ImportError:
        raise RuntimeError("Could not import 'dask'.  Please install using 'pip install dask'") from None
    extra_keywords = {} if extra_keywords is None else extra_keywords
    if compute is None:
        compute = not isinstance(array, da.Array)
    if channel_axis is not None:
        channel_axis = channel_axis % array.ndim
    threads = get_num_threads()
    if chunks is None:
        shape = array.shape
        if channel_axis is not None:
            chunks = list(_chunks(shape[:channel_axis] + shape[channel_axis + 1:], threads))
            chunks.insert(channel_axis, shape[channel_axis])
            chunks = tuple(chunks)
        else:
            chunks = _chunks(shape, threads)
    elif channel_axis is not None and len(chunks) == array.ndim - 1:
        chunks = list(chunks)
        chunks.insert(channel_axis, array.shape[channel_axis])
        chunks = tuple(chunks)
    boundary = _BOUNDARY.get(mode, mode) if mode is None or isinstance(mode, str) else mode
    if channel_axis is not None:
        depth = [depth] * (array.ndim - 1) if np.isscalar(depth) else list(depth)
        if len(depth) == array.ndim - 1:
            depth.insert(channel_axis, 0)
        depth = tuple(depth)

    def run(block):
        return function(block, *extra_arguments, **extra_keywords)

    darr = array if isinstance(array, da.Array) else da.from_array(array, chunks=chunks)
    result = darr.map_overlap(run, depth, boundary=boundary, dtype=dtype)
    if compute:
        with dask.config.set(scheduler="threads", num_workers=threads):
            result = result.compute()
    return result
