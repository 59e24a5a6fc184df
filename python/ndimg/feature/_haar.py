"""skimage.feature's Haar-like features (0.26): haar_like_feature_coord, haar_like_feature (the rectangle
sums on the integral image's engine, cpp/src/feature/haar.*) and draw_haar_like_feature."""
from __future__ import annotations

import gc
import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import img_as_float

FEATURE_TYPE = ('type-2-x', 'type-2-y', 'type-3-x', 'type-3-y', 'type-4')
_N_RECT = {'type-2-x': 2, 'type-2-y': 2, 'type-3-x': 3, 'type-3-y': 3, 'type-4': 4}


def _validate_feature_type(feature_type):
    if feature_type is None:
        return FEATURE_TYPE
    feature_type_ = [feature_type] if isinstance(feature_type, str) else feature_type
    for feat_t in feature_type_:
        if feat_t not in FEATURE_TYPE:
            raise ValueError(f'The given feature type is unknown. Got {feat_t} instead of one of {FEATURE_TYPE}.')
    return feature_type_


def _window(width, height, feature_type):
    """(type index for the core, height, width) of one feature type's window (a negative size holds none)."""
    return FEATURE_TYPE.index(feature_type), max(0, operator.index(height)), max(0, operator.index(width))


def _count(width, height, feature_type):
    return _core.haar_feature_count(*_window(width, height, feature_type))


def haar_like_feature_coord(width, height, feature_type=None):
    """The coordinates and types of every Haar-like feature of a (height, width) window
    (skimage.feature.haar_like_feature_coord): object arrays, as scikit-image returns them."""
    feature_type_ = _validate_feature_type(feature_type)
    counts = [_count(width, height, t) for t in feature_type_]
    coords, types = np.empty(sum(counts), dtype=object), np.empty(sum(counts), dtype=object)
    start = 0
    # the result is ~10^5-10^6 new lists, none in a cycle: with the collector running, their allocation keeps
    # triggering collections that only re-scan them (40% of the time); it is paused and restored as found
    collecting = gc.isenabled()
    gc.disable()
    try:
        for feat_t, n in zip(feature_type_, counts):
            rects = np.empty((n, _N_RECT[feat_t], 4), np.int64)
            _core.haar_rects(*_window(width, height, feat_t), rects)
            _core.haar_coord_objects(rects, coords[start:start + n])
            types[start:start + n] = feat_t
            start += n
    finally:
        if collecting:
            gc.enable()
    return coords, types


def _given_rects(feature_coord, n_rect):
    """Rectangles (n, n_rect, 4) int64 of features given as scikit-image's coordinates."""
    rects = np.array(list(feature_coord), dtype=np.int64) if len(feature_coord) else np.zeros((0, n_rect, 2, 2))
    if rects.ndim != 4 or rects.shape[2:] != (2, 2) or rects.shape[1] < n_rect:
        raise IndexError('feature coordinates must hold [(r0, c0), (r1, c1)] for each rectangle of their type')
    return np.ascontiguousarray(rects[:, :n_rect].reshape(len(rects), n_rect, 4), dtype=np.int64)


def _features(window, rects, xp):
    """The features of `rects` (host int64) on the integral-image window (a working array)."""
    if len(rects) and (rects.min() < 0 or rects[..., 2].max() >= window.shape[0]
                       or rects[..., 3].max() >= window.shape[1]):
        # scikit-image reads past its window copy here (undefined values or a crash)
        raise ValueError(f'a feature rectangle lies outside the {window.shape} detection window')
    out = xp.empty(len(rects), dtype=window.dtype if window.dtype.kind == 'f' else np.int64)
    if len(rects):
        _core.haar_features(window, xp.asarray(rects), out, stream=stream_ptr(window))
    return out


