"""skimage.draw's shapes and lines (skimage/draw/draw.py and its Cython _draw.pyx): the rasterisers are
ndimg's C++ (scikit-image's loops step for step, and the fills over the thread pool), so the pixels, their
order and dtypes are scikit-image's. Coordinates come back as NumPy arrays; polygon fills of CuPy vertices,
and set_color on a CuPy image, run on the GPU."""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import check_allocation

_SSIZE_MAX = 2**63 - 1


def _ssize(v):
    """A Python value as Cython's Py_ssize_t argument: integers only (their __index__), within 64 bits."""
    v = operator.index(v)
    if not -_SSIZE_MAX - 1 <= v <= _SSIZE_MAX:
        raise OverflowError("Python int too large to convert to C ssize_t")
    return v


def _int_call(fn, *args):
    """fn(*args) of Py_ssize_t arguments: the core takes exactly the integers _ssize takes (lines are small,
    the call's overhead is their cost), and _ssize names the error of an argument it refuses."""
    try:
        return fn(*args)
    except TypeError:
        for a in args:
            _ssize(a)
        raise


def _c_ssize(x):
    """C's cast of a double to Py_ssize_t as x86-64 makes it: NaN, infinities and values out of range become
    the smallest Py_ssize_t (scikit-image's polygon box then holds no row)."""
    return int(x) if math.isfinite(x) and -2.0**63 <= x < 2.0**63 else -_SSIZE_MAX - 1


def _double(v):
    """A Python value as Cython's double argument (float(), but no parsing of strings)."""
    if isinstance(v, (str, bytes)):
        raise TypeError(f"must be real number, not {type(v).__name__}")
    return float(v)


def _intp(arrays):
    """The core's int64 arrays as NumPy's intp (the same bits; numpy.longlong scalars otherwise, where
    scikit-image's are numpy.int64), float values as they are."""
    return tuple(a.view(np.intp) if a.dtype.kind == "i" else a for a in arrays)


def _coords_inside_image(rr, cc, shape, val=None):
    """The coordinates (and values) of the pixels inside an image of `shape`."""
    mask = (rr >= 0) & (rr < shape[0]) & (cc >= 0) & (cc < shape[1])
    if val is None:
        return rr[mask], cc[mask]
    return rr[mask], cc[mask], val[mask]


def _mask_coords(mask, r0, c0):
    """numpy.nonzero of a uint8 mask plus offsets: int64 rows and columns, in C order."""
    if isinstance(mask, np.ndarray):
        return _intp(_core.draw_mask_coords(mask, r0, c0))
    rr, cc = mask.nonzero()
    return rr + r0, cc + c0


def _ellipse_box(r, c, r_radius, c_radius, shape=None, rotation=0.0):
    """skimage.draw.ellipse's pixels as (upper-left corner, uint8 mask of its bounding box): the box and the
    per-pixel test are scikit-image's (its _ellipse_in_shape), the fill is ndimg's."""
    center = np.array([r, c])
    radii = np.array([r_radius, c_radius])
    rotation %= np.pi
    r_radius_rot = abs(r_radius * np.cos(rotation)) + c_radius * np.sin(rotation)
    c_radius_rot = r_radius * np.sin(rotation) + abs(c_radius * np.cos(rotation))
    radii_rot = np.array([r_radius_rot, c_radius_rot])
    upper_left = np.ceil(center - radii_rot).astype(int)
    lower_right = np.floor(center + radii_rot).astype(int)
    if shape is not None:
        upper_left = np.maximum(upper_left, np.array([0, 0]))
        lower_right = np.minimum(lower_right, np.array(shape[:2]) - 1)
    shifted_center = center - upper_left
    rows, cols = (max(0, int(s)) for s in lower_right - upper_left + 1)
    check_allocation((rows, cols), np.uint8, 16)
    rotation %= np.pi   # again, as _ellipse_in_shape does
    sin_alpha, cos_alpha = np.sin(rotation), np.cos(rotation)
    mask = np.empty((rows, cols), np.uint8)
    _core.draw_ellipse_mask(float(shifted_center[0]), float(shifted_center[1]), float(radii[0]), float(radii[1]),
                            float(sin_alpha), float(cos_alpha), mask)
    return (int(upper_left[0]), int(upper_left[1])), mask


def ellipse(r, c, r_radius, c_radius, shape=None, rotation=0.0):
    """Pixels of the filled ellipse about (r, c) with semi-axes r_radius and c_radius rotated by `rotation`
    (radians, counter-clockwise), within `shape` when given."""
    (r0, c0), mask = _ellipse_box(r, c, r_radius, c_radius, shape, rotation)
    return _mask_coords(mask, r0, c0)


