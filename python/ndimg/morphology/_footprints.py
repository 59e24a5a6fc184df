"""skimage.morphology's footprint generators (host-side NumPy arrays, as scikit-image returns), their
decompositions into sequences of small footprints, and the sequence helpers the operators share."""
from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Sequence
from numbers import Integral

import numpy as np

# Sphere decompositions (Park and Chin's square / diamond / T-shaped 3**ndim elements) are chosen for radii up
# to these, as scikit-image 0.26's precomputed tables reach (radius 251 falls off the table: IndexError there)
_NSPHERE_LIMITS = {2: 251, 3: 101}
# scikit-image's 3-D table holds box-free sequences (the best of those) from radius 27 on, except at 35
_BOX_FREE = frozenset(range(27, 101)) - {35}


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_user(message, category=UserWarning):
    """Warn at the first caller outside ndimg: the user's line whether the call came directly, through the
    engine wrappers or through ndimg.accelerate's (scikit-image's tests check the warning's location)."""
    frame, level = sys._getframe(1), 2   # stacklevel 2: warn_user's caller
    while frame is not None and _in_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


@functools.lru_cache(maxsize=256)
def _in_package(filename):
    return os.path.abspath(filename).startswith(_PACKAGE)


def _deprecated(name):
    warn_user(f"`{name}` is deprecated since version 0.25 and will be removed in version 0.27. "
              "Use `skimage.morphology.footprint_rectangle` instead.", FutureWarning)


def _is_array(a):
    """NumPy-like, or a device array (CuPy, torch: cuCIM users pass CuPy footprints)."""
    return any(hasattr(a, k) for k in ("__array_interface__", "__cuda_array_interface__", "__dlpack__"))


def _host(a):
    """A footprint on the host: it is a small parameter, which the primitives take as NumPy."""
    if hasattr(a, "__array_interface__") or not _is_array(a):
        return a
    get = getattr(a, "get", None)   # CuPy
    return get() if callable(get) else a.detach().cpu().numpy()   # torch


def _footprint_is_sequence(footprint):
    """True for a sequence of (array, repetitions) pairs, False for an array; ValueError otherwise."""
    if _is_array(footprint):
        return False
    if not isinstance(footprint, Sequence):
        raise ValueError("footprint must be either an ndarray or Sequence")
    for t in footprint:
        if not (isinstance(t, Sequence) and len(t) == 2 and _is_array(t[0])
                and isinstance(t[1], Integral)):
            raise ValueError("All elements of footprint sequence must be a 2-tuple where the first element of "
                             "the tuple is an ndarray and the second is an integer indicating the number of "
                             "iterations.")
    return True


def as_sequence(footprint):
    """A footprint as a list of (array, repetitions): an array is applied once."""
    return [(_host(fp), n) for fp, n in footprint] if _footprint_is_sequence(footprint) else [(_host(footprint), 1)]


def _shape_from_sequence(footprints):
    """The extent of the footprint that applying the sequence amounts to (each element adds its length - 1)."""
    if not _footprint_is_sequence(footprints):
        raise ValueError("expected a sequence of footprints")
    ndim = footprints[0][0].ndim
    shape = [1] * ndim
    for fp, n in footprints:
        for d in range(ndim):
            shape[d] += n * (fp.shape[d] - 1)
    return tuple(shape)


