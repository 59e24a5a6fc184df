"""skimage.filters.rank's generic filters (skimage/filters/rank/generic.py) on the ndimg engines.

Every filter is one call of the core's sliding-window histogram (``cpp/src/rank``) with the statistic named
after the function: the window is the footprint around each pixel, clipped to the image and to `mask`.
Here are scikit-image's input rules: uint8/uint16 images as they are, others through img_as_ubyte with its
warning, 256 bins for 8-bit images and max(3, image.max()) + 1 for 16-bit ones, the output in the input's
dtype (entropy and windowed_histogram: float64) or `out`'s (uint8, uint16, float32 or float64, C-contiguous),
each value converted as C converts it.
"""
from __future__ import annotations

import contextvars
import numbers

import numpy as np

from ... import _core
from ..._engine import engine_aware, stream_ptr, xp_of
from ...morphology._footprints import _footprint_is_sequence, warn_user
from ...util._dtype import img_as_ubyte
from .._thresholding import _to_host

__all__ = ["autolevel", "equalize", "gradient", "maximum", "mean", "geometric_mean", "subtract_mean", "median",
           "minimum", "modal", "enhance_contrast", "pop", "sum", "threshold", "noise_filter", "entropy", "otsu",
           "windowed_histogram", "majority"]

_OUT_DTYPES = (np.uint8, np.uint16, np.float32, np.float64)
# The bins of a 16-bit image's histogram while a Dask block is filtered: the whole image's (filters.rank._dask)
_N_BINS = contextvars.ContextVar("ndimg_rank_n_bins", default=None)


def _check_nd(image, ndim):
    if image.size == 0:
        raise ValueError("The parameter `image` cannot be an empty array")
    if image.ndim != ndim:
        raise ValueError(f"The parameter `image` must be a {ndim}-dimensional array")


def _shift(name, value, three_d):
    """A shift as scikit-image's Cython kernels take it (a C signed char), with its warning for bools (its
    2-D message's typo kept)."""
    if np.dtype(type(value)) == bool:
        warn_user(f"{'Parameter' if three_d else 'Paramter'} `{name}` is boolean and will be interpreted as int. "
                  "This is not officially supported, use int instead.")
    if isinstance(value, str) or not isinstance(value, (numbers.Real, np.generic)):
        raise TypeError(f"an integer is required for {name}")
    v = int(value)
    if not -128 <= v <= 127:
        raise OverflowError("value too large to convert to signed char")
    return v


