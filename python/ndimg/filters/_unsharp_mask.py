"""skimage.filters.unsharp_mask on the ndimg engines."""
from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np

from .._blocks import blockable, blockwise
from .._engine import engine_aware, xp_of
from .._rules import array_argument, channel_axis_index, img_as_float, supported_float_type
from ._gaussian import gaussian


def _to_float(image, float_dtype, preserve_range):
    """scikit-image's float image: image.astype(float_dtype) or img_as_float (blockwise for integer and
    bool NumPy data: the same cast, scale by 1 / max and floor at -1, without its temporaries)."""
    kind = image.dtype.kind
    if kind in "biu" and blockable(image):
        scale = None if preserve_range or kind == "b" else 1.0 / np.iinfo(image.dtype).max

        def convert(src, dst):
            dst[...] = src
            if scale is not None:
                dst *= scale
                if kind == "i":
                    np.maximum(dst, -1.0, out=dst)

        fimg = np.empty(image.shape, float_dtype)
        blockwise(convert, image, fimg)
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


@functools.lru_cache(maxsize=None)
def _sharpen_kernel():
    """CuPy kernel: f = x * scale (img_as_float's cast and scale), b = f - (b - f) * amount clipped to
    [lo, hi] as _sharpen rounds it (NaN kept, as np.clip keeps it), in float64."""
    import cupy

    return cupy.ElementwiseKernel(
        "X x, float64 scale, float64 amount, float64 lo, float64 hi", "float64 b",
        "double f = (double)x * scale; double r = f - (b - f) * amount; b = r < lo ? lo : (r > hi ? hi : r);",
        "ndimg_unsharp_sharpen", options=("--fmad=false",))


def _unsharp_cuda(image, fimg, radius, amount, vrange, channel_axis):
    """unsharp_mask of a float64 result on the CUDA engine. Without `fimg`, the unsigned or bool image is
    blurred as it is (gaussian folds img_as_float's 1 / max into its first pass) and converted again inside
    the one sharpening kernel, so no float64 copy of it is written."""
    lo, hi = vrange if vrange is not None else (-np.inf, np.inf)
    src, scale = fimg, 1.0
    if fimg is None:
        src = image
        scale = 1.0 if image.dtype.kind == "b" else 1.0 / np.iinfo(image.dtype).max
    blurred = gaussian.__wrapped_impl__(src, sigma=radius, mode="reflect", channel_axis=channel_axis)
    _sharpen_kernel()(src, scale, float(amount), lo, hi, blurred)
    return blurred


def _unsharp_direct_cpu(image, radius, amount, vrange, channel_axis):
    """_unsharp_cuda on the CPU engine: the unsigned or bool image blurred as it is, then each block of it
    converted as _to_float converts it and sharpened while in cache."""
    blurred = gaussian.__wrapped_impl__(image, sigma=radius, mode="reflect", channel_axis=channel_axis)
    scale = None if image.dtype.kind == "b" else 1.0 / np.iinfo(image.dtype).max

    def sharpen(src, b):
        f = src.astype(b.dtype)
        if scale is not None:
            f *= scale
        _sharpen(f, b, amount, vrange, np)

    blockwise(sharpen, image, blurred)
    return blurred


@engine_aware("image")
def unsharp_mask(image, radius=1.0, amount=1.0, preserve_range=False, *, channel_axis=None):
    """Sharpen as image + amount * (image - gaussian(image, radius)) (skimage.filters.unsharp_mask)."""
    image = array_argument(image)
    if image.ndim == 0:  # scikit-image's Gaussian cannot write a 0-d result
        raise TypeError("return arrays must be of ArrayType")
    xp = xp_of(image)
    float_dtype = supported_float_type(image.dtype)
    # unsigned and bool images are blurred unconverted and converted again where they are sharpened (the
    # CUDA engine's kernel, blocks of the CPU threads): no float64 copy of the image is written
    direct = not preserve_range and image.dtype.kind in "bu" and np.ndim(amount) == 0 and \
        (xp is not np or blockable(image))
    fimg = None if direct else _to_float(image, float_dtype, preserve_range)
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
    if xp is not np and float_dtype == np.float64 and np.ndim(amount) == 0:
        return _unsharp_cuda(image, fimg, radius, amount, vrange, channel_axis)
    if fimg is None:
        return _unsharp_direct_cpu(image, radius, amount, vrange, channel_axis)
    blurred = gaussian.__wrapped_impl__(fimg, sigma=radius, mode="reflect", channel_axis=channel_axis)
    if np.ndim(amount) == 0 and blockable(fimg, blurred):
        blockwise(lambda f, b: _sharpen(f, b, amount, vrange, np), fimg, blurred)
    else:
        _sharpen(fimg, blurred, amount, vrange, xp)
    return blurred
