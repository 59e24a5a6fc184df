"""skimage.filters.unsharp_mask on the ndimg engines."""
from __future__ import annotations

import contextvars
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._engine import engine_aware, get_num_threads, xp_of
from .._rules import array_argument, channel_axis_index, img_as_float, supported_float_type
from ._gaussian import gaussian

# elements per block: one block of each operand stays in a core's cache through all of a step's operations
_BLOCK = 1 << 16


def _blockwise(fn, *arrays):
    """fn(*blocks) over matching 1-D blocks of C-contiguous NumPy arrays of one size, on the CPU engine's
    thread count. NumPy alone is one core and one memory sweep per operation; NumPy's ufuncs release the
    GIL, so threads scale, and the operations of one block reuse it from cache (the same values)."""
    flat = [a.reshape(-1) for a in arrays]
    n = flat[0].size
    nblocks = -(-n // _BLOCK)

    def run(first, last):
        for b in range(first, last):
            fn(*(a[b * _BLOCK:(b + 1) * _BLOCK] for a in flat))

    workers = min(get_num_threads(), nblocks)
    if workers <= 1:
        return run(0, nblocks)
    bounds = [nblocks * k // workers for k in range(workers + 1)]
    with ThreadPoolExecutor(workers) as pool:
        # each worker in a copy of the caller's context, so np.errstate applies there too
        done = [pool.submit(contextvars.copy_context().run, run, bounds[k], bounds[k + 1]) for k in range(workers)]
        for d in done:
            d.result()


def _blockable(*arrays):
    return all(type(a) is np.ndarray and a.flags.c_contiguous for a in arrays)


def _to_float(image, float_dtype, preserve_range):
    """scikit-image's float image: image.astype(float_dtype) or img_as_float (blockwise for integer and
    bool NumPy data: the same cast, scale by 1 / max and floor at -1, without its temporaries)."""
    kind = image.dtype.kind
    if kind in "biu" and _blockable(image):
        scale = None if preserve_range or kind == "b" else 1.0 / np.iinfo(image.dtype).max

        def convert(src, dst):
            dst[...] = src
            if scale is not None:
                dst *= scale
                if kind == "i":
                    np.maximum(dst, -1.0, out=dst)

        fimg = np.empty(image.shape, float_dtype)
        _blockwise(convert, image, fimg)
        return fimg
    if preserve_range:
        return image.astype(float_dtype, copy=False)
    return img_as_float(image).astype(float_dtype, copy=False)


def _sharpen(fimg, blurred, amount, vrange, xp):
    """blurred <- image + (image - blurred) * amount, rounded exactly like that, computed in place as
    image - ((blurred - image) * amount), clipped to vrange."""
    blurred -= fimg
    blurred *= amount
    xp.subtract(fimg, blurred, out=blurred)
    if vrange is not None:
        xp.clip(blurred, vrange[0], vrange[1], out=blurred)


@engine_aware("image")
def unsharp_mask(image, radius=1.0, amount=1.0, preserve_range=False, *, channel_axis=None):
    """Sharpen as image + amount * (image - gaussian(image, radius)) (skimage.filters.unsharp_mask)."""
    image = array_argument(image)
    if image.ndim == 0:  # scikit-image's Gaussian cannot write a 0-d result
        raise TypeError("return arrays must be of ArrayType")
    xp = xp_of(image)
    float_dtype = supported_float_type(image.dtype)
    fimg = _to_float(image, float_dtype, preserve_range)
    vrange = None  # results are clipped to the valid range of img_as_float's output
    if not preserve_range:
        # img_as_float keeps the sign of every value: only signed and float data can be negative
        negative = image.dtype.kind in "if" and bool(xp.any(fimg < 0))
        vrange = (-1.0, 1.0) if negative else (0.0, 1.0)
    if channel_axis is not None:
        # scikit-image blurs each channel as an (ndim - 1)-D image
        if isinstance(radius, Iterable) and len(list(radius)) != image.ndim - 1:
            raise RuntimeError("sequence argument must have length equal to input rank")
        channel_axis = channel_axis_index(channel_axis, image.ndim)
    blurred = gaussian.__wrapped_impl__(fimg, sigma=radius, mode="reflect", channel_axis=channel_axis)
    if np.ndim(amount) == 0 and _blockable(fimg, blurred):
        _blockwise(lambda f, b: _sharpen(f, b, amount, vrange, np), fimg, blurred)
    else:
        _sharpen(fimg, blurred, amount, vrange, xp)
    return blurred
