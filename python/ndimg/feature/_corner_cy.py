"""skimage.feature's corner detectors that are not built on the structure tensor: the Moravec and FAST
responses (C++ kernels, cpp/src/feature/texture.hpp), corner orientations by intensity centroid, and
Förstner's sub-pixel corner positions, each written over xp for all the corners at once.
"""
from __future__ import annotations

import operator

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim import feature as _feature
from .._rules import array_argument, as_image, check_nD, img_as_float, supported_float_type
from ..filters._window import _as_int as safe_as_int
from ..ndimage import correlate1d
from ..ndimage._footprint import to_host


def _float_image(image):
    """img_as_float in scikit-image's float type (float16 -> float32)."""
    image = img_as_float(image)
    return image.astype(supported_float_type(image.dtype), copy=False)


def _grayscale_2d(image):
    """scikit-image's _prepare_grayscale_input_2D: squeezed, 2-D, as float."""
    image = as_image(image)
    image = image.reshape(tuple(n for n in image.shape if n != 1))
    check_nD(image, 2)
    return _float_image(image)


def _signed_char(value):
    """A Python number as Cython passes it to a signed char: truncated, OverflowError outside [-128, 127]."""
    value = int(value) if isinstance(value, (float, np.floating)) else operator.index(value)
    if not -128 <= value <= 127:
        raise OverflowError("value too large to convert to signed char")
    return value


@engine_aware("image")
def corner_moravec(image, window_size=1):
    """Moravec corner response of a 2-D image (skimage.feature.corner_moravec)."""
    image = _float_image(as_image(image))
    if image.ndim != 2:
        raise TypeError("No matching signature found")
    window_size = operator.index(window_size)
    if window_size < 0:
        raise ValueError("window_size must be non-negative (scikit-image reads outside the image)")
    return _feature.corner_moravec(image, window_size=window_size)


@engine_aware("image")
def corner_fast(image, n=12, threshold=0.15):
    """FAST corner response of a 2-D image (skimage.feature.corner_fast)."""
    image = _grayscale_2d(image)
    return _feature.corner_fast(image, n=_signed_char(n), threshold=float(threshold))


def _corner_indices(corners):
    """Corner coordinates as scikit-image's Py_ssize_t[:, :] memoryview takes them, on the host."""
    if not hasattr(corners, "dtype"):
        raise TypeError(f"a bytes-like object is required, not {type(corners).__name__!r}")
    if corners.dtype != np.intp:
        raise ValueError(f"Buffer dtype mismatch, expected 'Py_ssize_t' but got {corners.dtype.name!r}")
    if corners.ndim != 2:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 2, got {corners.ndim})")
    return to_host(corners)


@engine_aware("image", "corners")
def corner_orientations(image, corners, mask):
    """Orientation in [-pi, pi] of each corner (row, col): the angle to the intensity centroid of the
    neighbourhood `mask` (odd shape) around it (skimage.feature.corner_orientations). As there, the image is
    zero-padded by (rows // 2, cols // 2) of the mask on each axis; a neighbourhood reaching past that
    padding raises IndexError (scikit-image reads past the array)."""
    image = _grayscale_2d(image)
    if not image.flags.c_contiguous:   # scikit-image's C-contiguous memoryview
        raise ValueError("ndarray is not C-contiguous")
    xp = xp_of(image)
    corners = _corner_indices(corners)
    mask = to_host(mask)
    if mask.shape[0] % 2 != 1 or mask.shape[1] % 2 != 1:
        raise ValueError("Size of mask must be uneven.")
    mrows, mcols = mask.shape[:2]
    mr2, mc2 = (mrows - 1) // 2, (mcols - 1) // 2
    padded_shape = tuple(n + mr2 + mc2 for n in image.shape)   # np.pad(image, (mr2, mc2)): both axes alike
    if len(corners) == 0:
        return xp.zeros(0, image.dtype)
    r0, c0 = corners[:, 0], corners[:, 1]
    if (r0.min() < 0 or c0.min() < 0 or r0.max() + mrows > padded_shape[0]
            or c0.max() + mcols > padded_shape[1]):
        raise IndexError("corner_orientations: a corner's neighbourhood reaches outside the zero-padded image")
    return _feature.corner_orientations(image, xp.asarray(corners), xp.asarray((mask != 0).astype(np.uint8)))


def _window_starts(centres, wext, n):
    """Start rows (or columns) of scikit-image's windows image[c - wext - 1 : c + wext + 2] as NumPy's slicing
    resolves them, and each window's length (short where the slice leaves the image)."""
    starts, lengths = [], []
    for c in centres.tolist():
        start, stop, _ = slice(c - wext - 1, c + wext + 2).indices(n)
        starts.append(start)
        lengths.append(max(0, stop - start))
    return np.array(starts, dtype=np.intp), np.array(lengths)