def footprint_from_sequence(footprints):
    """The single footprint equivalent to applying the sequence `footprints`: one pixel dilated by it."""
    from ._gray import dilation

    shape = _shape_from_sequence(footprints)
    point = np.zeros(shape, dtype=bool)
    point[tuple(s // 2 for s in shape)] = True
    return dilation(point, footprints)


def _line(ndim, dim, width, dtype):
    """A flat line of `width` along axis `dim` of an ndim-D footprint, applied once."""
    return (np.ones((1,) * dim + (width,) + (1,) * (ndim - dim - 1), dtype=dtype), 1)


def _decompose_size(size, kernel_size=3):
    """How many applications of a `kernel_size` line amount to one of length `size`."""
    if kernel_size % 2 != 1:
        raise ValueError("only odd length kernel_size is supported")
    return 1 + (size - kernel_size) // (kernel_size - 1)


def footprint_rectangle(shape, *, dtype=np.uint8, decomposition=None):
    """A flat (hyper-)rectangle of `shape`; decomposition 'separable' (one line per axis) or 'sequence'
    (3**ndim boxes, then lines for the longer axes; 'separable' with a warning for even lengths)."""
    if decomposition == "sequence" and any(w % 2 == 0 for w in shape):
        warn_user("decomposition='sequence' is only supported for uneven footprints, falling back to "
                  "decomposition='separable'")
        decomposition = "separable"
    nd = len(shape)
    if decomposition is None:
        return np.ones(shape, dtype=dtype)
    if decomposition == "separable":
        return tuple(_line(nd, d, w, dtype) for d, w in enumerate(shape))
    if decomposition == "sequence":
        low = min(shape)
        seq = [(np.ones((3,) * nd, dtype=dtype), _decompose_size(low, 3))]
        seq += [_line(nd, d, w - low + 1, dtype) for d, w in enumerate(shape) if w > low]
        return tuple(seq)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def square(width, dtype=np.uint8, *, decomposition=None):
    """Deprecated (scikit-image 0.25): footprint_rectangle((width, width))."""
    _deprecated("square")
    return footprint_rectangle((width, width), dtype=dtype, decomposition=decomposition)


def rectangle(nrows, ncols, dtype=np.uint8, *, decomposition=None):
    """Deprecated (scikit-image 0.25): footprint_rectangle((nrows, ncols))."""
    _deprecated("rectangle")
    return footprint_rectangle((nrows, ncols), dtype=dtype, decomposition=decomposition)


def cube(width, dtype=np.uint8, *, decomposition=None):
    """Deprecated (scikit-image 0.25): footprint_rectangle((width,) * 3)."""
    _deprecated("cube")
    return footprint_rectangle((width,) * 3, dtype=dtype, decomposition=decomposition)


def diamond(radius, dtype=np.uint8, *, decomposition=None):
    """Pixels within city-block distance `radius` of the centre; 'sequence': the 3x3 cross, radius times."""
    if decomposition is None:
        r = np.abs(np.arange(0, radius * 2 + 1) - radius)
        return np.array(r[:, None] + r[None, :] <= radius, dtype=dtype)
    if decomposition == "sequence":
        return ((diamond(1, dtype=dtype), _decompose_size(2 * radius + 1, 3)),)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def _cube_grid(radius):
    """Coordinates from -radius to radius (2 * radius + 1 samples, as NumPy's complex-step mgrid) in 3-D."""
    n = 2 * radius + 1
    return np.mgrid[-radius:radius:n * 1j, -radius:radius:n * 1j, -radius:radius:n * 1j]


def octahedron(radius, dtype=np.uint8, *, decomposition=None):
    """The 3-D diamond: city-block distance at most `radius` (non-integer radii allowed)."""
    if decomposition is None:
        z, y, x = _cube_grid(radius)
        return np.array(np.abs(x) + np.abs(y) + np.abs(z) <= radius, dtype=dtype)
    if decomposition == "sequence":
        return ((octahedron(1, dtype=dtype), _decompose_size(2 * radius + 1, 3)),)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def disk(radius, dtype=np.uint8, *, strict_radius=True, decomposition=None):
    """Pixels within Euclidean distance `radius` (radius + 0.5 when not strict_radius); 'sequence': 3x3
    elements approximating it, 'crosses': cross-shaped elements."""
    if decomposition is None:
        r = np.arange(-radius, radius + 1)
        rr = radius if strict_radius else radius + 0.5
        return np.array(r[None, :] ** 2 + r[:, None] ** 2 <= rr ** 2, dtype=dtype)
    if decomposition == "sequence":
        return _nsphere_series_decomposition(radius, 2, dtype)
    if decomposition == "crosses":
        return _cross_decomposition(disk(radius, dtype, strict_radius=strict_radius))
    # scikit-image 0.26 reaches its return with nothing assigned
    raise UnboundLocalError(f"Unrecognized decomposition: {decomposition!r}")


def ball(radius, dtype=np.uint8, *, strict_radius=True, decomposition=None):
    """The 3-D disk: Euclidean distance at most `radius` (+ 0.5 when not strict_radius); 'sequence': 3x3x3
    elements approximating it."""
    if decomposition is None:
        z, y, x = _cube_grid(radius)
        rr = radius if strict_radius else radius + 0.5
        return np.array(x ** 2 + y ** 2 + z ** 2 <= rr * rr, dtype=dtype)
    if decomposition == "sequence":
        return _nsphere_series_decomposition(radius, 3, dtype)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def _elements(ndim, dtype):
    """Park and Chin's elements of extent 3 per axis: the T-shaped ones (a face of the cube plus the centre
    line across it; in 2-D the T and its rotations by 90, 180 and 270 degrees), the cross, the box."""
    def centre_line(a, ax):
        a[tuple(slice(None) if d == ax else 1 for d in range(ndim))] = 1

    if ndim == 2:
        t = np.zeros((3, 3), dtype=dtype)
        t[0, :] = 1
        centre_line(t, 0)
        ts = [np.rot90(t, k) for k in range(4)]
    else:
        ts = []
        for ax in range(ndim):
            for side in (0, 2):
                t = np.zeros((3,) * ndim, dtype=dtype)
                t[tuple(side if d == ax else slice(None) for d in range(ndim))] = 1
                centre_line(t, ax)
                ts.append(t)
    cross = np.zeros((3,) * ndim, dtype=dtype)
    for ax in range(ndim):
        centre_line(cross, ax)
    return ts, cross, np.ones((3,) * ndim, dtype=dtype)


def _support(points, normals):
    """max over `points` of n . p, for each normal."""
    return (normals @ np.asarray(points, float).T).max(axis=1)


def _minkowski(a, b):
    pts = (np.asarray(a, float)[:, None, :] + np.asarray(b, float)[None, :, :]).reshape(-1, a.shape[1])
    return np.unique(pts, axis=0)


@functools.lru_cache(maxsize=64)
def _nsphere_counts(radius, ndim):
    """(T repetitions, crosses, boxes) whose sequence covers the pixels of the sphere of radius + 0.5 with the
    fewest differing pixels (ties: the most T elements; see _BOX_FREE). The sequence's footprint is the lattice points of
    the Minkowski sum of the elements' hulls, whose facets are those of the sum with every count positive:
    so each count triple is scored from support values, one interval per line along the last axis."""
    from scipy.spatial import ConvexHull

    ts, cross, box = _elements(ndim, bool)
    verts = lambda fp: np.argwhere(fp) - 1
    t_sum = verts(ts[0])
    for t in ts[1:]:
        t_sum = _minkowski(t_sum, verts(t))
    shapes = (t_sum, verts(cross), verts(box))
    full = _minkowski(_minkowski(t_sum, shapes[1]), shapes[2])
    normals = np.unique(np.round(ConvexHull(full).equations[:, :-1], 12), axis=0)
    h = np.stack([_support(s, normals) for s in shapes])            # (3, facets)
    # lines along the last axis over the other axes' non-negative quadrant (all shapes are symmetric under
    # each axis flip), weighted by the lines they stand for; the sphere's line through q holds the x with
    # x**2 + q <= radius**2 + radius (radius + 0.5 squared, in integers)
    grid = np.stack(np.meshgrid(*[np.arange(radius + 1)] * (ndim - 1), indexing="ij"), -1).reshape(-1, ndim - 1)
    weight = np.prod(np.where(grid > 0, 2, 1), axis=1)
    room = radius * radius + radius - (grid ** 2).sum(1)
    a = np.floor(np.sqrt(np.maximum(room, 0))).astype(np.int64)
    a += (a + 1) ** 2 <= room
    a -= a ** 2 > room
    sphere = np.where(room >= 0, 2 * a + 1, 0)
    nx = normals[:, -1]
    proj = grid @ normals[:, :-1].T                                    # (lines, facets)
    best = None
    for t in range(radius // (2 * ndim) + 1):
        s = np.arange(1 if ndim == 3 and radius in _BOX_FREE else radius - 2 * ndim * t + 1)
        d = radius - 2 * ndim * t - s
        rhs = t * h[0] + d[:, None] * h[1] + s[:, None] * h[2]           # (candidates, facets)
        half = np.full((s.size, grid.shape[0]), np.inf)
        for f in range(normals.shape[0]):
            gap = rhs[:, f:f + 1] - proj[None, :, f]
            if nx[f] > 1e-9:
                np.minimum(half, gap / nx[f], out=half)
            elif abs(nx[f]) <= 1e-9:
                half[gap < -1e-9] = -1.0    # the line misses the shape
        half = np.floor(half + 1e-9)
        count = np.where(half >= 0, 2 * half + 1, 0)
        err = (np.abs(count - sphere) * weight).sum(axis=1)
        for e, si, di in zip(err, s, d):
            key = (e, -t, si)
            if best is None or key < best[0]:
                best = (key, (t, int(di), int(si)))
    return best[1]


def _nsphere_series_decomposition(radius, ndim, dtype=np.uint8):
    """A sequence of 3**ndim elements approximating the disk (2-D) or ball (3-D) of `radius`."""
    if radius == 1:   # the exact (3,) * ndim shape
        return (((disk if ndim == 2 else ball)(1, dtype=dtype, strict_radius=False), 1),)
    if ndim not in _NSPHERE_LIMITS:
        raise ValueError("sequence decompositions are only currently available for 2d disks or 3d balls")
    limit = _NSPHERE_LIMITS[ndim]
    if radius > limit:
        raise ValueError(f"precomputed {ndim}D decomposition unavailable for radius > {limit}")
    if not isinstance(radius, Integral) or radius == limit:
        raise IndexError(f"no {ndim}D decomposition for radius {radius!r}: integers below {limit} only")
    # counts as uint8, the type of scikit-image's table
    n_t, n_cross, n_box = (np.uint8(c) for c in _nsphere_counts(int(radius), ndim))
    ts, cross, box = _elements(ndim, dtype)
    seq = [(t, n_t) for t in ts] if n_t else []
    if n_cross:
        seq.append((cross, n_cross))
    if n_box:
        seq.append((box, n_box))
    return tuple(seq)


def _cross(r0, r1, dtype=np.uint8):
    """A (2 r0 + 1, 2 r1 + 1) cross: the centre row and column."""
    c = np.zeros((int(2 * r0 + 1), int(2 * r1 + 1)), dtype=dtype)
    if r1 != 0:
        c[r0, :] = 1
    if r0 != 0:
        c[:, r1] = 1
    return c


def _cross_decomposition(footprint):
    """A symmetric convex 2-D footprint as a sequence of (uint8) crosses (after Li and Ritter's algorithm 1):
    each drop of the quadrant's column heights becomes a cross of that height drop and width."""
    quadrant = footprint[footprint.shape[0] // 2:, footprint.shape[1] // 2:]
    heights = np.append(quadrant.sum(0, dtype=int), 0)
    counts = {}
    prev = used = 0
    for i in range(heights.size - 1):
        if heights[i] > heights[i + 1] and i > 0:
            key = (int(heights[prev] - heights[i]), i - prev)
            used += key[0]
            counts[key] = counts.get(key, 0) + 1
            prev = i
    rest = quadrant.shape[0] - 1 - used
    if rest > 0:
        counts[(rest, 0)] = counts.get((rest, 0), 0) + 1
    return tuple((_cross(r0, r1), n) for (r0, r1), n in counts.items())


def ellipse(width, height, dtype=np.uint8, *, decomposition=None):
    """Pixels strictly inside the ellipse of semi-axes (height + 1, width + 1) about the centre of a
    (2 height + 1, 2 width + 1) array; 'crosses': cross-shaped elements."""
    if decomposition is None:
        r = (np.arange(2 * height + 1, dtype=float)[:, None] - height) / (height + 1)
        c = (np.arange(2 * width + 1, dtype=float)[None, :] - width) / (width + 1)
        fp = np.zeros((2 * height + 1, 2 * width + 1), dtype=dtype)
        fp[r ** 2 + c ** 2 < 1] = 1
        return fp
    if decomposition == "crosses":
        return _cross_decomposition(ellipse(width, height, dtype))
    raise UnboundLocalError(f"Unrecognized decomposition: {decomposition!r}")   # as scikit-image 0.26


def _hull_mask(shape, points):
    """Pixels of `shape` whose centres lie in (or on) the convex hull of the pixels `points`, each taken as
    the four half-pixel points around it (scikit-image's convex_hull_image)."""
    from scipy.spatial import ConvexHull

    pts = np.asarray(points, float)
    offsets = np.array([[-0.5, 0], [0.5, 0], [0, -0.5], [0, 0.5]])
    pts = np.unique((pts[:, None, :] + offsets).reshape(-1, 2), axis=0)
    eq = ConvexHull(pts).equations
    grid = np.indices(shape).reshape(2, -1).astype(float)
    inside = ((eq[:, :2] @ grid + eq[:, 2:]) < 1e-10).all(axis=0)
    return inside.reshape(shape)


def octagon(m, n, dtype=np.uint8, *, decomposition=None):
    """An octagon with horizontal/vertical sides m and 45-degree sides of height n (extent m + 2 n);
    'sequence': boxes for the sides, then 3x3 crosses."""
    if m == n == 0:
        raise ValueError("m and n cannot both be zero")
    if decomposition is None:
        size, e = m + 2 * n, m + n - 1
        corners = [(0, n), (n, 0), (0, e), (e, 0), (size - 1, n), (n, size - 1), (size - 1, e), (e, size - 1)]
        return _hull_mask((size, size), corners).astype(dtype)
    if decomposition == "sequence":
        if m <= 2 and n <= 2:
            return ((octagon(m, n, dtype=dtype), 1),)
        if m == 0:
            m, n = 2, n - 1
        seq = list(footprint_rectangle((m, m), dtype=dtype, decomposition="sequence")) if m > 1 else []
        if n > 0:
            seq.append((diamond(1, dtype=dtype), n))
        return tuple(seq)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def star(a, dtype=np.uint8):
    """The union of a (2 a + 1) square and its 45-degree rotation, in an array of 2 a + 1 + 2 (a // 2)."""
    if a == 1:
        return np.ones((3, 3), dtype)
    m, n = 2 * a + 1, a // 2
    size = m + 2 * n
    c = (size - 1) // 2
    fp = _hull_mask((size, size), [(0, c), (size - 1, c), (c, 0), (c, size - 1)])
    fp[n:m + n, n:m + n] = True
    return fp.astype(dtype)


def mirror_footprint(footprint):
    """The footprint (or each of a sequence's) reversed along every axis."""
    if _footprint_is_sequence(footprint):
        return tuple((mirror_footprint(fp), n) for fp, n in footprint)
    footprint = np.asarray(_host(footprint))
    return footprint[(slice(None, None, -1),) * footprint.ndim]


def pad_footprint(footprint, *, pad_end=True):
    """The footprint (or each of a sequence's) padded with one zero along each even-sized axis, at the end
    (pad_end) or the front."""
    if _footprint_is_sequence(footprint):
        return tuple((pad_footprint(fp, pad_end=pad_end), n) for fp, n in footprint)
    footprint = np.asarray(_host(footprint))
    pads = [((0, 1) if pad_end else (1, 0)) if s % 2 == 0 else (0, 0) for s in footprint.shape]
    return np.pad(footprint, pads)
