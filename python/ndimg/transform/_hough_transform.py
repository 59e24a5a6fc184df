"""Hough transforms (skimage.transform.hough_transform): the votes are cast by the proj family
(cpp/src/proj) on the input's engine; peak picking is scikit-image's non-maximum suppression over
ndimg.ndimage and ndimg.measure. hough_ellipse and probabilistic_hough_line are searches over the host
(no CUDA engine yet)."""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, host_only, is_gpu_array, stream_ptr, xp_of
from .._rules import check_allocation
from ..ndimage._footprint import to_host


def _typed_image(image):
    """scikit-image's Cython entries take only arrays: anything else is its TypeError."""
    if not isinstance(image, np.ndarray) and not is_gpu_array(image):
        raise TypeError(f"Argument 'img' has incorrect type (expected numpy.ndarray, got {type(image).__name__})")


def _points(image):
    """The (row, column) indices of the nonzero pixels, in numpy.nonzero's order, as contiguous int64."""
    xp = xp_of(image)
    if xp is np and image.ndim == 2 and image.dtype.isnative and (image.dtype.kind in "biu" or image.dtype.char in "fd"):
        # on the CPU engine's threads (a NumPy array of a dtype the core reads)
        n = int(np.count_nonzero(image))
        ys, xs = np.empty(n, np.int64), np.empty(n, np.int64)
        _core.proj_nonzero(image, ys, xs)
        return ys, xs
    ys, xs = xp.nonzero(image)
    return xp.ascontiguousarray(ys, dtype=np.int64), xp.ascontiguousarray(xs, dtype=np.int64)


def _angles(theta):
    """theta as scikit-image's Cython loops take it (a 1-D float64 array) and its cosines and sines."""
    if theta is None:
        theta = np.linspace(-np.pi / 2, np.pi / 2, 180, endpoint=False)
    if not isinstance(theta, np.ndarray) and not is_gpu_array(theta):
        raise TypeError(f"Argument 'theta' has incorrect type (expected numpy.ndarray, got {type(theta).__name__})")
    t = to_host(theta)
    if t.dtype != np.float64:
        raise ValueError(f"Buffer dtype mismatch, expected 'float64_t' but got '{t.dtype}'")
    if t.ndim != 1:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 1, got {t.ndim})")
    return theta, np.cos(t), np.sin(t)


@engine_aware("image")
def hough_line(image, theta=None):
    """Straight-line Hough transform of the nonzero pixels of a 2-D image: (accumulator (P, Q) uint64,
    angles, distances), the distance of a pixel being round(x cos(theta) + y sin(theta))."""
    if image.ndim != 2:
        raise ValueError("The input image `image` must be 2D.")
    theta, c, s = _angles(theta)
    xp = xp_of(image)
    offset = math.ceil(math.sqrt(float(image.shape[0] * image.shape[0] + image.shape[1] * image.shape[1])))
    accum = xp.zeros((2 * offset + 1, len(c)), dtype=np.uint64)
    ys, xs = _points(image)
    if ys.size:
        _core.proj_hough_line(ys, xs, c.tolist(), s.tolist(), offset, accum, stream=stream_ptr(accum))
    bins = xp.linspace(-offset, offset, 2 * offset + 1)
    return accum, (xp.asarray(theta) if xp is not np else theta), bins


@engine_aware("image")
def probabilistic_hough_line(image, threshold=10, line_length=50, line_gap=10, theta=None, rng=None):
    """Line segments ((x0, y0), (x1, y1)) of scikit-image's progressive probabilistic Hough transform; the
    pixels are visited in the order numpy.random.default_rng(rng) shuffles them, as there."""
    host_only("probabilistic_hough_line", image)
    if image.ndim != 2:
        raise ValueError("The input image `image` must be 2D.")
    threshold, line_length, line_gap = (operator.index(v) for v in (threshold, line_length, line_gap))
    theta, c, s = _angles(theta)
    ys, xs = _points(image)
    order = np.arange(len(ys), dtype=np.intp)
    np.random.default_rng(rng).shuffle(order)
    flat = _core.proj_probabilistic_hough_line(ys, xs, order.astype(np.int64), image.shape[0], image.shape[1],
                                               threshold, line_length, line_gap, c.tolist(), s.tolist())
    ends = iter(flat)
    return [((x0, y0), (x1, y1)) for x0, y0, x1, y1 in zip(ends, ends, ends, ends)]


