"""skimage.morphology's max-tree family (skimage/morphology/max_tree.py): max_tree, area/diameter openings and
closings, max_tree_local_maxima.

The tree is built by the C++ core (``cpp/src/morphology/maxtree*``): a stable radix argsort, then Berger's
union-find and canonicalisation over tiles of rows (on the CPU threads, or a CUDA thread per tile), the tiles'
trees joined along their borders, so the parent and traverser arrays are scikit-image's exactly. CuPy input
stays on the device, except where tiles are not exact (a side below 3, a footprint reaching further than one
step per axis or one-way, NaN) or slow (automatic tiles of an image of more than 65,536 distinct values): the
tree is built on the host; and the filters of images of more than 65,536 distinct values run on the host.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import _core
from .._engine import engine_aware, library_of, stream_ptr, to_working, xp_of
from ._util import validate_connectivity
from ..util._invert import invert

# dtypes scikit-image's Cython accepts (bool is read as uint8); float16 and the rest find no signature
_SUPPORTED = frozenset("?bBhHiIlLqQfd")
_TILE_ROWS = 0     # CPU: depth of the tiles along axis 0 (tests set it to tile small images); 0: automatic


def _array(image):
    if not hasattr(image, "shape"):   # scikit-image reads image.shape first
        raise AttributeError(f"'{type(image).__name__}' object has no attribute 'shape'")
    return xp_of(image).asarray(image)


def _image(image):
    """The image as the core takes it (NumPy or CuPy), with scikit-image's errors for what its Cython refuses."""
    image = _array(image)
    if not image.dtype.isnative:
        raise ValueError("Big-endian buffer not supported on little-endian compiler")
    if image.dtype.char not in _SUPPORTED:
        raise TypeError("No matching signature found")
    if image.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.")
    if image.size == 0:
        raise IndexError("index 0 is out of bounds for axis 0 with size 0")
    return xp_of(image).ascontiguousarray(image)


def _neighbours(shape, connectivity):
    """scikit-image's neighbour list: raveled offsets of the footprint sorted by distance (stable), duplicates
    removed where the image is smaller than the footprint, the first (the centre) dropped; and each offset's
    coordinate steps as scikit-image unravels them (around the footprint's centre, as a pixel of the image)."""
    ndim = len(shape)
    footprint, centre = validate_connectivity(ndim, connectivity, None)
    steps = np.stack([i - c for i, c in zip(np.nonzero(footprint), centre)], axis=-1)
    factors = np.cumprod((tuple(shape[1:]) + (1,))[::-1])[::-1]
    raveled = (steps * factors).sum(axis=1)
    distance = np.sqrt(np.sum(steps.astype(float) ** 2, axis=1))
    raveled = raveled[np.argsort(distance, kind="stable")]
    if any(s < f for s, f in zip(shape, footprint.shape)):
        _, first = np.unique(raveled, return_index=True)
        raveled = raveled[np.sort(first, kind="stable")]
    raveled = raveled[1:].astype(np.int32).astype(np.int64)
    shift = np.ravel_multi_index(tuple(centre), shape)   # as scikit-image: a centre outside the image raises
    points = np.array(np.unravel_index(raveled + shift, shape), dtype=np.int64).reshape(ndim, -1).T - centre
    return raveled, np.ascontiguousarray(points, dtype=np.int64)


def _tree(image, connectivity):
    xp = xp_of(image)
    offsets, points = _neighbours(image.shape, connectivity)
    parent = xp.empty(image.shape, dtype=np.int64)
    traverser = xp.empty(image.size, dtype=np.int64)
    _core.max_tree(image, offsets.tolist(), points.ravel().tolist(), parent, traverser, _TILE_ROWS,
                   stream=stream_ptr(parent))
    return parent, traverser


def _on_device_of(image, a):
    """A given tree's array on the image's device: a host tree of a GPU image is copied there (the engine is the
    image's alone: tree_traverser is 1-D, and users keep it wherever max_tree's caller left it)."""
    xp, lib = xp_of(image), library_of(a)
    if lib in (None, "numpy"):
        return xp.asarray(a)
    if xp is np:
        raise TypeError(f"ndimg cannot mix NumPy and {lib} (GPU) arrays in one call; move them to one device")
    return to_working(a, lib)


def _given_tree(image, connectivity, parent, tree_traverser):
    if parent is None or tree_traverser is None:
        return _tree(image, connectivity)
    xp = xp_of(image)
    parent, traverser = _on_device_of(image, parent), _on_device_of(image, tree_traverser)
    for a in (parent, traverser):
        if a.dtype != np.int64:
            raise ValueError(f"Buffer dtype mismatch, expected 'DTYPE_INT64_t' but got {a.dtype.name!r}")
    return xp.ascontiguousarray(parent), xp.ascontiguousarray(traverser)


def _threshold(value):
    if isinstance(value, (str, bytes)) or not isinstance(value, (numbers.Real, np.ndarray, np.generic)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(value)


def _filter(image, attribute, threshold, connectivity, parent, tree_traverser):
    image = _image(image)
    threshold = _threshold(threshold)
    parent, traverser = _given_tree(image, connectivity, parent, tree_traverser)
    out = image.copy()   # a disconnected neighbourhood leaves other roots: they keep their value, as in scikit-image
    _core.max_tree_filter(image, parent.reshape(-1), traverser.reshape(-1), attribute, threshold, out,
                          stream=stream_ptr(out))
    return out


@engine_aware("image", native=False)
def max_tree(image, connectivity=1):
    return _tree(_image(image), connectivity)


@engine_aware("image", native=False)
def area_opening(image, area_threshold=64, connectivity=1, parent=None, tree_traverser=None):
    return _filter(image, 0, area_threshold, connectivity, parent, tree_traverser)


@engine_aware("image", native=False)
def diameter_opening(image, diameter_threshold=8, connectivity=1, parent=None, tree_traverser=None):
    return _filter(image, 1, diameter_threshold, connectivity, parent, tree_traverser)


@engine_aware("image", native=False)
def area_closing(image, area_threshold=64, connectivity=1, parent=None, tree_traverser=None):
    image = invert(_array(image))
    return invert(_filter(image, 0, area_threshold, connectivity, parent, tree_traverser))


@engine_aware("image", native=False)
def diameter_closing(image, diameter_threshold=8, connectivity=1, parent=None, tree_traverser=None):
    image = invert(_array(image))
    return invert(_filter(image, 1, diameter_threshold, connectivity, parent, tree_traverser))


@engine_aware("image", native=False)
def max_tree_local_maxima(image, connectivity=1, parent=None, tree_traverser=None):
    image = _image(image)
    parent, traverser = _given_tree(image, connectivity, parent, tree_traverser)
    out = xp_of(image).empty(image.shape, dtype=np.uint64)
    _core.max_tree_local_maxima(image, parent.reshape(-1), traverser.reshape(-1), out, stream=stream_ptr(out))
    return out
