"""The per-pixel kernels of skimage.feature (``cpp/src/feature``: canny.hpp, texture.hpp) on 2-D images, on
the array's engine. Inputs are made C-contiguous here; outputs are new arrays of the input's library."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr, xp_of


def gradient_magnitude(gi, gj):
    """sqrt(gi * gi + gj * gj) of 2-D float gradients, each operation rounded in their dtype as NumPy's."""
    xp = xp_of(gi)
    gi, gj = xp.ascontiguousarray(gi), xp.ascontiguousarray(gj)
    out = xp.empty(gi.shape, gi.dtype)
    _core.gradient_magnitude(gi, gj, out, stream=stream_ptr(out))
    return out


def canny_suppress(gi, gj, magnitude, mask, *, low, high):
    """Canny's non-maximum suppression of ``magnitude`` (gradient_magnitude of the gradients ``gi``, ``gj``)
    where ``mask`` (bool or uint8) is set: uint8, 0 suppressed, 1 a local maximum with magnitude >= ``low``,
    2 also >= ``high`` (both compared in double)."""
    xp = xp_of(gi)
    out = xp.empty(gi.shape, np.uint8)
    _core.canny_suppress(xp.ascontiguousarray(gi), xp.ascontiguousarray(gj), xp.ascontiguousarray(magnitude),
                         xp.ascontiguousarray(mask), float(low), float(high), out, stream=stream_ptr(out))
    return out


def canny_hysteresis(classes):
    """The candidates of canny_suppress's ``classes`` (a host array) 8-connected to a strong one, as bool."""
    out = np.empty(classes.shape, bool)
    _core.canny_hysteresis(np.ascontiguousarray(classes), out)
    return out


def local_binary_pattern(image, *, rp, cp, method):
    """Local binary patterns (float64) of a float64 image at the circle offsets ``rp``, ``cp`` (host
    sequences); ``method`` one of 'default', 'ror', 'uniform', 'nri_uniform', 'var'."""
    xp = xp_of(image)
    out = xp.empty(image.shape, np.float64)
    _core.local_binary_pattern(xp.ascontiguousarray(image), [float(v) for v in rp], [float(v) for v in cp],
                               getattr(_core.LbpMethod, method), out, stream=stream_ptr(out))
    return out


def corner_fast(image, *, n, threshold):
    """FAST corner response of a float32/float64 image, in its dtype."""
    xp = xp_of(image)
    out = xp.empty(image.shape, image.dtype)
    _core.corner_fast(xp.ascontiguousarray(image), int(n), float(threshold), out, stream=stream_ptr(out))
    return out


def corner_moravec(image, *, window_size):
    """Moravec corner response of a float32/float64 image, in its dtype."""
    xp = xp_of(image)
    out = xp.empty(image.shape, image.dtype)
    _core.corner_moravec(xp.ascontiguousarray(image), int(window_size), out, stream=stream_ptr(out))
    return out


def steered_pair_tests(image, keypoints, sin, cos, pairs):
    """(n, m) bool: for each keypoint (int64 (n, 2) rows and columns) and pair ((m, 4) offsets a0 b0 a1 b1),
    image[p0] < image[p1], the offsets rotated by the keypoint's sine and cosine as scikit-image's ORB loop
    rotates them (rows kr + round(sin a + cos b), columns kc + round(cos a - sin b), in the image's float
    type); flat indices past the image clamped to it. sin, cos and pairs in the image's dtype."""
    xp = xp_of(image)
    ft = image.dtype
    out = xp.empty((len(keypoints), len(pairs)), dtype=bool)
    _core.steered_pair_tests(xp.ascontiguousarray(image), xp.ascontiguousarray(keypoints, dtype=np.int64),
                             xp.ascontiguousarray(sin, dtype=ft), xp.ascontiguousarray(cos, dtype=ft),
                             xp.ascontiguousarray(pairs, dtype=ft), out, stream=stream_ptr(out))
    return out


def corner_orientations(image, corners, mask):
    """Orientations (image's dtype) of the int64 (n, 2) ``corners`` of a float32/float64 image over the odd
    ``mask`` (uint8), the image zero-padded as scikit-image pads it (corners kept within that padding)."""
    xp = xp_of(image)
    out = xp.empty(len(corners), image.dtype)
    _core.corner_orientations(xp.ascontiguousarray(image), xp.ascontiguousarray(corners, dtype=np.int64),
                              xp.ascontiguousarray(mask, dtype=np.uint8), out, stream=stream_ptr(out))
    return out
