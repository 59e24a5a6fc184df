"""skimage.morphology's extrema (skimage/morphology/extrema.py): local_maxima/local_minima (plateaus
whole: the CPU engine's plateau fill) and h_maxima/h_minima (ndimg's reconstruction, both engines)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, host_only, xp_of
from ..ndimage._binary import generate_binary_structure
from ..ndimage._footprint import to_host
from ..util._invert import invert
from ._footprints import warn_user
from ._reconstruction import reconstruction

_DTYPE_RANGE = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max)
                for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}




def resolve_neighborhood(footprint, connectivity, ndim, enforce_adjacency=True):
    """scikit-image's neighbourhood: `footprint` (checked), else `connectivity` hops (default ndim)."""
    if footprint is None:
        if connectivity is None:
            connectivity = ndim
        return generate_binary_structure(ndim, connectivity)
    footprint = np.asarray(to_host(footprint), dtype=bool)
    if footprint.ndim != ndim:
        raise ValueError("number of dimensions in image and footprint do notmatch")
    if enforce_adjacency and any(s != 3 for s in footprint.shape):
        raise ValueError("dimension size in footprint is not 3")
    elif any(s % 2 != 1 for s in footprint.shape):
        raise ValueError("footprint size must be odd along all dimensions")
    return footprint


def neighbour_steps(image_shape, footprint, center):
    """The footprint's steps from `center` as scikit-image keeps them: sorted by length (stable), the
    duplicates a small image folds together dropped, then the first (shortest: the centre when set) dropped.
    Returns (steps (k, ndim), C-order linear offsets in `image_shape`)."""
    offsets = np.stack([idx - c for idx, c in zip(np.nonzero(footprint), center)], axis=-1)
    factors = np.cumprod((tuple(image_shape[1:]) + (1,))[::-1])[::-1]
    linear = (offsets * factors).sum(axis=1)
    order = np.argsort(np.sqrt(np.sum(offsets ** 2, axis=1)), kind="stable")
    offsets, linear = offsets[order], linear[order]
    if any(x < y for x, y in zip(image_shape, footprint.shape)):
        _, first = np.unique(linear, return_index=True)
        first = np.sort(first, kind="stable")
        offsets, linear = offsets[first], linear[first]
    return offsets[1:], linear[1:]


def set_border(a, value, width):
    """`value` on the first and last `width[d]` = (before, after) elements of every axis."""
    for axis, (w0, w1) in enumerate(width):
        if w0:
            a[(slice(None),) * axis + (slice(0, w0),)] = value
        if w1:
            a[(slice(None),) * axis + (slice(a.shape[axis] - w1, None),)] = value


def no_float16(dtype):
    if dtype == np.float16:
        raise TypeError("dtype of `image` is float16 which is not supported, try upcasting to float32")


def native_only(dtype):
    """scikit-image's compiled loops refuse the other byte order."""
    if not dtype.isnative:
        raise ValueError("Big-endian buffer not supported on little-endian compiler")


@engine_aware("image", native=False)
def local_maxima(image, footprint=None, connectivity=None, indices=False, allow_borders=True):
    """The local maxima of `image`: whole plateaus whose neighbours (footprint, else `connectivity` hops,
    default ndim) are all lower; with allow_borders=False a plateau touching the border is none. A bool
    array, or its nonzero indices with indices=True."""
    host_only("local_maxima", image)
    image = np.asarray(image, order="C")
    if image.size == 0:
        return np.nonzero(image) if indices else np.zeros(image.shape, dtype=bool)
    if allow_borders:
        image = np.pad(image, 1, mode="constant", constant_values=image.min())
    flags = np.zeros(image.shape, dtype=np.uint8)
    set_border(flags, 3, [(1, 1)] * image.ndim)
    if any(s < 3 for s in image.shape):
        warn_user("maxima can't exist for an image with any dimension smaller 3 if borders aren't allowed", UserWarning)
    else:
        footprint = resolve_neighborhood(footprint, connectivity, image.ndim)
        _, offsets = neighbour_steps(image.shape, footprint, (1,) * image.ndim)
        no_float16(image.dtype)
        if image.dtype.kind not in "biuf":
            raise TypeError(f"local_maxima: unsupported dtype {image.dtype}")
        native_only(image.dtype)
        offsets = offsets.astype(np.int64).tolist()
        line = -1 in offsets and 1 in offsets
        if not line:   # every element but the border's is a candidate
            flags[flags == 0] = 2
        _core.plateau_maxima(image, flags, offsets, line)
    if allow_borders:
        flags = flags[(slice(1, -1),) * flags.ndim]
    else:
        set_border(flags, 0, [(1, 1)] * flags.ndim)
    out = flags == 1
    return np.nonzero(out) if indices else out


@engine_aware("image", native=False)
def local_minima(image, footprint=None, connectivity=None, indices=False, allow_borders=True):
    """The local minima of `image` (local_maxima of the inverted image)."""
    host_only("local_minima", image)
    return local_maxima(invert(image, signed_float=True), footprint=footprint, connectivity=connectivity,
                        indices=indices, allow_borders=allow_borders)


def _shift_clip(image, h, sign):
    """image - h (sign -1) or image + h (sign 1), clipped to the integer dtype's range."""
    lo, hi = _DTYPE_RANGE[image.dtype]
    if h > (hi - lo):
        raise ValueError(f"The {'added' if sign > 0 else 'subtracted'} constant is not compatiblewith the image "
                         "data type.")
    if sign > 0:
        result = image + h
        result[image > hi - h] = hi
    else:
        result = image - h
        result[image < (h + lo)] = lo
    return result


def _h_extrema(image, h, footprint, sign, name):
    xp = xp_of(image)
    if h > xp.ptp(image):
        return xp.zeros(image.shape, dtype=np.uint8)
    if np.issubdtype(type(h), np.floating) and np.issubdtype(image.dtype, np.integer):
        if (h % 1) != 0:
            warn_user("possible precision loss converting image to floating point. To silence this warning, "
                          "ensure image and h have same data type.", UserWarning)
            image = image.astype(float)
        else:
            h = image.dtype.type(h)
    if h == 0:
        raise ValueError(f"h = 0 is ambiguous, use local_{name}() instead?")
    if np.issubdtype(image.dtype, np.floating):
        # a float's rounding could lift a shifted value back to the image's: shift by two ulps more
        resolution = 2 * np.finfo(image.dtype).resolution * xp.abs(image)
        shifted = image + h + resolution if sign > 0 else image - h - resolution
    else:
        shifted = _shift_clip(image, h, sign)
    if sign > 0:
        residue = reconstruction(shifted, image, method="erosion", footprint=footprint) - image
    else:
        residue = image - reconstruction(shifted, image, method="dilation", footprint=footprint)
    return (residue >= h).astype(np.uint8)


@engine_aware("image", native=False)
def h_maxima(image, h, footprint=None):
    """The maxima of height at least `h` (uint8 0/1): the image minus its reconstruction from image - h."""
    return _h_extrema(image, h, footprint, -1, "maxima")


@engine_aware("image", native=False)
def h_minima(image, h, footprint=None):
    """The minima of depth at least `h` (uint8 0/1): the reconstruction by erosion from image + h minus it."""
    return _h_extrema(image, h, footprint, 1, "minima")
