"""skimage.feature.CENSURE (0.26): centre-surround extrema of bi-level filters (boxes, octagons or stars) over
a stack of scales, on the image's engine. The box filters are inclusion-exclusion sums of the zero-bordered
integral image (the same float sums as scikit-image's loop), the octagon and star filters ndimg's convolve,
the 3x3x3 extrema ndimg's minimum/maximum filters and the line test ndimg's structure tensor."""
from __future__ import annotations

import numpy as np

from .._engine import CUDA, engine_for, from_working, to_working
from .._rules import check_nD
from ..morphology import octagon, star
from ..ndimage import convolve, maximum_filter, minimum_filter
from ..transform._integral import integral_image
from ._brief import _mask_border_keypoints
from ._corner_cy import _grayscale_2d
from ._deriv import structure_tensor

# scikit-image's filter sizes: the paper's seven octagons (later scales extrapolated) and OpenCV's stars
OCTAGON_OUTER_SHAPE = [(5, 2), (5, 3), (7, 3), (9, 4), (9, 7), (13, 7), (15, 10), (15, 11), (15, 12), (17, 13),
                       (17, 14)]
OCTAGON_INNER_SHAPE = [(3, 0), (3, 1), (3, 2), (5, 2), (5, 3), (5, 4), (5, 5), (7, 5), (7, 6), (9, 6), (9, 7)]
STAR_SHAPE = [1, 2, 3, 4, 6, 8, 11, 12, 16, 22, 23, 32, 45, 46, 64, 90, 128]
STAR_FILTER_SHAPE = [(1, 0), (3, 1), (4, 2), (5, 3), (7, 4), (8, 5), (9, 6), (11, 8), (13, 10), (14, 11), (15, 12),
                     (16, 14)]


def _keypoint_input(image, name):
    """(the call's engine, the image as its working array) for a keypoint class's method `name`; Dask arrays are
    refused (keypoints depend on the whole image)."""
    if type(image).__module__.startswith("dask"):
        raise NotImplementedError(f"ndimg.feature.{name} does not take Dask arrays: its result depends on the whole "
                                  "image and it has no chunk-correct implementation yet; compute() the array first")
    call = engine_for(image)
    return call, to_working(image, call.library) if call.engine == CUDA else np.asarray(image)


def _octagon_kernel(mo, no, mi, ni):
    outer = (mo + 2 * no) ** 2 - 2 * no * (no + 1)
    inner = (mi + 2 * ni) ** 2 - 2 * ni * (ni + 1)
    outer_weight = 1.0 / (outer - inner)
    inner_weight = 1.0 / inner
    c = ((mo + 2 * no) - (mi + 2 * ni)) // 2
    outer_oct = octagon(mo, no)
    inner_oct = np.zeros((mo + 2 * no, mo + 2 * no))
    inner_oct[c:-c, c:-c] = octagon(mi, ni)
    return outer_weight * outer_oct - (outer_weight + inner_weight) * inner_oct


def _star_kernel(m, n):
    c = m + m // 2 - n - n // 2
    outer_star = star(m)
    inner_star = np.zeros_like(outer_star)
    inner_star[c:-c, c:-c] = star(n)
    outer_weight = 1.0 / (np.sum(outer_star - inner_star))
    inner_weight = 1.0 / np.sum(inner_star)
    return outer_weight * outer_star - (outer_weight + inner_weight) * inner_star


def _padded_integral(image, xp):
    """The float64 integral image with a zero row and column before it (box corners at -1 read 0)."""
    padded = xp.zeros((image.shape[0] + 1, image.shape[1] + 1), dtype=np.float64)
    padded[1:, 1:] = integral_image.__wrapped_impl__(image.astype(np.float64))
    return padded


def _box_response(padded, n, xp):
    """The difference of boxes of half-sides n and 2n (DC-free weights), zero within 2n of the border, from the
    image's _padded_integral."""
    rows, cols = padded.shape[0] - 1, padded.shape[1] - 1
    n2 = 2 * n
    out = xp.zeros((rows, cols), dtype=np.float64)
    if rows <= 2 * n2 or cols <= 2 * n2:
        return out

    def corners(h):
        lo_r, hi_r = n2 - h, rows - n2 - h       # rows i - h - 1 (+1 for the pad), i over [n2, rows - n2)
        lo_c, hi_c = n2 - h, cols - n2 - h
        up_r, up_c = n2 + h + 1, n2 + h + 1
        br = padded[up_r:up_r + hi_r - lo_r, up_c:up_c + hi_c - lo_c]
        tl = padded[lo_r:hi_r, lo_c:hi_c]
        bl = padded[up_r:up_r + hi_r - lo_r, lo_c:hi_c]
        tr = padded[lo_r:hi_r, up_c:up_c + hi_c - lo_c]
        return br + tl - bl - tr

    inner_weight = 1.0 / (2 * n + 1) ** 2
    outer_weight = 1.0 / (12 * n ** 2 + 4 * n)
    out[n2:rows - n2, n2:cols - n2] = outer_weight * corners(n2) - (inner_weight + outer_weight) * corners(n)
    return out