def disk(center, radius, *, shape=None):
    """Pixels of the filled circle of `radius` about `center`, within `shape` when given."""
    r, c = center
    return ellipse(r, c, radius, radius, shape)


def polygon_perimeter(r, c, shape=None, clip=False):
    """Pixels of the polygon's outline (closed), optionally clipped to `shape` (Sutherland-Hodgman, by
    matplotlib as in scikit-image)."""
    from matplotlib import path, transforms

    if clip:
        if shape is None:
            raise ValueError("Must specify clipping shape")
        clip_box = np.array([0, 0, shape[0] - 1, shape[1] - 1])
    else:
        clip_box = np.array([np.min(r), np.min(c), np.max(r), np.max(c)])
    # clipped whether or not `clip` is set: the outline comes back closed, as an array
    poly = path.Path(np.vstack((r, c)).T, closed=True)
    clipped = poly.clip_to_bbox(transforms.Bbox([clip_box[:2], clip_box[2:]])).to_polygons()[0]
    r = np.ascontiguousarray(np.round(clipped[:, 0]).astype(int), np.int64)
    c = np.ascontiguousarray(np.round(clipped[:, 1]).astype(int), np.int64)
    rr, cc = _intp(_core.draw_polyline(r, c))
    if shape is None:
        return rr, cc
    return _coords_inside_image(rr, cc, shape)


@engine_aware("image")
def set_color(image, coords, color, alpha=1):
    """Set the pixels `coords` (rows, columns; those outside the image are skipped) of `image` to `color`,
    blended with the pixels' values by `alpha`, in place."""
    xp = xp_of(image)
    rr, cc = coords
    if xp is not np:
        rr, cc = xp.asarray(rr), xp.asarray(cc)
    if image.ndim == 2:
        image = image[..., np.newaxis]
    color = np.array(color, ndmin=1, copy=None)
    if image.shape[-1] != color.shape[-1]:
        raise ValueError(f'Color shape ({color.shape[0]}) must match last image dimension ({{image.shape[-1]}}).')
    if np.isscalar(alpha):
        alpha = xp.ones_like(rr) * alpha
    elif xp is not np:
        alpha = xp.asarray(alpha)
    rr, cc, alpha = _coords_inside_image(rr, cc, image.shape, val=alpha)
    alpha = alpha[..., np.newaxis]
    color = (color if xp is np else xp.asarray(color)) * alpha
    vals = image[rr, cc] * (1 - alpha)
    image[rr, cc] = vals + color


def line(r0, c0, r1, c1):
    """Pixels of Bresenham's line from (r0, c0) to (r1, c1), both ends included (int64 rows, columns)."""
    return _intp(_int_call(_core.draw_line, r0, c0, r1, c1))


def line_aa(r0, c0, r1, c1):
    """Pixels of Xiaolin Wu's anti-aliased line and their intensities (float64)."""
    return _intp(_int_call(_core.draw_line_aa, r0, c0, r1, c1))


@engine_aware("r", "c")
def polygon(r, c, shape=None):
    """Pixels inside the polygon of vertices (r, c), its outline and vertices included, row by row; within
    `shape` when given (rows and columns below 0 are never returned)."""
    xp = xp_of(r, c)
    (r0, c0), mask = _polygon_mask(r if xp is np else r.get(), c if xp is np else c.get(), shape, xp)
    return _mask_coords(mask, r0, c0)


def _polygon_mask(r, c, shape, xp=np):
    """skimage.draw.polygon's pixels as (upper-left corner, uint8 mask of the box it tests), the mask in
    `xp`'s memory (filled there)."""
    r = np.atleast_1d(r)
    c = np.atleast_1d(c)
    minr, maxr, minc, maxc = _polygon_box(r, c, shape)
    rows, cols = max(0, maxr - minr + 1), max(0, maxc - minc + 1)
    check_allocation((rows, cols), np.uint8, 16)
    mask = xp.zeros((rows, cols), np.uint8)
    _polygon_fill(np.ascontiguousarray(r, "float64"), np.ascontiguousarray(c, "float64"), minr, minc, mask)
    return (minr, minc), mask


def _polygon_box(r, c, shape):
    """skimage's _polygon: the box of rows and columns tested (first row and column never below 0)."""
    minr = _ssize(int(max(0, r.min())))
    maxr = _c_ssize(math.ceil(_double(r.max())) if math.isfinite(_double(r.max())) else math.nan)
    minc = _ssize(int(max(0, c.min())))
    maxc = _c_ssize(math.ceil(_double(c.max())) if math.isfinite(_double(c.max())) else math.nan)
    if shape is not None:
        maxr = min(shape[0] - 1, maxr)
        maxc = min(shape[1] - 1, maxc)
    return minr, maxr, minc, maxc