def _centre(footprint, shifts, three_d):
    """The footprint element over the output pixel; scikit-image's bound errors (AssertionError in 2-D,
    ValueError in 3-D, whose shift_x moves the planes)."""
    if three_d:
        sx, sy, sz = shifts
        centre = (footprint.shape[0] // 2 + sx, footprint.shape[1] // 2 + sy, footprint.shape[2] // 2 + sz)
        for c, s, name in zip(centre, footprint.shape, ("shift_x", "shift_y", "shift_z")):
            if not 0 <= c < s:
                raise ValueError(f"half footprint + {name} must be between 0 and footprint")
        return centre
    sx, sy = shifts[:2]
    r, c = footprint.shape[0] // 2 + sy, footprint.shape[1] // 2 + sx
    if r < 0:
        raise AssertionError(f"centre_r {r} < 0")
    if c < 0:
        raise AssertionError(f"centre_c {c} < 0")
    if r >= footprint.shape[0]:
        raise AssertionError(f"centre_r {r} >= srows {footprint.shape[0]}")
    if c >= footprint.shape[1]:
        raise AssertionError(f"centre_c {c} >= scols {footprint.shape[1]}")
    return (r, c)


def _run(statistic, image, footprint, out, mask, shifts, *, three_d, out_dtype=None, pixel_size=1, p0=0.0,
         p1=0.0, s0=0, s1=0):
    """scikit-image's _preprocess_input (2-D) or _handle_input_3D, then the core; returns `out` with its
    trailing axis (length pixel_size)."""
    xp = xp_of(image)
    _check_nd(image, 3 if three_d else 2)
    if not three_d and (image.dtype == bool or (out_dtype is not None and np.dtype(out_dtype) == bool)):
        raise ValueError("dtype cannot be bool.")
    if image.dtype not in (np.uint8, np.uint16):
        warn_user(f"Possible precision loss converting image of type {image.dtype} to uint8 as required by rank "
                  "filters. Convert manually using skimage.util.img_as_ubyte to silence this warning.")
        image = img_as_ubyte(image)
    if _footprint_is_sequence(footprint):
        raise ValueError("footprint sequences are not currently supported by rank filters")
    footprint = np.ascontiguousarray(np.asarray(_to_host(footprint)) > 0, dtype=np.uint8)
    if footprint.ndim != image.ndim:
        raise ValueError("Image dimensions and neighborhood dimensionsdo not match")
    image = xp.ascontiguousarray(image)
    if mask is not None:
        mask = xp.ascontiguousarray(img_as_ubyte(xp.asarray(mask)))
        if mask.shape != image.shape:
            raise ValueError(f"mask of shape {mask.shape} for an image of shape {image.shape}")
    if out is image:
        raise NotImplementedError("Cannot perform rank operation in place.")
    if out is None:
        out = xp.empty(image.shape + (pixel_size,), dtype=out_dtype or image.dtype)
    else:
        if out.dtype not in _OUT_DTYPES:
            raise TypeError("Function call with ambiguous argument types")
        if out.ndim == image.ndim:
            out = out.reshape(out.shape + (pixel_size,))
        if out.shape[:image.ndim] != image.shape or out.ndim != image.ndim + 1:
            raise ValueError(f"out of shape {out.shape} for an image of shape {image.shape}")
        if not out.flags.c_contiguous:
            raise ValueError("ndarray is not C-contiguous")
    n_bins = 256 if image.dtype == np.uint8 else _N_BINS.get() or int(max(3, int(image.max()))) + 1
    if n_bins > 2**10:
        warn_user(f"Bad rank filter performance is expected due to a large number of bins ({n_bins}), equivalent "
                  f"to an approximate bitdepth of {np.log2(n_bins):.1f}.")
    # a 2-D image's shift_z is not looked at
    shifts = [_shift(n, v, three_d) for n, v in zip(("shift_x", "shift_y", "shift_z")[:image.ndim], shifts)]
    centre = _centre(footprint, shifts, three_d)
    if statistic == "windowed_histogram" and out.shape[-1] != pixel_size:
        raise ValueError(f"out must have {pixel_size} bins along its last axis")
    _core.rank_filter(image, footprint, [int(c) for c in centre], image if mask is None else mask, mask is not None,
                      statistic, n_bins, float(p0), float(p1), int(s0), int(s1), out, stream=stream_ptr(out))
    return out


def _scalar_2d(statistic, image, footprint, out, mask, shift_x, shift_y, convert, **params):
    """A 2-D filter with one value per pixel and the parameters `params` (the percentile and bilateral
    families), each taken through `convert` as their Cython kernels take it, after the image's check."""
    _check_nd(image, 2)
    res = _run(statistic, image, footprint, out, mask, (shift_x, shift_y, 0), three_d=False,
               **{name: convert(value) for name, value in params.items()})
    return res.reshape(res.shape[:2])


def _scalar(statistic, image, footprint, out, mask, shift_x, shift_y, shift_z, out_dtype=None):
    """A 2-D or 3-D filter with one value per pixel (generic.py's _apply_scalar_per_pixel[_3D])."""
    if image.ndim not in (2, 3):
        raise ValueError(f"`image` must have 2 or 3 dimensions, got {image.ndim}.")
    three_d = image.ndim == 3
    res = _run(statistic, image, footprint, out, mask, (shift_x, shift_y, shift_z), three_d=three_d,
               out_dtype=out_dtype)
    return res.reshape(res.shape[:-1])


def _filter(statistic, out_dtype=None, doc=""):
    def fn(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, shift_z=0):
        return _scalar(statistic, image, footprint, out, mask, shift_x, shift_y, shift_z, out_dtype)

    fn.__name__ = fn.__qualname__ = statistic
    fn.__doc__ = (f"skimage.filters.rank.{statistic}: {doc} over the footprint around each pixel (clipped to "
                  "the image and to `mask`), 2-D or 3-D.")
    return engine_aware("image", "out", "mask", native=False)(fn)


autolevel = _filter("autolevel", doc="the grey level stretched from the window's [min, max] to the full range")
equalize = _filter("equalize", doc="the window's cumulative histogram at the pixel's grey level")
gradient = _filter("gradient", doc="the window's maximum minus its minimum")
maximum = _filter("maximum", doc="the window's maximum")
mean = _filter("mean", doc="the window's mean")
geometric_mean = _filter("geometric_mean", doc="the window's geometric mean")
subtract_mean = _filter("subtract_mean", doc="the pixel minus the window's mean, halved and shifted to mid-range")
minimum = _filter("minimum", doc="the window's minimum")
modal = _filter("modal", doc="the window's most frequent grey level")
enhance_contrast = _filter("enhance_contrast", doc="the window's minimum or maximum, whichever is closer")
pop = _filter("pop", doc="the number of pixels in the window")
sum = _filter("sum", doc="the sum of the window's grey levels")
threshold = _filter("threshold", doc="1 where the pixel exceeds the window's mean, else 0")
entropy = _filter("entropy", out_dtype=np.float64, doc="the window's Shannon entropy in bits")
otsu = _filter("otsu", doc="the window's Otsu threshold")


@engine_aware("image", "out", "mask", native=False)
def median(image, footprint=None, out=None, mask=None, shift_x=0, shift_y=0, shift_z=0):
    """skimage.filters.rank.median: the window's median (footprint: the full 3**ndim cube by default)."""
    if footprint is None:
        footprint = np.ones((3,) * image.ndim, dtype=bool)
    return _scalar("median", image, footprint, out, mask, shift_x, shift_y, shift_z)


@engine_aware("image", "out", "mask", native=False)
def majority(image, footprint, *, out=None, mask=None, shift_x=0, shift_y=0, shift_z=0):
    """skimage.filters.rank.majority: the window's most common grey level (the lowest among ties)."""
    return _scalar("majority", image, footprint, out, mask, shift_x, shift_y, shift_z)


@engine_aware("image", "out", "mask", native=False)
def noise_filter(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, shift_z=0):
    """skimage.filters.rank.noise_filter: the grey distance from the pixel to the nearest level in its window,
    the window without its centre element (removed where scikit-image removes it: in 3-D at
    [shape[0]//2 + shift_y, shape[1]//2 + shift_x, shape[2]//2 + shift_z])."""
    if _footprint_is_sequence(footprint):
        raise ValueError("footprint sequences are not currently supported by rank filters")
    if image.ndim not in (2, 3):
        raise ValueError(f"`image` must have 2 or 3 dimensions, got {image.ndim}.")
    footprint = np.array(_to_host(footprint))
    shape = footprint.shape
    if image.ndim == 2:
        footprint[int(shape[0] / 2) + shift_y, int(shape[1] / 2) + shift_x] = 0
    else:
        footprint[int(shape[0] / 2) + shift_y, int(shape[1] / 2) + shift_x, int(shape[2] / 2) + shift_z] = 0
    return _scalar("noise_filter", image, footprint, out, mask, shift_x, shift_y, shift_z)


@engine_aware("image", "out", "mask", native=False)
def windowed_histogram(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, n_bins=None):
    """skimage.filters.rank.windowed_histogram: each pixel's window histogram over `n_bins` grey levels
    (default image.max() + 1), normalised by the window's population: float64 of shape image.shape + (n_bins,).
    Levels past the window histogram's own bins count 0."""
    # .real: int() takes a NumPy complex scalar's real part but refuses a CuPy 0-d array, so a complex image
    # reaches img_as_ubyte's ValueError on both engines
    if n_bins is None:
        n_bins = int(image.max().real) + 1
    return _run("windowed_histogram", image, footprint, out, mask, (shift_x, shift_y, 0), three_d=False,
                out_dtype=np.float64, pixel_size=int(n_bins))