def _filter_image(image, min_scale, max_scale, mode, xp):
    """(scales, rows, cols) float64 responses of the bi-level filters of scales min_scale..max_scale (scikit-image
    stacks them last; first, each image is contiguous for the extrema filters)."""
    layers = []
    # scipy's convolve of float32 sums in float64 and stores float32: the same through a float64 image
    wide = image.astype(np.float64)
    padded = _padded_integral(image, xp) if mode == 'dob' else None   # once for every scale
    for s in range(min_scale, max_scale + 1):
        if mode == 'dob':
            layers.append(_box_response(padded, s, xp))
            continue
        if mode == 'octagon':
            kernel = _octagon_kernel(*OCTAGON_OUTER_SHAPE[s - 1], *OCTAGON_INNER_SHAPE[s - 1])
        else:
            kernel = _star_kernel(STAR_SHAPE[STAR_FILTER_SHAPE[s - 1][0]], STAR_SHAPE[STAR_FILTER_SHAPE[s - 1][1]])
        layers.append(convolve(wide, kernel).astype(image.dtype).astype(np.float64))
    return xp.stack(layers)


class CENSURE:
    """CENSURE keypoint detector (skimage.feature.CENSURE): extrema over 3x3x3 neighbourhoods of a stack of
    bi-level filter responses ('DoB' boxes, 'Octagon' or 'STAR'), kept above `non_max_threshold` and below the
    `line_threshold` ratio of principal curvatures, from scales min_scale + 1 to max_scale - 1. ``keypoints``
    ((N, 2) rows and columns) and ``scales`` come back as the image's array type."""

    def __init__(self, min_scale=1, max_scale=7, mode='DoB', non_max_threshold=0.15, line_threshold=10):
        mode = mode.lower()
        if mode not in ('dob', 'octagon', 'star'):
            raise ValueError("`mode` must be one of 'DoB', 'Octagon', 'STAR'.")
        if min_scale < 1 or max_scale < 1 or max_scale - min_scale < 2:
            raise ValueError('The scales must be >= 1 and the number of scales should be >= 3.')
        self.min_scale = min_scale
        self.max_scale = max_scale
        self.mode = mode
        self.non_max_threshold = non_max_threshold
        self.line_threshold = line_threshold
        self.keypoints = None
        self.scales = None

    def detect(self, image):
        """Detect the keypoints of a 2-D image and their scales."""
        call, image = _keypoint_input(image, "CENSURE.detect")
        xp = call.xp
        check_nD(image, 2)
        num_scales = self.max_scale - self.min_scale
        image = xp.ascontiguousarray(_grayscale_2d(image))
        if self.mode != 'dob' and self.max_scale > len(OCTAGON_OUTER_SHAPE if self.mode == 'octagon'
                                                        else STAR_FILTER_SHAPE):
            raise IndexError('list index out of range')   # scikit-image's tables end there
        response = _filter_image(image, self.min_scale, self.max_scale, self.mode, xp)
        mask = (minimum_filter(response, (3, 3, 3)) == response) | (maximum_filter(response, (3, 3, 3)) == response)
        mask &= ~(response < self.non_max_threshold)
        for i in range(1, num_scales):
            # sigma = (window - 1) / 6 of the window 7 + 2 (scale - 1): the window holds > 99% of the kernel
            arr, arc, acc = structure_tensor(image, 1 + (self.min_scale + i - 1) / 3.0, order='rc')
            mask[i] &= ~((arr + acc) ** 2 > self.line_threshold * (arr * acc - arc ** 2))
        rows, cols, scales = xp.nonzero(xp.moveaxis(mask[1:num_scales], 0, -1))
        keypoints = xp.stack([rows, cols], axis=1).astype(np.intp)
        scales = (scales + self.min_scale + 1).astype(np.intp)
        if self.mode != 'dob':
            keep = xp.zeros(keypoints.shape[0], dtype=bool)
            for s in range(self.min_scale + 1, self.max_scale):
                if self.mode == 'octagon':
                    c = (OCTAGON_OUTER_SHAPE[s - 1][0] - 1) // 2 + OCTAGON_OUTER_SHAPE[s - 1][1]
                else:
                    m = STAR_SHAPE[STAR_FILTER_SHAPE[s - 1][0]]
                    c = m + m // 2
                keep |= _mask_border_keypoints(image.shape, keypoints, c) & (scales == s)
            keypoints, scales = keypoints[keep], scales[keep]
        self.keypoints = from_working(keypoints, call.library)
        self.scales = from_working(scales, call.library)
