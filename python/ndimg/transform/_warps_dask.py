"""The warps, resize and pyramids over Dask arrays, lazily and chunk-correct (dask= implementations of the
registry). They are the in-memory functions' own bodies: every step they call takes Dask arrays (ndimg.ndimage's
zoom, affine_transform and map_coordinates by output chunk, gaussian filters with their halo), except the
three below, which the bodies hand Dask arrays to:

- ``convert``: the float conversion, chunk by chunk;
- ``fast_warp``: scikit-image's homography loop by output chunk: each chunk reads the window of the input its
  taps reach (the transformed corners of the chunk, three pixels more each side, clipped to the image; the
  whole image where a folding mode reaches across the border or a projective map's w changes sign), and the
  C++ loop works in the whole image's coordinates, so every value equals the in-memory one bit for bit;
- ``clip_warp_output``: the clip to the input's range as lazy reductions.
"""
from __future__ import annotations

import math

import numpy as np

from .._rules import convert_to_float


def is_dask(x):
    return type(x).__module__.startswith("dask")


def convert(image, preserve_range):
    """convert_to_float chunk by chunk (a pointwise conversion)."""
    dtype = convert_to_float(np.empty((0,), image.dtype), preserve_range).dtype
    # the chunks' library kept in the meta (CuPy chunks: the weights and coordinates follow it)
    return image.map_blocks(convert_to_float, preserve_range, dtype=dtype, meta=image._meta.astype(dtype))


def clip_warp_output(input_image, output_image, mode, cval, clip):
    """scikit-image's clip of a warp's output (see _warps._clip_warp_output), lazily."""
    import dask.array as da

    if not clip:
        return output_image
    nan_in = da.isnan(input_image.min())
    lo = da.where(nan_in, da.nanmin(input_image), input_image.min())
    hi = da.where(nan_in, da.nanmax(input_image), input_image.max())
    if mode == "constant":
        out_lo = da.where(nan_in, da.nanmin(output_image), output_image.min())
        out_hi = da.where(nan_in, da.nanmax(output_image), output_image.max())
        widen = ~((lo <= cval) & (cval <= hi)) & (out_lo <= cval) & (cval <= out_hi)
        c = input_image.dtype.type(cval)
        lo, hi = da.where(widen, da.minimum(lo, c), lo), da.where(widen, da.maximum(hi, c), hi)
    return da.clip(output_image, lo, hi).astype(output_image.dtype)


def _window(matrix, oy, ox, h, w, rows, cols, mode):
    """(r0, r1, c0, c1), the input window (inclusive) that output block [oy, oy + h) x [ox, ox + w) reads."""
    whole = (0, rows - 1, 0, cols - 1)
    corners = np.array([[ox, oy, 1], [ox + w - 1, oy, 1], [ox, oy + h - 1, 1], [ox + w - 1, oy + h - 1, 1]], float)
    t = corners @ matrix.T
    if not (np.all(t[:, 2] > 0) or np.all(t[:, 2] < 0)):
        return whole
    c, r = t[:, 0] / t[:, 2], t[:, 1] / t[:, 2]
    if not (np.isfinite(c).all() and np.isfinite(r).all()) or max(np.abs(c).max(), np.abs(r).max()) > 2.0 ** 50:
        return whole
    r0, r1 = math.floor(r.min()) - 3, math.floor(r.max()) + 3
    c0, c1 = math.floor(c.min()) - 3, math.floor(c.max()) + 3
    if mode not in ("constant", "edge") and (r0 < 0 or c0 < 0 or r1 >= rows or c1 >= cols):
        return whole
    clamp = lambda v, n: min(max(v, 0), n - 1)
    return clamp(r0, rows), clamp(r1, rows), clamp(c0, cols), clamp(c1, cols)


def _warp_block(window, matrix, shape, order, mode, cval, where):
    from .. import _core
    from .._engine import stream_ptr, xp_of

    out = xp_of(window).empty(shape, dtype=window.dtype)
    _core.warp_homography(window, matrix.ravel().tolist(), out, order, getattr(_core.PadMode, mode), float(cval),
                          list(where), stream=stream_ptr(out))
    return out


def fast_warp(image, matrix, output_shape, order, mode, cval):
    """The homography loop over a Dask image, by output chunk (chunks of the input's size)."""
    import dask
    import dask.array as da
    from dask.array.core import normalize_chunks

    rows, cols = image.shape[:2]
    out_hw = (int(output_shape[0]), int(output_shape[1]))
    same = out_hw == tuple(image.shape[:2])
    chunks = image.chunks[:2] if same else normalize_chunks(image.chunksize[:2], out_hw)
    blocks, oy = [], 0
    for h in chunks[0]:
        line, ox = [], 0
        for w in chunks[1]:
            r0, r1, c0, c1 = _window(matrix, oy, ox, h, w, rows, cols, mode)
            part = dask.delayed(_warp_block)(image[r0:r1 + 1, c0:c1 + 1], matrix, (h, w) + image.shape[2:], order,
                                             mode, cval, (oy, ox, r0, c0, rows, cols))
            block = da.from_delayed(part, (h, w) + image.shape[2:], dtype=image.dtype,
                                    meta=image._meta[(slice(0, 0),) * image.ndim])
            line.append([block] if image.ndim == 3 else block)   # da.block nests one list per axis
            ox += w
        blocks.append(line)
        oy += h
    out = da.block(blocks)
    return out.rechunk(image.chunks) if same else out   # an image-shaped result keeps the input's chunks


def _bodies():
    """The in-memory functions' bodies (without the engine routing that sent the Dask call here)."""
    from . import _pyramids, _warps

    return _warps, _pyramids


def warp(*args, **kwargs):
    return _bodies()[0].warp.__wrapped_impl__(*args, **kwargs)


def rotate(*args, **kwargs):
    return _bodies()[0].rotate.__wrapped_impl__(*args, **kwargs)


def resize(*args, **kwargs):
    return _bodies()[0].resize.__wrapped_impl__(*args, **kwargs)


def rescale(*args, **kwargs):
    return _bodies()[0].rescale.__wrapped_impl__(*args, **kwargs)


def swirl(*args, **kwargs):
    return _bodies()[0].swirl.__wrapped_impl__(*args, **kwargs)


def warp_polar(*args, **kwargs):
    return _bodies()[0].warp_polar.__wrapped_impl__(*args, **kwargs)


def resize_local_mean(*args, **kwargs):
    return _bodies()[0].resize_local_mean.__wrapped_impl__(*args, **kwargs)


def downscale_local_mean(*args, **kwargs):
    return _bodies()[0].downscale_local_mean.__wrapped_impl__(*args, **kwargs)


def pyramid_reduce(*args, **kwargs):
    return _bodies()[1].pyramid_reduce.__wrapped_impl__(*args, **kwargs)


def pyramid_expand(*args, **kwargs):
    return _bodies()[1].pyramid_expand.__wrapped_impl__(*args, **kwargs)