@engine_aware("image")
def hough_circle(image, radius, normalize=True, full_output=False):
    """Circular Hough transform: (len(radius), M + 2R, N + 2R) float64, each nonzero pixel voting along
    Bresenham's circle of each radius (1 / its pixel count per vote with `normalize`); R is the largest
    radius with `full_output`, else 0."""
    radius = np.atleast_1d(to_host(radius)).astype(np.intp)
    _typed_image(image)
    if radius.ndim != 1:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 1, got {radius.ndim})")
    if image.ndim != 2:
        raise ValueError("The input image must be 2D.")
    shift = int(radius.max()) if full_output else 0
    shape = (radius.size, image.shape[0] + 2 * shift, image.shape[1] + 2 * shift)
    if min(shape[1:]) < 0:
        raise ValueError("negative dimensions are not allowed")
    check_allocation(shape, np.float64)
    if radius.size and np.abs(radius).max() > 2 * max(image.shape) + 2 * abs(shift):
        # a circle that cannot touch the output casts no vote; its perimeter is not worth walking
        radius = np.where(np.abs(radius) > 2 * max(image.shape) + 2 * abs(shift), -1, radius)
    xp = xp_of(image)
    out = xp.zeros(shape, dtype=np.float64)
    ys, xs = _points(image)
    if ys.size:
        _core.proj_hough_circle(ys, xs, radius.astype(np.int64).tolist(), shift, bool(normalize), out,
                                stream=stream_ptr(out))
    return out


@engine_aware("image")
def hough_ellipse(image, threshold=4, accuracy=1, min_size=4, max_size=None):
    """Elliptical Hough transform (Xie and Ji): a structured array of (accumulator, yc, xc, a, b,
    orientation) in scikit-image's order."""
    host_only("hough_ellipse", image)
    _typed_image(image)
    threshold, min_size = operator.index(threshold), operator.index(min_size)
    accuracy = float(accuracy)
    if image.ndim != 2:
        raise ValueError("The input image must be 2D.")
    if not np.any(image):
        return np.zeros((0, 6))
    if max_size is None:
        half = float(np.round(0.5 * min(image.shape)))
        max_b_squared = half * half
    else:
        max_b_squared = float(max_size * max_size)
    ys, xs = _points(image)
    flat = np.asarray(_core.proj_hough_ellipse(ys, xs, threshold, accuracy, min_size, max_b_squared),
                      dtype=np.float64).reshape(-1, 6)
    out = np.zeros(len(flat), dtype=[("accumulator", np.intp), ("yc", np.float64), ("xc", np.float64),
                                     ("a", np.float64), ("b", np.float64), ("orientation", np.float64)])
    for i, name in enumerate(out.dtype.names):
        out[name] = flat[:, i]
    return out


def _prominent_peaks(image, min_xdistance=1, min_ydistance=1, threshold=None, num_peaks=np.inf):
    """scikit-image's feature.peak._prominent_peaks: (intensities, x indices, y indices) of the peaks of a
    2-D array after non-maximum suppression, strongest first; NumPy arrays (the peak walk is on the host)."""
    from .. import measure, ndimage

    xp = xp_of(image)
    img = image.copy()
    rows, cols = img.shape
    if threshold is None:
        threshold = 0.5 * (xp.max(img) if xp is np else xp.max(img).item())
    img_max = ndimage.maximum_filter1d(img, size=2 * min_ydistance + 1, axis=0, mode="constant", cval=0)
    img_max = ndimage.maximum_filter1d(img_max, size=2 * min_xdistance + 1, axis=1, mode="constant", cval=0)
    img *= img == img_max
    labels = measure.label(img > threshold)
    n = int(labels.max()) if labels.size else 0
    if n:
        flat = labels.ravel()
        count = xp.bincount(flat, minlength=n + 1)[1:]
        r, c = xp.divmod(xp.arange(flat.size, dtype=np.int64), cols)
        cy = xp.bincount(flat, weights=r, minlength=n + 1)[1:] / count
        cx = xp.bincount(flat, weights=c, minlength=n + 1)[1:] / count
        top = ndimage.maximum(img_max, labels, xp.arange(1, n + 1))
        top, cy, cx = (v.get() if xp is not np else np.asarray(v) for v in (top, cy, cx))
        # strongest first; among equals the later label first (a reversed stable sort, as scikit-image's)
        order = np.argsort(np.asarray(top), kind="stable")[::-1]
        coords = np.stack([np.round(cy[order]), np.round(cx[order])], axis=1).astype(int)
    else:
        coords = np.zeros((0, 2), dtype=int)
    host_max = img_max.get() if xp is not np else img_max
    ext_y, ext_x = np.mgrid[-min_ydistance:min_ydistance + 1, -min_xdistance:min_xdistance + 1]
    peaks, ys, xs = [], [], []
    for y, x in coords:
        accum = host_max[y, x]
        if not accum > threshold:
            continue
        ny, nx = y + ext_y, x + ext_x
        inside = (ny > 0) & (ny < rows)   # scikit-image leaves row 0 unsuppressed
        ny, nx = ny[inside], nx[inside]
        # angles wrap around: a column off either side continues on the other, the rows mirrored
        low = nx < 0
        ny[low] = rows - ny[low]
        nx[low] += cols
        high = nx >= cols
        ny[high] = rows - ny[high]
        nx[high] -= cols
        host_max[ny, nx] = 0
        peaks.append(accum)
        ys.append(y)
        xs.append(x)
    peaks, ys, xs = np.array(peaks), np.array(ys), np.array(xs)
    if num_peaks < len(peaks):
        keep = np.argsort(peaks)[::-1][:num_peaks]
        peaks, ys, xs = peaks[keep], ys[keep], xs[keep]
    return peaks, xs, ys


