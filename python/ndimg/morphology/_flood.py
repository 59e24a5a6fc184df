"""skimage.morphology.flood and flood_fill (skimage/morphology/_flood_fill.py): the region connected to a
seed whose values equal the seed's (or lie within `tolerance` of it). The candidates are one comparison over
xp; the CPU engine fills from the seed breadth-first, the GPU engine propagates with
ndimg.ndimage.binary_propagation."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from ..ndimage._binary import binary_propagation
from ._extrema import native_only, neighbour_steps, no_float16, resolve_neighborhood, set_border


def _bounds(seed_value, tolerance, dtype):
    """scikit-image's tolerance window [seed - tolerance, seed + tolerance] clipped to the dtype's range and
    read as the dtype reads it (integers truncated towards zero)."""
    tolerance = abs(tolerance)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = info.min, info.max
    elif dtype.kind == "f":
        info = np.finfo(dtype)
        lo, hi = info.min.item(), info.max.item()
    else:   # bool
        lo, hi = False, True
    seed = seed_value.item()
    low, high = max(lo, seed - tolerance), min(hi, seed + tolerance)
    if dtype.kind in "iub":
        return int(low), int(high)
    return dtype.type(low), dtype.type(high)


def _fill_cpu(inside, seed_point, footprint, center, pad):
    """The CPU engine: breadth-first from the seed over the padded candidate flags."""
    shape = inside.shape
    flags = np.zeros(tuple(s + a + b for s, (a, b) in zip(shape, pad)), np.uint8)
    flags[tuple(slice(a, a + s) for s, (a, _) in zip(shape, pad))] = inside
    set_border(flags, 2, pad)
    _, offsets = neighbour_steps(flags.shape, footprint, center)
    seed = int(np.ravel_multi_index([int(i) + a for i, (a, _) in zip(seed_point, pad)], flags.shape))
    _core.flood_flags(flags, offsets.astype(np.int64).tolist(), seed)
    return flags[tuple(slice(a, a + s) for s, (a, _) in zip(shape, pad))] == 3


def _fill_xp(inside, seed_point, footprint, center, pad):
    """Any xp (the GPU engine): the same steps as a structure for ndimg.ndimage.binary_propagation (a
    dilation's output at p reads p - step); the seed belongs to its region whatever its value."""
    xp = xp_of(inside)
    steps, _ = neighbour_steps(tuple(s + a + b for s, (a, b) in zip(inside.shape, pad)), footprint, center)
    r = np.array([a for a, _ in pad], dtype=np.int64)
    structure = np.zeros(tuple(2 * r + 1), bool)
    if len(steps):
        structure[tuple((r + steps).T)] = True
    structure[tuple(r)] = True   # keeps what is reached (and lets the propagation stop)
    marker = xp.zeros(inside.shape, dtype=bool)
    marker[seed_point] = True
    return binary_propagation(marker, structure=structure, mask=inside) | marker


@engine_aware("image", native=False)
def flood(image, seed_point, *, footprint=None, connectivity=None, tolerance=None):
    """A bool mask of the elements connected to `seed_point` (through the footprint's steps, else
    `connectivity` hops, default ndim) whose values equal the seed's, or lie within `tolerance` of it."""
    xp = xp_of(image)
    image = image if hasattr(image, "dtype") and hasattr(image, "shape") else np.asarray(image)
    if 0 in image.shape:
        return xp.zeros(image.shape, dtype=bool)
    try:
        iter(seed_point)
    except TypeError:
        seed_point = (seed_point,)
    seed_value = image[tuple(seed_point)]
    seed_point = tuple(np.asarray(seed_point) % image.shape)
    footprint = resolve_neighborhood(footprint, connectivity, image.ndim, enforce_adjacency=False)
    center = tuple(s // 2 for s in footprint.shape)
    pad = [(int(np.max(np.abs(idx - c))),) * 2 for idx, c in zip(np.nonzero(footprint), center)]
    no_float16(image.dtype)
    if image.dtype.kind not in "biuf":
        raise TypeError(f"flood: unsupported dtype {image.dtype}")
    native_only(image.dtype)
    if getattr(seed_value, "ndim", 0) != 0:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
    if tolerance is not None:
        low, high = _bounds(seed_value, tolerance, image.dtype)
        inside = (image >= low) & (image <= high)
    else:
        inside = image == seed_value
    return (_fill_cpu if xp is np else _fill_xp)(inside, seed_point, footprint, center, pad)


@engine_aware("image", native=False)
def flood_fill(image, seed_point, new_value, *, footprint=None, connectivity=None, tolerance=None, in_place=False):
    """`image` with the flood region of `seed_point` set to `new_value` (a copy unless in_place)."""
    mask = flood(image, seed_point, footprint=footprint, connectivity=connectivity, tolerance=tolerance)
    if not in_place:
        image = image.copy()
    image[mask] = new_value
    return image
