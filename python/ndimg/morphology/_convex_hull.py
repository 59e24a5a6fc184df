"""skimage.morphology's convex hulls (skimage/morphology/convex_hull.py): convex_hull_image, convex_hull_object.

The hull's geometry comes from Qhull (scipy.spatial.ConvexHull, a kept library) on the candidate pixels; 2-D
hulls are rasterised by the C++ core with exact integer tests (``cpp/src/morphology/convex_hull.cpp``), n-D
ones against the hull's facets at scikit-image's tolerance (an interval per line, its ends tested pixel by
pixel). Host only: GPU arrays raise
TypeError.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from .. import _core
from .._engine import engine_aware, xp_of
from ..ndimage._label import find_objects
from ._label import label

def _host(image, name):
    if xp_of(image) is not np:
        raise TypeError(f"{name}: convex hulls have no GPU engine yet; pass a NumPy array (e.g. cupy.asnumpy(x))")
    if not hasattr(image, "ndim"):   # scikit-image reads image.ndim first
        raise AttributeError(f"'{type(image).__name__}' object has no attribute 'ndim'")
    return image


def _diamond(ndim):
    """The centres of a pixel's faces, relative to its centre."""
    offsets = np.zeros((2 * ndim, ndim))
    for row, (axis, step) in enumerate(itertools.product(range(ndim), (-0.5, 0.5))):
        offsets[row, axis] = step
    return offsets


def _row_extremes(image):
    """The first and last foreground pixel of every row and every column: the only pixels that can be hull
    vertices of a 2-D image."""
    found = []
    for axis in (1, 0):
        hit = image.any(axis=axis)
        lines = np.flatnonzero(hit)
        first = image.argmax(axis=axis)[lines]
        last = image.shape[axis] - 1 - np.flip(image, axis=axis).argmax(axis=axis)[lines]
        for at in (first, last):
            found.append(np.stack((lines, at), axis=1) if axis == 1 else np.stack((at, lines), axis=1))
    return np.concatenate(found)


def _hull(coords):
    try:
        return ConvexHull(coords)
    except QhullError as err:
        warnings.warn(f"Failed to get convex hull image. Returning empty image, see error message below:\n{err}",
                      UserWarning, stacklevel=3)
        return None


def _convex_hull_image(image, offset_coordinates=True, tolerance=1e-10, include_borders=True):
    ndim = image.ndim
    if np.count_nonzero(image) == 0:
        warnings.warn("Input image is entirely zero, no valid convex hull. Returning empty image", UserWarning,
                      stacklevel=3)
        return np.zeros(image.shape, dtype=bool)
    if ndim < 2:
        raise ValueError("Need at least 2-D data")
    if ndim == 2:
        # scikit-image picks the candidates from the image cast to uint8 (0.5 is background there)
        coords = _row_extremes(np.ascontiguousarray(image, dtype=np.uint8) != 0)
    else:
        coords = np.transpose(np.nonzero(image))
        if offset_coordinates:   # the hull of the pixel centres first: fewer points to offset
            first = _hull(coords)
            if first is None:
                return np.zeros(image.shape, dtype=bool)
            coords = first.points[first.vertices]
    if offset_coordinates:
        coords = (coords[:, np.newaxis, :] + _diamond(ndim)).reshape(-1, ndim)
    hull = _hull(np.unique(coords, axis=0))
    if hull is None:
        return np.zeros(image.shape, dtype=bool)
    if ndim == 2:
        out = np.empty(image.shape, dtype=bool)
        twice = np.rint(2 * hull.points[hull.vertices]).astype(np.int64)
        _core.fill_convex_polygon(out, twice.ravel().tolist(), not include_borders)
        return out
    out = np.empty(image.shape, dtype=bool)
    _core.fill_convex_hull_nd(out, np.ascontiguousarray(hull.equations, dtype=np.float64).ravel().tolist(),
                              float(tolerance))
    return out


@engine_aware("image")
def convex_hull_image(image, offset_coordinates=True, tolerance=1e-10, include_borders=True):
    return _convex_hull_image(_host(image, "convex_hull_image"), offset_coordinates, tolerance, include_borders)


@engine_aware("image")
def convex_hull_object(image, *, connectivity=2):
    image = _host(image, "convex_hull_object")
    if image.ndim > 2:
        raise ValueError("Input must be a 2D image")
    if connectivity not in (1, 2):
        raise ValueError("`connectivity` must be either 1 or 2.")
    labels = label(image, connectivity=connectivity, background=0)   # equal-valued regions, as scikit-image
    out = np.zeros(image.shape, dtype=bool)
    # each object's hull lies inside its bounding box (its vertices reach half a pixel beyond): one crop each
    for i, box in enumerate(find_objects(labels), start=1):
        if box is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            hull = _convex_hull_image(labels[box] == i)
        out[box] |= hull
    return out
