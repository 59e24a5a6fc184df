// ndimg::feature derivative features and peak selection — the per-pixel parts of skimage.feature's
// hessian_matrix_eigvals / structure_tensor_eigenvalues, hessian_matrix_det (SURF's box filters) and the
// greedy minimum-distance selection of peak_local_max / corner_peaks.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::feature {

// Largest matrix size whose eigenvalues are computed per pixel here (larger ones: LAPACK from Python).
constexpr int kMaxSymDim = 4;

// Eigenvalues, in decreasing order, of the symmetric n x n matrix of each pixel whose upper triangle
// (row-major: S00, S01, ..., S11, ...) is `elems` (n(n+1)/2 C-contiguous float arrays of one dtype and
// shape). `out`: C-contiguous, shape (n, *elems' shape), the elements' dtype. n is 2 when 3 elements are
// given, else their dimensionality (1 to kMaxSymDim).
void sym_eigvals(std::span<const View> elems, const View& out, StreamHandle stream = nullptr);

// The approximate determinant of the Hessian at scale `sigma` of each pixel of a 2-D image from its
// (float64, C-contiguous) integral image, by SURF's box filters (skimage's _hessian_matrix_det). `out`:
// float64 or float32, C-contiguous, the integral image's shape.
void hessian_det_box(const View& integral, const View& out, double sigma, StreamHandle stream = nullptr);

// multiscale_basic_features' features of 2-D smoothed images (host; C-contiguous float32/float64 of one
// dtype and shape, each axis at least 2 long): for each image in order, its value (`intensity`), Sobel's
// gradient magnitude (`edges`) and the two decreasing eigenvalues of its np.gradient Hessian (`texture`),
// written side by side into features first, first + 1, ... of `out` (h, w, features), C-contiguous, the
// images' dtype.
void basic_features_2d(std::span<const View> smooth, const View& out, int64_t first, bool intensity, bool edges,
                       bool texture);

// Greedy minimum-distance selection (host): the points `coords` ((k, d) int64, C-contiguous, best first)
// are taken in order, each kept unless a kept point lies within `spacing` of it in the Minkowski `p_norm`
// distance (closer than `spacing`, or also at exactly `spacing` with `inclusive`); stops once `max_out`
// points are kept (max_out < 0: no limit). keep: (k,) bool, written. Returns the number kept.
int64_t ensure_spacing(const View& coords, const View& keep, double spacing, double p_norm, bool inclusive,
                       int64_t max_out);

}  // namespace ndimg::feature
