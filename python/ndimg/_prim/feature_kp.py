"""The per-pixel and per-keypoint kernels of skimage.feature's keypoint detectors and descriptors
(``cpp/src/feature/sift.hpp``), on the arrays' engine. Inputs are made C-contiguous here; outputs are new arrays of the input's library."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr, xp_of


def sift_extrema(dog, *, threshold):
    """uint8 mask of a (scales, rows, cols) float stack: 1 at the interior elements of magnitude at least
    ``threshold`` strictly below or strictly above their 26 neighbours (scikit-image's test: NaN centres pass,
    NaN neighbours are ignored), 0 elsewhere."""
    xp = xp_of(dog)
    mask = xp.empty(dog.shape, np.uint8)
    _core.sift_extrema(xp.ascontiguousarray(dog), float(threshold), mask, stream=stream_ptr(mask))
    return mask


def sift_patches(g_row, g_col, geometry, bounds):
    """SIFT's descriptor patch pixels of K keypoints: ``geometry`` (K, 5) = centre row, centre col, cos, sin,
    radius (the gradients' float dtype), ``bounds`` (K, 5) int64 = scale, row range, column range of its box in
    the (scales, rows, cols) gradients. Returns ``starts`` (K + 1, keypoint k's pixels at starts[k]:starts[k + 1])
    and the (P, 4) pixels (rotated row, rotated col, g_row, g_col), row-major within each keypoint."""
    xp = xp_of(g_row)
    dtype = g_row.dtype
    g_row, g_col = xp.ascontiguousarray(g_row), xp.ascontiguousarray(g_col)
    geometry = xp.ascontiguousarray(geometry, dtype=dtype)
    bounds = xp.ascontiguousarray(bounds, dtype=np.int64)
    starts = xp.empty(geometry.shape[0] + 1, np.int64)
    _core.sift_patches(g_row, g_col, geometry, bounds, starts, xp.empty((0, 4), dtype), stream=stream_ptr(starts))
    starts = xp.cumsum(starts)
    pixels = xp.empty((int(starts[-1]), 4), dtype)
    if pixels.shape[0]:
        _core.sift_patches(g_row, g_col, geometry, bounds, starts, pixels, stream=stream_ptr(pixels))
    return starts, pixels


def sift_descriptor_histograms(pixels, starts, rc_bins, spacing, ori_bins, *, n_hist, n_ori):
    """SIFT's (K, n_hist, n_hist, n_ori) descriptor histograms from the (P, 4) float patch pixels (rotated row,
    rotated column, relative direction, weighted magnitude) of K keypoints, keypoint i's pixels at
    ``starts[i]:starts[i + 1]``; ``rc_bins`` (K, n_hist), ``spacing`` (K,) and ``ori_bins`` (n_ori,) in the
    pixels' dtype. Sums in that dtype, pixels in order (scikit-image's)."""
    xp = xp_of(pixels)
    dtype = pixels.dtype
    hist = xp.zeros((len(spacing), n_hist, n_hist, n_ori), dtype=dtype)
    _core.sift_descriptor_histograms(xp.ascontiguousarray(pixels), xp.ascontiguousarray(starts, dtype=np.int64),
                                     xp.ascontiguousarray(rc_bins, dtype=dtype),
                                     xp.ascontiguousarray(spacing, dtype=dtype),
                                     xp.ascontiguousarray(ori_bins, dtype=dtype), hist, stream=stream_ptr(hist))
    return hist
