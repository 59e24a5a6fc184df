"""Polygon utilities (skimage.measure._polygon and pnpoly): Douglas-Peucker approximation, B-spline
subdivision, and points against a polygon on the CPU engine's threads. Coordinates are small host arrays:
GPU input is computed on the host and returned as the caller's array type, except grid_points_in_poly's grid,
one thread per point on the vertices' device."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of


def _host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else a


@engine_aware("coords")
def approximate_polygon(coords, tolerance):
    """The Douglas-Peucker subset of the (N, 2) polygonal chain `coords` within `tolerance` of it (the chain
    itself for tolerance <= 0)."""
    if tolerance <= 0:
        return coords
    xp = xp_of(coords)
    pts = _host(coords)
    keep = np.zeros(pts.shape[0], bool)
    dists = np.zeros(pts.shape[0])
    keep[0] = keep[-1] = True
    stack = [(0, pts.shape[0] - 1)]
    while stack:
        start, end = stack.pop()
        r0, c0 = pts[start, :]
        r1, c1 = pts[end, :]
        dr, dc = r1 - r0, c1 - c0
        angle = -np.arctan2(dr, dc)
        offset = c0 * np.sin(angle) + r0 * np.cos(angle)
        inner = pts[start + 1:end, :]
        d = dists[start + 1:end]
        dr0, dc0 = inner[:, 0] - r0, inner[:, 1] - c0
        dr1, dc1 = inner[:, 0] - r1, inner[:, 1] - c1
        # distance to the segment: perpendicular where the point projects inside it, else to the nearer end
        inside = (dr0 * dr + dc0 * dc > 0) & (-dr1 * dr - dc1 * dc > 0)
        d[inside] = np.abs(inner[inside, 0] * np.cos(angle) + inner[inside, 1] * np.sin(angle) - offset)
        out = ~inside
        d[out] = np.minimum(np.sqrt(dc0[out] ** 2 + dr0[out] ** 2), np.sqrt(dc1[out] ** 2 + dr1[out] ** 2))
        if np.any(d > tolerance):
            split = start + np.argmax(d) + 1
            stack.append((split, end))
            stack.append((start, split))
            keep[split] = True
    result = pts[keep, :]
    return result if xp is np else xp.asarray(result)


# Lane-Riesenfeld masks of the uniform B-spline of each degree: (even, odd) output points, over 2**degree
_SUBDIVISION_MASKS = {
    1: ([1, 1], [1, 1]), 2: ([3, 1], [1, 3]), 3: ([1, 6, 1], [0, 4, 4]), 4: ([5, 10, 1], [1, 10, 5]),
    5: ([1, 15, 15, 1], [0, 6, 20, 6]), 6: ([7, 35, 21, 1], [1, 21, 35, 7]), 7: ([1, 28, 70, 28, 1], [0, 8, 56, 56, 8]),
}


@engine_aware("coords")
def subdivide_polygon(coords, degree=2, preserve_ends=False):
    """One B-spline subdivision step of the (N, 2) polygon (closed when its first point equals its last) with
    a spline of `degree` 1..7; `preserve_ends` keeps an open chain's end points."""
    from scipy import signal

    if degree not in _SUBDIVISION_MASKS:
        raise ValueError("Invalid B-Spline degree. Only degree 1 - 7 is supported.")
    xp = xp_of(coords)
    coords = _host(coords)
    closed = np.all(coords[0, :] == coords[-1, :])
    method = "valid"
    if closed:
        coords = coords[:-1, :]
        method = "same"
    even_mask, odd_mask = (np.array(m, float) / 2**degree for m in _SUBDIVISION_MASKS[degree])
    even = signal.convolve2d(coords.T, np.atleast_2d(even_mask), mode=method, boundary="wrap")
    odd = signal.convolve2d(coords.T, np.atleast_2d(odd_mask), mode=method, boundary="wrap")
    out = np.zeros((even.shape[1] + odd.shape[1], 2))
    out[1::2] = even.T
    out[::2] = odd.T
    if closed:
        out = np.vstack([out, out[0, :]])
    if preserve_ends and not closed:
        out = np.vstack([coords[0, :], out, coords[-1, :]])
    return out if xp is np else xp.asarray(out)


def _columns(a):
    a = np.asarray(_host(a))
    return np.ascontiguousarray(a[:, 0], dtype=np.float64), np.ascontiguousarray(a[:, 1], dtype=np.float64)


@engine_aware("points", "verts")
def points_in_poly(points, verts):
    """Whether each (x, y) of the (K, 2) `points` lies in the polygon `verts` (V, 2); on a vertex or an edge
    counts as inside (the bool array holds pnpoly's codes 0..3, as scikit-image's does)."""
    xp = xp_of(points, verts)
    x, y = _columns(points)
    vx, vy = _columns(verts)
    out = np.zeros(x.shape[0], np.uint8)
    _core.points_in_polygon(vx, vy, x, y, out)
    out = out.view(bool)
    return out if xp is np else xp.asarray(out)


@engine_aware("verts")
def grid_points_in_poly(shape, verts, binarize=True):
    """Whether each (row, col) of a grid of `shape` lies in the polygon `verts`: bool, or with
    ``binarize=False`` uint8 codes 0 outside, 1 inside, 2 on a vertex, 3 on an edge. GPU `verts`: one thread
    per grid point on their device."""
    xp = xp_of(verts)
    verts = xp.asarray(verts)
    vx, vy = (xp.ascontiguousarray(verts[:, k], dtype=xp.float64) for k in (0, 1))
    out = xp.zeros((shape[0], shape[1]), dtype=np.uint8)
    _core.grid_points_in_polygon(vx, vy, out, stream=stream_ptr(out))
    return out.astype(bool) if binarize else out