def _like(a, ref):
    """Host result `a` as an array of `ref`'s library."""
    return xp_of(ref).asarray(a) if is_gpu_array(ref) else a


@engine_aware("hspace")  # angles and distances are parameters: NumPy or the accumulator's library
def hough_line_peaks(hspace, angles, dists, min_distance=9, min_angle=10, threshold=None, num_peaks=np.inf):
    """The most prominent lines of a hough_line accumulator: (peak values, their angles, their distances)."""
    min_angle = min(min_angle, hspace.shape[1])
    h, a, d = _prominent_peaks(hspace, min_xdistance=min_angle, min_ydistance=min_distance, threshold=threshold,
                               num_peaks=num_peaks)
    if a.size > 0:
        return _like(h, hspace), _like(to_host(angles)[a], hspace), _like(to_host(dists)[d], hspace)
    return _like(h, hspace), _like(np.array([]), hspace), _like(np.array([]), hspace)


@engine_aware("hspaces")
def hough_circle_peaks(hspaces, radii, min_xdistance=1, min_ydistance=1, threshold=None, num_peaks=np.inf,
                       total_num_peaks=np.inf, normalize=False):
    """The most prominent circles of hough_circle accumulators: (peak values, centre columns, centre rows,
    radii), strongest first; centres closer than the minimum distances keep only the strongest."""
    r, cx, cy, accum = [], [], [], []
    for rad, hp in zip(radii, hspaces):
        h_p, x_p, y_p = _prominent_peaks(hp, min_xdistance=min_xdistance, min_ydistance=min_ydistance,
                                         threshold=threshold, num_peaks=num_peaks)
        r.extend((rad,) * len(h_p))
        cx.extend(x_p)
        cy.extend(y_p)
        accum.extend(h_p)
    r, cx, cy, accum = (np.array([v.item() if is_gpu_array(v) else v for v in a]) for a in (r, cx, cy, accum))
    s = np.argsort(accum / r) if normalize else np.argsort(accum)
    accum, cx, cy, r = accum[s][::-1], cx[s][::-1], cy[s][::-1], r[s][::-1]
    tnp = len(accum) if total_num_peaks == np.inf else total_num_peaks
    if (min_xdistance == 1 and min_ydistance == 1) or len(accum) == 0:
        keep = slice(None, tnp)
    else:
        keep = _distant_points(cx, cy, min_xdistance, min_ydistance, tnp)
    return tuple(_like(v[keep], hspaces) for v in (accum, cx, cy, r))


def _distant_points(xs, ys, min_xdistance, min_ydistance, max_points):
    """The mask of points kept when each, in order, removes the later points within the minimum distances
    of it on both axes (at most max_points kept)."""
    from scipy.spatial import cKDTree

    removed = np.zeros(len(xs), dtype=bool)
    tree = cKDTree(np.stack([xs, ys], axis=1))
    kept = 0
    for i in range(len(xs)):
        if kept >= max_points:
            removed[i] = True
            continue
        if removed[i]:
            continue
        for j in tree.query_ball_point((xs[i], ys[i]), np.hypot(min_xdistance, min_ydistance)):
            if j > i and abs(xs[j] - xs[i]) <= min_xdistance and abs(ys[j] - ys[i]) <= min_ydistance:
                removed[j] = True
        kept += 1
    return ~removed
