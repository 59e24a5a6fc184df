"""Dask arrays for the colour functions whose result has another channel count than their input (rgb2gray,
gray2rgb(a), rgba2rgb, the deltaE differences): each is per pixel, so each chunk (whole along the channel
axis) runs through the in-memory function, the channel axis dropped, added or resized. The registry's
dask= entries name these; the same-shape conversions take the generic pointwise path instead.
"""
from __future__ import annotations

import functools

import dask.array as da
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._dask import _sample_like
from . import _colorconv, _delta_e


def _sample(fn, arrays, axis, kwargs):
    """fn on zero chunks of at most 2 pixels per axis (whole along `axis`): its errors now, its dtype and
    array type for the lazy result."""
    return fn(*(_sample_like(a, tuple(s if i == axis else min(s, 2) for i, s in enumerate(a.shape)))
                for a in arrays), **kwargs)


def _per_chunk(fn, arrays, axis, out_channels, kwargs):
    """fn(*chunks, **kwargs) over chunks whole along `axis` (None: the input has no channel axis, one of
    out_channels is added at kwargs' channel_axis); out_channels None drops the axis."""
    sample = _sample(fn, arrays, axis, kwargs)
    ndim = arrays[0].ndim
    if axis is not None:
        arrays = [a.rechunk({axis: -1}) for a in arrays]
    chunks = list(arrays[0].chunks)
    extra = {}
    if axis is None:
        at = kwargs.get("channel_axis", -1) % (ndim + 1)
        chunks.insert(at, (out_channels,))
        extra["new_axis"] = at
    elif out_channels is None:
        del chunks[axis]
        extra["drop_axis"] = axis
    else:
        chunks[axis] = (out_channels,)
    return da.map_blocks(functools.partial(fn, **kwargs), *arrays, chunks=tuple(chunks), dtype=sample.dtype,
                         meta=sample[(slice(0, 0),) * sample.ndim], **extra)


def _axis(x, channel_axis):
    """skimage's channel_as_last_axis over a Dask array: the channel axis as a non-negative int."""
    if channel_axis is None:
        return x.ndim - 1
    axes = (channel_axis,) if np.isscalar(channel_axis) else tuple(channel_axis)
    if len(axes) > 1:
        raise ValueError("only a single channel axis is currently supported")
    return normalize_axis_index(axes[0], x.ndim)


def rgb2gray(rgb, *, channel_axis=-1):
    ax = _axis(rgb, channel_axis)
    return _per_chunk(_colorconv.rgb2gray, [rgb], ax, None, dict(channel_axis=channel_axis))


def rgba2rgb(rgba, background=(1, 1, 1), *, channel_axis=-1):
    _colorconv._validate_channel_axis(channel_axis, rgba.ndim)
    return _per_chunk(_colorconv.rgba2rgb, [rgba], channel_axis % rgba.ndim, 3,
                      dict(background=background, channel_axis=channel_axis))


def gray2rgb(image, *, channel_axis=-1):
    return _per_chunk(_colorconv.gray2rgb, [image], None, 3, dict(channel_axis=channel_axis))


def gray2rgba(image, alpha=None, *, channel_axis=-1):
    if alpha is not None and np.ndim(alpha):
        alpha = da.broadcast_to(da.asarray(alpha), image.shape).rechunk(image.chunks)
        return _per_chunk(lambda im, al, **kw: _colorconv.gray2rgba(im, al, **kw), [image, alpha], None, 4,
                          dict(channel_axis=channel_axis))
    return _per_chunk(_colorconv.gray2rgba, [image], None, 4, dict(alpha=alpha, channel_axis=channel_axis))


def _difference(fn, lab1, lab2, channel_axis, kwargs):
    """An image against another of its shape, or against one that broadcasts to it (one colour): that one
    broadcast lazily and chunked like the image."""
    axis = channel_axis % lab1.ndim
    # the in-memory function's errors for these shapes (ciede2000 refuses one colour), before broadcasting
    fn(*(_sample_like(a, tuple(s if i == axis or a.ndim != lab1.ndim else min(s, 2) for i, s in enumerate(a.shape)))
         for a in (lab1, lab2)), channel_axis=channel_axis, **kwargs)
    lab1, lab2 = (a if isinstance(a, da.Array) else da.asarray(a) for a in (lab1, lab2))
    if lab1.shape != lab2.shape:
        big, small = (lab1, lab2) if lab1.size >= lab2.size else (lab2, lab1)
        try:
            small = da.broadcast_to(small, big.shape).rechunk(big.chunks)
        except ValueError:
            raise NotImplementedError(f"ndimg.color.{fn.__name__}: Dask arrays are taken as images of one shape, "
                                      "or an image and colours that broadcast to its shape") from None
        lab1, lab2 = (big, small) if big is lab1 else (small, big)
    return _per_chunk(fn, [lab1, lab2], axis, None, dict(kwargs, channel_axis=channel_axis))


def deltaE_cie76(lab1, lab2, channel_axis=-1):
    return _difference(_delta_e.deltaE_cie76, lab1, lab2, channel_axis, {})


def deltaE_ciede94(lab1, lab2, kH=1, kC=1, kL=1, k1=0.045, k2=0.015, *, channel_axis=-1):
    return _difference(_delta_e.deltaE_ciede94, lab1, lab2, channel_axis, dict(kH=kH, kC=kC, kL=kL, k1=k1, k2=k2))


def deltaE_ciede2000(lab1, lab2, kL=1, kC=1, kH=1, *, channel_axis=-1):
    return _difference(_delta_e.deltaE_ciede2000, lab1, lab2, channel_axis, dict(kL=kL, kC=kC, kH=kH))


def deltaE_cmc(lab1, lab2, kL=1, kC=1, *, channel_axis=-1):
    return _difference(_delta_e.deltaE_cmc, lab1, lab2, channel_axis, dict(kL=kL, kC=kC))
