"""blur_effect of a Dask array, lazy: its two sums per axis are sums over the image of local values (a Sobel
response of the image, and of its box blur along the axis), so each chunk gives its part of them from a
block extended by the filters' reach (1 element, plus half the box along the axis); the image's true border
keeps the filters' own reflection. The in-memory formula then runs on the sums (float32 images: float32
sums, added per chunk instead of NumPy's pairwise order, within the registry's tolerance)."""
from __future__ import annotations

import functools
import itertools
import operator
import warnings

import numpy as np

from .._engine import xp_of
from .._rules import img_as_float
from ..color._colorconv import rgb2gray
from ..filters import sobel
from ..filters._thresholding_dask import blocks, delayed, scalar, tree
from ..ndimage import uniform_filter1d
from ..ndimage._measurements_dask import _origins
from . import _blur_effect as b


def _float(chunk, channel_axis):
    """The in-memory conversion (grey from the channels, then float), pointwise."""
    if channel_axis is not None:
        chunk = rgb2gray(xp_of(chunk).moveaxis(chunk, channel_axis, -1))
    return img_as_float(chunk)


def _sums(block, lo, hi, origin, shape, axis, h_size):
    """The chunk's parts of sum(sharp) and sum(max(0, sharp - blur)) over the image's [2, s - 1) box; `block`
    is the chunk at `origin` extended by `lo` elements before it and `hi` after it along each axis."""
    xp = xp_of(block)
    blurred = uniform_filter1d(block, h_size, axis=axis)
    sharp = xp.maximum(b._EPSILON, xp.abs(sobel(block, axis=axis)))
    blur = xp.maximum(b._EPSILON, xp.abs(sobel(blurred, axis=axis)))
    own = []
    for d, o in enumerate(origin):
        end = o + block.shape[d] - lo[d] - hi[d]
        start = lo[d] + max(2, o) - o
        own.append(slice(start, max(start, lo[d] + min(shape[d] - 1, end) - o)))
    sharp, blur = sharp[tuple(own)], blur[tuple(own)]
    return xp.sum(sharp), xp.sum(xp.maximum(0, sharp - blur))


def _add(parts):
    return tuple(functools.reduce(operator.add, p) for p in zip(*parts))


def _axis_sums(image, axis, h_size):
    """The delayed (m1, m2) of one axis."""
    from dask.array.overlap import ensure_minimum_chunksize, overlap

    reach = [1 + (h_size // 2 if d == axis else 0) for d in range(image.ndim)]
    chunks = tuple(c if len(c) == 1 else (n,) if r >= n else ensure_minimum_chunksize(r, c)
                   for c, n, r in zip(image.chunks, image.shape, reach))
    image = image.rechunk(chunks)
    depth = {d: (0 if len(c) == 1 else r) for d, (c, r) in enumerate(zip(chunks, reach))}
    extended = overlap(image, depth=depth, boundary="none", allow_rechunk=False) if any(depth.values()) else image
    parts = []
    locations = itertools.product(*(range(len(c)) for c in chunks))
    for (blk,), origin, loc in zip(blocks(extended), _origins(image), locations):
        lo = tuple(depth[d] if i else 0 for d, i in enumerate(loc))
        hi = tuple(depth[d] if i < len(chunks[d]) - 1 else 0 for d, i in enumerate(loc))
        parts.append(delayed(_sums)(blk, lo, hi, tuple(int(o) for o in origin), image.shape, axis, h_size))
    return tree(parts, _add)


def _finish(gpu, reduce_func, *sums):
    """The in-memory formula on each axis's sums (the GPU engine's in Python floats)."""
    out = [abs(float(m1 - m2)) / float(m1) if gpu else np.abs(m1 - m2) / m1 for m1, m2 in sums]
    return np.asarray(out) if reduce_func is None else np.asarray(reduce_func(out))


def blur_effect(image, h_size=11, channel_axis=None, reduce_func=np.max):
    import dask.array as da

    xp = xp_of(image._meta)
    ndim = image.ndim
    channel = channel_axis % ndim if isinstance(channel_axis, (int, np.integer)) and -ndim <= channel_axis < ndim \
        else None
    small = tuple(s if d == channel else min(s, 8) for d, s in enumerate(image.shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # the in-memory function on a small image: its argument errors, and its result's types
        sample = b.blur_effect(xp.zeros(small, image.dtype), h_size, channel_axis, reduce_func)
    gray_dtype = _float(np.zeros(small, image.dtype), channel).dtype
    if channel is not None:
        image = image.rechunk({channel: -1})
        gray = image.map_blocks(_float, channel, drop_axis=channel, dtype=gray_dtype)
    else:
        gray = image.map_blocks(_float, None, dtype=gray_dtype)
    sums = [_axis_sums(gray, ax, h_size) for ax in range(gray.ndim)]
    value = delayed(functools.partial(_finish, xp is not np, reduce_func))(*sums)
    if reduce_func is None:
        vector = da.from_delayed(value, shape=(gray.ndim,), dtype=np.asarray(sample[0]).dtype)
        return [vector[k] for k in range(gray.ndim)]
    return scalar(value, np.asarray(sample).dtype)
