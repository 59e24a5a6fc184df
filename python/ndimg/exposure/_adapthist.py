"""skimage.exposure.equalize_adapthist (CLAHE, n-D) on the ndimg engines.

scikit-image converts the image to uint16 (img_as_uint, ndimg.util's), stretches it to 14 bits, bins the grey levels and
runs Zuiderveld's CLAHE on tiles. Every step before the tiles is a function of the pixel's value, so here
it is one table from the image's values (the bit patterns of 8/16-bit images, else the uint16 values) to
grey bins; the tiles' histograms, clipping, maps and the interpolation run in the core
(``cpp/src/histogram/clahe*``) on the image's engine, and the final stretch to [0, 1] is a table again.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._prim import histogram
from .._rules import check_allocation, supported_float_type
from ..filters._thresholding import _to_host
from ..util._dtype import convert
from ._exposure import _gather, _minmax, _raw_index, rescale_intensity

__all__ = ["equalize_adapthist"]

NR_OF_GRAY = 2**14  # grey levels of the CLAHE maps


def _as_uint16(image):
    """(raw, u16): `raw` a uint8/uint16 array of the image's values or bit patterns, `u16` (None: raw is
    it) img_as_uint of every raw value, in the table's order (8/16-bit images: their dtype's values converted
    once, not every pixel)."""
    dt = image.dtype
    if dt == np.uint16:
        return image, None
    if dt.kind in "bui" and dt.itemsize <= 2:
        raw, values = _raw_index(image)
        u16 = np.zeros(1 << (8 * raw.dtype.itemsize), np.uint16)   # bool: raw uint8 patterns 0 and 1
        u16[:values.size] = convert(values, np.uint16)
        return raw, u16
    return convert(image, np.uint16), None


def _bins_table(counts, u16, nbins):
    """Per raw value its grey bin: img_as_uint's value (u16; None: the raw value), stretched to 14 bits as
    scikit-image's rescale_intensity(out_range=(0, NR_OF_GRAY - 1)) and np.round do, divided by the bin
    size. `counts`: how many pixels hold each raw value (the stretch spans the present ones)."""
    present = np.flatnonzero(counts)
    values = np.arange(counts.size, dtype=np.uint16) if u16 is None else u16
    imin, imax = float(values[present].min()), float(values[present].max())
    v = values
    if imin != imax:
        v = (np.clip(v, imin, imax) - imin) / (imax - imin) * float(NR_OF_GRAY - 1) + 0.0
    else:
        v = np.clip(np.clip(v, imin, imax), 0.0, float(NR_OF_GRAY - 1))
    u14 = np.round(v.astype(np.float64)).astype(np.uint16)
    return (u14 // (1 + NR_OF_GRAY // nbins)).astype(np.int32)


def raw_counts(raw):
    """How many elements of a uint8/uint16 array hold each of its dtype's values (host int64)."""
    return _to_host(histogram.integer_counts(raw, lo=0, nbins=1 << (8 * raw.dtype.itemsize)))


def parameters(shape, kernel_size, clip_limit, nbins):
    """(kernel lengths, clip limit in counts) as scikit-image derives them, with its errors."""
    if kernel_size is None:
        kernel_size = tuple([max(s // 8, 1) for s in shape])
    elif isinstance(kernel_size, numbers.Number):
        kernel_size = (kernel_size,) * len(shape)
    elif len(kernel_size) != len(shape):
        raise ValueError(f"Incorrect value of `kernel_size`: {kernel_size}")
    kernel_size = [int(k) for k in kernel_size]
    # scikit-image's padding (its errors: a zero length divides by zero, a negative pad is refused)
    pads = [k // 2 for k in kernel_size] + [(k - s % k) % k + int(np.ceil(k / 2.0)) for k, s in zip(kernel_size, shape)]
    if min(pads) < 0:
        raise ValueError("index can't contain negative values")
    # scikit-image pads the image to whole tiles and keeps a few copies of it (NumPy's errors beyond memory);
    # the core reads every padded element once
    check_allocation([s + k for s, k in zip(shape, kernel_size)], np.uint16, extra_bytes_per_element=10)
    _ = NR_OF_GRAY // nbins   # scikit-image's bin size: nbins = 0 divides by zero
    if nbins < 1:
        raise ValueError(f"nbins must be positive, got {nbins}")
    kernel_elements = math.prod(kernel_size)
    clim = int(np.clip(clip_limit * kernel_elements, 1, None)) if clip_limit > 0.0 else kernel_elements
    check_allocation((math.prod(-(-s // k) for s, k in zip(shape, kernel_size)), nbins), np.int64)
    return kernel_size, clim


def final_table(lo, hi, float_dtype):
    """scikit-image's rescale_intensity of the CLAHE result as float, over the uint16 values [lo, hi] it holds."""
    table = np.zeros(NR_OF_GRAY, float_dtype)
    table[lo:hi + 1] = rescale_intensity(np.arange(lo, hi + 1).astype(float_dtype))
    return table


def tile_maps(raw, bins, kernel, clim, nbins):
    """The core's tile maps of a whole uint8/uint16 image (or a Dask chunk holding whole tiles)."""
    xp = xp_of(raw)
    maps = xp.empty(tuple(-(-s // k) for s, k in zip(raw.shape, kernel)) + (int(nbins),), np.uint16)
    _core.clahe_maps(xp.ascontiguousarray(raw), xp.asarray(bins), kernel, int(clim), maps, stream=stream_ptr(maps))
    return maps


def interpolate(raw, bins, kernel, origin, full_shape, maps):
    """The core's CLAHE values (uint16) of the block of an image of `full_shape` at `origin`."""
    xp = xp_of(raw)
    out = xp.empty(raw.shape, np.uint16)
    _core.clahe_apply(xp.ascontiguousarray(raw), xp.asarray(bins), kernel, [int(o) for o in origin],
                      [int(s) for s in full_shape], xp.asarray(maps), out, stream=stream_ptr(out))
    return out


@engine_aware("image")
def equalize_adapthist(image, kernel_size=None, clip_limit=0.01, nbins=256):
    if image.ndim == 3 and image.shape[-1] in (3, 4):   # scikit-image's adapt_rgb(hsv_value)
        from .. import color

        hsv = color.rgb2hsv(image[:, :, :3])
        value = _equalize(hsv[:, :, 2].copy(), kernel_size, clip_limit, nbins)
        hsv[:, :, 2] = value.astype(hsv.dtype)
        return color.hsv2rgb(hsv)
    return _equalize(image, kernel_size, clip_limit, nbins)


def _equalize(image, kernel_size, clip_limit, nbins):
    float_dtype = supported_float_type(image.dtype)
    raw, u16 = _as_uint16(image)
    kernel, clim = parameters(image.shape, kernel_size, clip_limit, nbins)
    bins = _bins_table(raw_counts(raw), u16, nbins)
    maps = tile_maps(raw, bins, kernel, clim, nbins)
    out = interpolate(raw, bins, kernel, (0,) * raw.ndim, raw.shape, maps)
    lo, hi = _minmax(out)
    return _gather(final_table(lo, hi, float_dtype), out)