def _polygon_fill(vr, vc, minr, minc, mask):
    """mask[i, j] = whether pixel (minr + i, minc + j) is in the polygon (pnpoly, as skimage's _polygon)."""
    if vr.ndim != 1 or vc.ndim != 1:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 1, got {max(vr.ndim, vc.ndim)})")
    if vr.shape != vc.shape:
        raise ValueError("polygon: r and c must have the same length")
    _core.draw_polygon_mask(vr, vc, minr, minc, mask, stream=stream_ptr(mask))


def circle_perimeter(r, c, radius, method='bresenham', shape=None):
    """Pixels of the circle's outline: Bresenham's ('bresenham') or Andres' ('andres', no holes between
    concentric circles)."""
    r, c, radius = _ssize(r), _ssize(c), _ssize(radius)
    if method not in ('bresenham', 'andres'):
        raise ValueError('Wrong method')
    rr, cc = _intp(_core.draw_circle_perimeter(radius, method == 'andres'))
    rr += r
    cc += c
    return _coords_inside_image(rr, cc, shape) if shape is not None else (rr, cc)


def circle_perimeter_aa(r, c, radius, shape=None):
    """Pixels of Wu's anti-aliased circle outline and their intensities."""
    r, c, radius = _ssize(r), _ssize(c), _ssize(radius)
    rr, cc, val = _intp(_core.draw_circle_perimeter_aa(radius))
    rr += r
    cc += c
    return _coords_inside_image(rr, cc, shape, val=val) if shape is not None else (rr, cc, val)


def ellipse_perimeter(r, c, r_radius, c_radius, orientation=0, shape=None):
    """Pixels of the ellipse's outline (rational Bezier quadrants when rotated by `orientation`)."""
    r, c, r_radius, c_radius = _ssize(r), _ssize(c), _ssize(r_radius), _ssize(c_radius)
    orientation = _double(orientation)
    if r_radius == 0 and c_radius == 0:  # the centre (0-d arrays, as scikit-image)
        return np.array(r), np.array(c)
    rr, cc = _intp(_core.draw_ellipse_perimeter(r, c, r_radius, c_radius, orientation))
    return _coords_inside_image(rr, cc, shape) if shape is not None else (rr, cc)


def bezier_curve(r0, c0, r1, c1, r2, c2, weight, shape=None):
    """Pixels of the rational quadratic Bezier curve through control points 0 and 2, pulled to point 1 by
    `weight`."""
    pts = [_ssize(v) for v in (r0, c0, r1, c1, r2, c2)]
    rr, cc = _intp(_core.draw_bezier_curve(*pts, _double(weight)))
    return _coords_inside_image(rr, cc, shape) if shape is not None else (rr, cc)


def rectangle(start, end=None, extent=None, shape=None):
    """Coordinates of the pixels of an n-D box (a meshgrid: rows vary along the second axis in 2-D)."""
    tl, br = _rectangle_slice(start=start, end=end, extent=extent)
    if shape is not None:
        n_dim = len(start)
        br = np.minimum(shape[0:n_dim], br)
        tl = np.maximum(np.zeros_like(shape[0:n_dim]), tl)
    return np.meshgrid(*[np.arange(st, en) for st, en in zip(tuple(tl), tuple(br))])


def rectangle_perimeter(start, end=None, extent=None, shape=None, clip=False):
    """Pixels of the outline one pixel outside the box from `start` to `end` (or of `extent`)."""
    top_left, bottom_right = _rectangle_slice(start=start, end=end, extent=extent)
    top_left -= 1
    r = [top_left[0], top_left[0], bottom_right[0], bottom_right[0], top_left[0]]
    c = [top_left[1], bottom_right[1], bottom_right[1], top_left[1], top_left[1]]
    return polygon_perimeter(r, c, shape=shape, clip=clip)


def _rectangle_slice(start, end=None, extent=None):
    """The box's (top-left, bottom-right exclusive) integer corners."""
    if end is None and extent is None:
        raise ValueError("Either `end` or `extent` must be given.")
    if end is not None and extent is not None:
        raise ValueError("Cannot provide both `end` and `extent`.")
    if extent is not None:
        end = np.asarray(start) + np.asarray(extent)
    top_left = np.round(np.minimum(start, end)).astype(int)
    bottom_right = np.round(np.maximum(start, end)).astype(int)
    if extent is None:
        bottom_right += 1
    return top_left, bottom_right
