// ndimg::feature keypoints — the per-pixel and per-keypoint parts of skimage.feature's keypoint detectors and
// descriptors (SIFT's scale-space extrema and gradient-orientation histograms), on either engine.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::feature {

// SIFT's scale-space extrema (skimage.feature.SIFT's _local_max): `dog` is a C-contiguous float32 or float64
// (scales, rows, cols) stack; `mask` (uint8, its shape, C-contiguous) gets 1 at every interior element whose
// magnitude is not below `threshold` (compared in double) and that passes scikit-image's test against its 26
// neighbours: none is <= it, or none is >= it (NaNs compare false: a NaN centre passes, NaN neighbours are
// ignored); 0 elsewhere (the border elements included).
void sift_extrema(const View& dog, double threshold, const View& mask, StreamHandle stream = nullptr);

// SIFT's descriptor patches (skimage.feature.SIFT._compute_descriptor's pixel selection): for keypoint k,
// `geometry[k]` = (centre row, centre col, cos, sin, radius) in the gradients' float type and `bounds[k]` =
// (scale, first row, end row, first col, end col) as int64. Its pixels are those of the box whose offsets from
// the centre, rotated (cos * dr + sin * dc, -sin * dr + cos * dc, each operation rounded in the float type),
// are below the radius in magnitude on both axes, in row-major order. With `pixels` empty (0 rows) the call
// counts them: `starts` (int64, K + 1) gets 0 and then each keypoint's count. Otherwise `starts` holds the
// running totals of those counts (each keypoint's first pixel, then the total) and `pixels` (total, 4) gets per pixel (rotated row, rotated col, g_row, g_col) at [scale, row, col] of the
// C-contiguous (scales, rows, cols) gradients.
void sift_patches(const View& g_row, const View& g_col, const View& geometry, const View& bounds,
                  const View& starts, const View& pixels, StreamHandle stream = nullptr);

// SIFT's descriptor histograms (skimage.feature.SIFT's _ori_distances and _update_histogram, Otero et al. eq.
// 28). `pixels` is a C-contiguous float32 or float64 (P, 4) array of the patch pixels of all keypoints, keypoint
// after keypoint: (row, col) in the keypoint's rotated frame, gradient direction relative to the keypoint's
// orientation (radians) and weighted magnitude. `starts` (int64, K + 1) delimits each keypoint's pixels;
// `rc_bins` (K, n_hist) holds its spatial bin centres along either axis and `spacing` (K) their spacing;
// `ori_bins` (n_ori) the orientation bin angles. `hist` (K, n_hist, n_hist, n_ori), zeroed by the caller, gets
// each pixel's magnitude spread over the (up to 2 x 2) spatial bins within `spacing` of it, bilinearly, and over
// the two orientation bins around its direction; every sum in the arrays' type, pixels in the order given (the
// CPU and CUDA results are equal, and equal to scikit-image's loop).
void sift_descriptor_histograms(const View& pixels, const View& starts, const View& rc_bins, const View& spacing,
                                const View& ori_bins, const View& hist, StreamHandle stream = nullptr);

}  // namespace ndimg::feature
