"""skimage.morphology's convex hulls (skimage/morphology/convex_hull.py): convex_hull_image, convex_hull_object.

The hull's geometry comes from Qhull (scipy.spatial.ConvexHull, a kept library) on the candidate pixels; 2-D
hulls are rasterised by the C++ core with exact integer tests (``cpp/src/morphology/convex_hull.hpp``), n-D
ones against the hull's facets at scikit-image's tolerance (an interval per line, its ends tested pixel by
pixel). GPU images keep the pixels on the device: only the candidates (compacted there) come to the host for
Qhull, and the hull's vertices or facets go back to be rasterised by the CUDA engine.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ..ndimage._footprint import to_host
from ..util._dtype import cast_like_host
from ._label import label


def _checked(image):
    if not hasattr(image, "ndim"):   # scikit-image reads image.ndim first
        raise AttributeError(f"'{type(image).__name__}' object has no attribute 'ndim'")
    return image


def _uint8_nonzero(image):
    """image cast to uint8 (as scikit-image's 2-D hull reads it, NumPy's host cast of floats) != 0, on the
    image's engine."""
    return cast_like_host(image, np.uint8) != 0


def _extreme_candidates(members):
    """The members that lie between no two members along an axis: the only pixels whose corners can be
    hull vertices. members: bool, or labels (a pixel is between two of its own label)."""
    xp = xp_of(members)
    inner = xp.zeros(members.shape, dtype=bool)
    for axis in range(members.ndim):
        if members.shape[axis] < 3:
            continue
        mid = (slice(None),) * axis
        centre = members[mid + (slice(1, -1),)]
        inner[mid + (slice(1, -1),)] |= (members[mid + (slice(0, -2),)] == centre) & (
            members[mid + (slice(2, None),)] == centre)
    return (members != 0) & ~inner


def _diamond(ndim):
    """The centres of a pixel's faces, relative to its centre."""
    offsets = np.zeros((2 * ndim, ndim))
    for row, (axis, step) in enumerate(itertools.product(range(ndim), (-0.5, 0.5))):
        offsets[row, axis] = step
    return offsets


def _row_extremes(image):
    """The first and last foreground pixel of every row and every column: the only pixels that can be hull
    vertices of a 2-D image (on the image's engine)."""
    xp = xp_of(image)
    image = image.view(np.uint8)   # argmax over 0/1 bytes (the first True)
    found = []
    for axis in (1, 0):
        hit = image.any(axis=axis)
        lines = xp.flatnonzero(hit)
        first = image.argmax(axis=axis)[lines]
        last = image.shape[axis] - 1 - xp.flip(image, axis=axis).argmax(axis=axis)[lines]
        for at in (first, last):
            found.append(xp.stack((lines, at), axis=1) if axis == 1 else xp.stack((at, lines), axis=1))
    return xp.concatenate(found)


def _hull(coords):
    try:
        return ConvexHull(coords)
    except QhullError as err:
        warnings.warn(f"Failed to get convex hull image. Returning empty image, see error message below:\n{err}",
                      UserWarning, stacklevel=3)
        return None


def _twice(hull):
    """A 2-D hull's vertices (counter-clockwise) doubled: integers, as the core's polygon fill takes them."""
    return np.rint(2 * hull.points[hull.vertices]).astype(np.int64).ravel().tolist()


def _convex_hull_image(image, offset_coordinates=True, tolerance=1e-10, include_borders=True):
    xp = xp_of(image)
    ndim = image.ndim
    count = int(xp.count_nonzero(image))
    if not count:
        warnings.warn("Input image is entirely zero, no valid convex hull. Returning empty image", UserWarning,
                      stacklevel=3)
        return xp.zeros(image.shape, dtype=bool)
    if ndim < 2:
        raise ValueError("Need at least 2-D data")
    if ndim == 2:
        # scikit-image picks the candidates from the image cast to uint8 (0.5 is background there)
        coords = to_host(_row_extremes(_uint8_nonzero(image)))
    else:
        # only the possible vertices go to Qhull (from a GPU image, the only pixels copied to the host),
        # unless the pixels are few already (finding them costs more than it saves)
        members = image != 0
        coords = to_host(xp.argwhere(members if 32 * count < image.size else _extreme_candidates(members)))
        if offset_coordinates:   # the hull of the pixel centres first: fewer points to offset
            first = _hull(coords)
            if first is None:
                return xp.zeros(image.shape, dtype=bool)
            coords = first.points[first.vertices]
    if offset_coordinates:
        coords = (coords[:, np.newaxis, :] + _diamond(ndim)).reshape(-1, ndim)
    hull = _hull(np.unique(coords, axis=0))
    if hull is None:
        return xp.zeros(image.shape, dtype=bool)
    out = xp.empty(image.shape, dtype=bool)
    if ndim == 2:
        _core.fill_convex_polygon(out, _twice(hull), not include_borders, stream=stream_ptr(out))
    else:
        _core.fill_convex_hull_nd(out, np.ascontiguousarray(hull.equations, dtype=np.float64).ravel().tolist(),
                                  float(tolerance), stream=stream_ptr(out))
    return out


@engine_aware("image")
def convex_hull_image(image, offset_coordinates=True, tolerance=1e-10, include_borders=True):
    return _convex_hull_image(_checked(image), offset_coordinates, tolerance, include_borders)


def _object_hulls(labels):
    """Every object's hull at once: the candidate pixels found and grouped on the labels' engine, one Qhull
    per object on the host, all polygons filled by one core call (each polygon's rows only)."""
    xp = xp_of(labels)
    out = xp.zeros(labels.shape, dtype=bool)
    cand = _extreme_candidates(labels)
    coords, owner = xp.argwhere(cand), labels[cand]
    if not owner.size:
        return out
    order = xp.argsort(owner)   # by object (the order within one does not matter: its points are sorted)
    coords, owner = to_host(coords[order]), to_host(owner[order])
    bounds = np.flatnonzero(np.diff(owner)) + 1
    twice, starts = [], [0]
    for points in np.split(coords, bounds):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            hull = _hull(np.unique((points[:, np.newaxis, :] + _diamond(2)).reshape(-1, 2), axis=0))
        if hull is not None:
            twice += _twice(hull)
            starts.append(len(twice) // 2)
    _core.fill_convex_polygons(out, twice, starts, stream=stream_ptr(out))
    return out


@engine_aware("image")
def convex_hull_object(image, *, connectivity=2):
    image = _checked(image)
    if image.ndim > 2:
        raise ValueError("Input must be a 2D image")
    if connectivity not in (1, 2):
        raise ValueError("`connectivity` must be either 1 or 2.")
    labels = label(image, connectivity=connectivity, background=0)   # equal-valued regions, as scikit-image
    return _object_hulls(labels)