def _solve2(a, b, c, d, e, f, xp):
    """x of [[a, b], [c, d]] x = [e, f] for arrays of 2x2 systems, by LU with partial pivoting as LAPACK
    factors them; NaN where a pivot is zero (numpy.linalg.solve's LinAlgError)."""
    swap = xp.abs(c) > xp.abs(a)
    p, q, r, s = xp.where(swap, c, a), xp.where(swap, d, b), xp.where(swap, a, c), xp.where(swap, b, d)
    u, v = xp.where(swap, f, e), xp.where(swap, e, f)
    singular = p == 0
    p = xp.where(singular, xp.ones((), p.dtype), p)
    low = r / p
    s = s - low * q
    v = v - low * u
    singular |= s == 0
    s = xp.where(singular, xp.ones((), s.dtype), s)
    x1 = v / s
    x0 = (u - q * x1) / p
    return x0, x1, singular


@engine_aware("image")
def corner_subpix(image, corners, window_size=11, alpha=0.99):
    """Sub-pixel corner positions (skimage.feature.corner_subpix): Förstner's dot/edge classification of
    each window, NaN where neither or the system is singular."""
    from scipy import stats

    image = array_argument(image)
    xp = xp_of(image)
    wext = (window_size - 1) // 2
    float_dtype = supported_float_type(image.dtype)
    padded = xp.pad(image.astype(float_dtype, copy=False), pad_width=wext, mode="constant", constant_values=0)
    corners = to_host(corners) if hasattr(corners, "dtype") else corners
    corners = safe_as_int(corners + wext)
    redundancy = window_size ** 2 - 2
    t_crit_dot = stats.f.isf(1 - alpha, redundancy, redundancy)
    t_crit_edge = stats.f.isf(alpha, redundancy, redundancy)
    side = 2 * wext + 1
    out = xp.zeros(corners.shape, dtype=float_dtype)
    if len(corners) == 0:
        out -= wext
        return out
    ys, hs = _window_starts(corners[:, 0], wext, padded.shape[0])
    xs, ws = _window_starts(corners[:, 1], wext, padded.shape[1])
    short = (hs != side + 2) | (ws != side + 2)
    if short.any():
        i = int(np.argmax(short))
        raise ValueError(f"operands could not be broadcast together with shapes ({max(hs[i] - 2, 0)},"
                         f"{max(ws[i] - 2, 0)}) ({side},{side}) ")
    rows = xp.asarray(ys[:, None] + np.arange(side + 2))[:, :, None]
    cols = xp.asarray(xs[:, None] + np.arange(side + 2))[:, None, :]
    window = padded[rows, cols]
    # scipy's Sobel of each window (mode 'constant'): the difference along one axis, then the smoothing along
    # the other, each pass rounded to the float type; the frame, which the mode affects, is dropped
    winy = correlate1d(correlate1d(window, [-1, 0, 1], axis=1, mode="constant"), [1, 2, 1], axis=2, mode="constant")
    winx = correlate1d(correlate1d(window, [-1, 0, 1], axis=2, mode="constant"), [1, 2, 1], axis=1, mode="constant")
    inner = (slice(None), slice(1, -1), slice(1, -1))
    xx, xy, yy = (winx * winx)[inner], (winx * winy)[inner], (winy * winy)[inner]
    y, x = (xp.asarray(g) for g in np.mgrid[-wext:wext + 1, -wext:wext + 1])

    def total(a):
        return xp.sum(a, axis=(1, 2))

    Axx, Axy, Ayy = total(xx), total(xy), total(yy)
    bxx_x, bxx_y, bxy_x, bxy_y, byy_x, byy_y = (total(xx * x), total(xx * y), total(xy * x), total(xy * y),
                                                total(yy * x), total(yy * y))
    cast = lambda a: a.astype(float_dtype)  # noqa: E731 - scikit-image's normal equations are float_dtype arrays
    dot_y, dot_x, dot_singular = _solve2(Axx, -Axy, -Axy, Ayy, cast(bxx_y - bxy_x), cast(byy_x - bxy_y), xp)
    edge_y, edge_x, edge_singular = _solve2(Ayy, Axy, Axy, Axx, cast(byy_y + bxy_x), cast(bxx_x + bxy_y), xp)

    def residual_var(est_y, est_x, sign):
        ry, rx = y - est_y[:, None, None], x - est_x[:, None, None]
        if sign < 0:
            return total(xx * (ry * ry) - 2 * xy * (rx * ry) + yy * (rx * rx))
        return total(yy * (ry * ry) + 2 * xy * (rx * ry) + xx * (rx * rx))

    var_dot = residual_var(dot_y, dot_x, -1)
    var_edge = residual_var(edge_y, edge_x, 1)
    tiny = np.spacing(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = xp.where((var_dot < tiny) & (var_edge < tiny), np.nan,
                     xp.where(var_dot == 0, np.inf, var_edge / var_dot))
    corner_class = (t < t_crit_edge).astype(np.int8) - (t > t_crit_dot).astype(np.int8)
    y0 = xp.asarray(corners[:, 0]).astype(np.float64)
    x0 = xp.asarray(corners[:, 1]).astype(np.float64)
    nan = xp.full(y0.shape, np.nan)
    pick = lambda dot, edge: xp.where(corner_class == -1, dot, xp.where(corner_class == 1, edge, nan))  # noqa: E731
    out[:, 0] = pick(y0 + dot_y.astype(np.float64), y0 + edge_y.astype(np.float64))
    out[:, 1] = pick(x0 + dot_x.astype(np.float64), x0 + edge_x.astype(np.float64))
    out[dot_singular | edge_singular] = np.nan
    out -= wext
    return out
