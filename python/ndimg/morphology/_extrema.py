"""skimage.morphology's extrema (skimage/morphology/extrema.py): local_maxima/local_minima (plateaus
whole: the CPU engine's plateau fill; on the GPU the label family's equal-value components, ruled out together)
and h_maxima/h_minima (ndimg's reconstruction, both engines)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._prim import label as _lab
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


def neighbour_steps(image_shape, footprint, center, spacing=None):
    """The footprint's steps from `center` as scikit-image keeps them: sorted by length (stable; lengths
    scaled by `spacing` when given), the duplicates a small image folds together dropped, then the first
    (shortest: the centre when set) dropped. Returns (steps (k, ndim), C-order linear offsets in `image_shape`)."""
    offsets = np.stack([idx - c for idx, c in zip(np.nonzero(footprint), center)], axis=-1)
    factors = np.cumprod((tuple(image_shape[1:]) + (1,))[::-1])[::-1]
    linear = (offsets * factors).sum(axis=1)
    scaled = offsets if spacing is None else offsets * spacing
    order = np.argsort(np.sqrt(np.sum(scaled ** 2, axis=1)), kind="stable")
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


def _equal_components(image, structure):
    """Every element's plateau (its equal-valued component under `structure`) as labels 1.., through
    the label family (which leaves out a background value: one no element has where the dtype allows it, else
    0, whose elements are labelled apart as a bool image)."""
    xp = xp_of(image)
    ltype = np.int32 if image.size < 2**31 - 1 else np.int64   # room for every element's own label
    labels = xp.empty(image.shape, ltype)
    if image.dtype == bool:
        image = image.view(np.uint8)
    kind, size = image.dtype.kind, image.dtype.itemsize
    if kind in "bu" or (kind == "i" and size < 8):
        background = -1 if kind in "bu" else int(np.iinfo(image.dtype).min) - 1
        _lab.label_values(image, background=background, structure=structure, out=labels)
        return labels
    count = _lab.label_values(image, background=0, structure=structure, out=labels)
    zero = image == 0
    zeros = xp.empty(image.shape, ltype)
    _lab.label(zero, structure=structure, out=zeros)
    return xp.where(zero, zeros + count, labels)


def _device_maxima(image, steps, offsets, line):
    """The maximal plateaus of a (padded, C-contiguous) image on its engine, for a centrosymmetric
    neighbourhood (`steps`, and as linear `offsets`): the plateaus are the label family's equal-value
    components; one pass of the core flags each plateau that one of its elements rules out (a strictly higher
    neighbour, or the border), a second writes the others' elements. Border elements are False. With NaN and
    line candidates (`line`), scikit-image only starts from the runs along the last axis above both their
    ends (NaN compares false: it may leave a plateau without one), which is required too."""
    xp = xp_of(image)
    ndim = image.ndim
    structure = np.zeros((3,) * ndim, dtype=bool)
    structure[tuple((steps + 1).T)] = True
    labels = _equal_components(image, structure)
    flags = xp.zeros(int(labels.max()) + 1, dtype=np.uint8)
    values = image.view(np.uint8) if image.dtype == bool else image
    _core.plateau_flags(values, labels, offsets, flags, stream=stream_ptr(flags))
    if line and image.dtype.kind == "f" and bool(xp.isnan(image).any()):
        # runs of equal interior values along the last axis, each numbered by its first element
        interior = xp.zeros(image.shape, dtype=bool)
        interior[(slice(1, -1),) * ndim] = True
        border = ~interior
        same = xp.zeros(image.shape, dtype=bool)
        same[..., 1:] = (image[..., 1:] == image[..., :-1]) & ~border[..., :-1]
        starts = ~border & ~same
        run = xp.cumsum(starts.ravel()).reshape(image.shape)   # run numbers grow along every line
        after = xp.zeros(image.shape, dtype=bool)
        after[..., :-1] = ~border[..., :-1] & ~(same[..., 1:] & ~border[..., 1:])   # the run's last element
        nxt = xp.zeros(image.shape, dtype=image.dtype)
        nxt[..., :-1] = image[..., 1:]
        prev = xp.zeros(image.shape, dtype=image.dtype)
        prev[..., 1:] = image[..., :-1]
        size = int(run.max()) + 1
        rises, falls = xp.zeros(size, dtype=bool), xp.zeros(size, dtype=bool)
        rises[run[starts & (prev < image)]] = True
        falls[run[after & (image > nxt)]] = True
        candidate = xp.zeros(flags.shape, dtype=bool)
        candidate[labels[interior & rises[run] & falls[run]]] = True
        flags[~candidate] = 1
    out = xp.empty(image.shape, dtype=bool)
    _core.plateau_top(labels, flags, out, stream=stream_ptr(out))
    return out


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
    xp = xp_of(image)
    image = xp.asarray(image, order="C")
    if image.size == 0:
        return xp.nonzero(image) if indices else xp.zeros(image.shape, dtype=bool)
    if allow_borders:
        low = image.min()
        image = xp.pad(image, 1, mode="constant", constant_values=low if xp is np else low.item())
    flags = xp.zeros(image.shape, dtype=np.uint8)
    set_border(flags, 3, [(1, 1)] * image.ndim)
    if any(s < 3 for s in image.shape):
        warn_user("maxima can't exist for an image with any dimension smaller 3 if borders aren't allowed", UserWarning)
        out = flags == 1
    else:
        footprint = resolve_neighborhood(footprint, connectivity, image.ndim)
        steps, offsets = neighbour_steps(image.shape, footprint, (1,) * image.ndim)
        no_float16(image.dtype)
        if image.dtype.kind not in "biuf":
            raise TypeError(f"local_maxima: unsupported dtype {image.dtype}")
        native_only(image.dtype)
        offsets = offsets.astype(np.int64).tolist()
        line = -1 in offsets and 1 in offsets
        if xp is not np and set(map(tuple, steps.tolist())) == set(map(tuple, (-steps).tolist())):
            out = _device_maxima(image, steps, offsets, line)
        else:
            # a footprint that is not centrosymmetric joins plateaus in scikit-image's scan order: the
            # serial fill on the host (a GPU image goes there and back)
            host, flags = to_host(image), to_host(flags)
            if not line:   # every element but the border's is a candidate
                flags[flags == 0] = 2
            _core.plateau_maxima(host, flags, offsets, line)
            out = xp.asarray(flags == 1)
    if allow_borders:
        out = out[(slice(1, -1),) * out.ndim]
    else:
        set_border(out, False, [(1, 1)] * out.ndim)
    return xp.nonzero(out) if indices else out


@engine_aware("image", native=False)
def local_minima(image, footprint=None, connectivity=None, indices=False, allow_borders=True):
    """The local minima of `image` (local_maxima of the inverted image)."""
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