@engine_aware("int_image")
def haar_like_feature(int_image, r, c, width, height, feature_type=None, feature_coord=None):
    """Haar-like features of the (height, width) window at (r, c) of an integral image
    (skimage.feature.haar_like_feature): for each feature, the sums of its odd rectangles minus those of its
    even ones, in the integral image's type (int64 for integer images)."""
    xp = xp_of(int_image)
    if not hasattr(int_image, 'ndim') or int_image.ndim == 0 or int_image.dtype.kind not in 'biuf' or int_image.dtype == np.float16:
        raise TypeError('No matching signature found')   # scikit-image's Cython signatures
    if int_image.ndim != 2:
        raise ValueError(f'Buffer has wrong number of dimensions (expected 2, got {int_image.ndim})')
    window = int_image[r:r + height, c:c + width]
    if feature_coord is None:
        feature_type_ = _validate_feature_type(feature_type)
        counts = [_count(width, height, t) for t in feature_type_]
        if not any(counts):
            raise ValueError('need at least one array to concatenate')
        if window.shape != (height, width):
            # scikit-image reads past its window copy here (undefined values or a crash)
            raise ValueError(f'a feature rectangle lies outside the {window.shape} detection window')
        out = xp.empty(sum(counts), dtype=window.dtype if window.dtype.kind == 'f' else np.int64)
        start = 0
        for t, n in zip(feature_type_, counts):
            if n:
                _core.haar_window_features(window, FEATURE_TYPE.index(t), out[start:start + n], stream=stream_ptr(window))
            start += n
        return out
    if feature_coord.shape[0] != feature_type.shape[0]:
        raise ValueError("Inconsistent size between feature coordinatesand feature types.")
    feature_type = np.asarray(feature_type)
    idx, vals = [], []
    for feat_t in FEATURE_TYPE:
        sel = np.flatnonzero(feature_type == feat_t)
        if sel.size:
            idx.append(sel)
            vals.append(_features(window, _given_rects(feature_coord[sel], _N_RECT[feat_t]), xp))
    if not idx:
        raise ValueError('not enough values to unpack (expected 2, got 0)')
    # each type's values to its features' places, as scikit-image scatters them (types it does not know
    # leave the result shorter, or an index past its end)
    out = xp.concatenate(vals)
    out[xp.asarray(np.concatenate(idx))] = out.copy()
    return out


def _rgb_float_copy(image, xp):
    """The RGB float copy of `image` that scikit-image's feature drawings blend into (grey images by gray2rgb)."""
    from ..color._colorconv import gray2rgb

    return img_as_float(gray2rgb(image) if len(image.shape) < 3 else xp.array(image, copy=True))


@engine_aware("image")
def draw_haar_like_feature(image, r, c, width, height, feature_coord, color_positive_block=(1.0, 0.0, 0.0),
                           color_negative_block=(0.0, 1.0, 0.0), alpha=0.5, max_n_features=None, rng=None):
    """The image (as RGB floats) with the rectangles of Haar-like features blended in: odd rectangles in
    `color_positive_block`, even ones in `color_negative_block` (skimage.feature.draw_haar_like_feature)."""
    from ..draw import rectangle

    xp = xp_of(image)
    rng = np.random.default_rng(rng)
    color_positive_block = np.asarray(color_positive_block, dtype=np.float64)
    color_negative_block = np.asarray(color_negative_block, dtype=np.float64)
    if max_n_features is None:
        feature_coord_ = feature_coord
    else:
        feature_coord_ = rng.choice(feature_coord, size=max_n_features, replace=False)
    output = _rgb_float_copy(image, xp)
    pos, neg = xp.asarray(color_positive_block), xp.asarray(color_negative_block)
    for coord in feature_coord_:
        for idx_rect, rect in enumerate(coord):
            (r0, c0), (r1, c1) = rect
            rr, cc = rectangle((r0 + r, c0 + c), (r1 + r, c1 + c))
            for axis, idx in enumerate((rr, cc)):   # NumPy's IndexError: CuPy's fancy indexing wraps instead
                bad = idx[(idx >= output.shape[axis]) | (idx < -output.shape[axis])]
                if bad.size:
                    raise IndexError(f"index {bad[0]} is out of bounds for axis {axis} with size {output.shape[axis]}")
            rr, cc = xp.asarray(rr), xp.asarray(cc)
            color = pos if (idx_rect + 1) % 2 == 0 else neg
            output[rr, cc] = (1 - alpha) * output[rr, cc] + alpha * color
    return output
