// ndimg::segmentation SLIC superpixels: scikit-image 0.26's k-means loop and its connectivity pass with its
// arithmetic, so the labels equal its labels. The image is (Z, Y, X, C) and already scaled. The per-voxel
// math is here for both engines; slic.cpp validates and routes the k-means loop (the connectivity pass is
// host only).
#pragma once
#include <cfloat>
#include <cstdint>
#include <span>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::segmentation {

// Runs up to max_num_iter SLIC iterations in place on `segments` ((N, 3 + C), the image's float type:
// z, y, x, then the colour of each centre) and writes each voxel's segment + start_label to `labels`
// ((Z, Y, X) int64, filled by the caller with start_label - 1). Each voxel takes, among the centres whose
// window (2 * step_axis around the centre) holds it, the first of least distance in centre order; the
// distances are skimage's (spacing-weighted squared offsets times 1 / (step * step) with step rounded to
// float32, plus the colour distance unless ignore_color, divided by the centre's largest one in SLIC-zero).
// mask ((Z, Y, X) uint8) is read when use_mask. grid_steps: the seeds' steps along z, y, x. All arrays on
// one device.
void slic_iterate(const View& image, const View& mask, bool use_mask, const View& segments, double step,
                  std::span<const int64_t> grid_steps, int64_t max_num_iter, std::span<const double> spacing,
                  bool slic_zero, int64_t start_label, bool ignore_color, const View& labels,
                  StreamHandle stream = nullptr);

// scikit-image's _enforce_label_connectivity_cython: connected pieces (6-connectivity) relabelled in raster
// order from start_label; a piece smaller than min_size joins the last labelled piece it touches (breadth
// first search stopped at max_size voxels). labels and out are (Z, Y, X) int64.
void slic_enforce_connectivity(const View& labels, int64_t min_size, int64_t max_size, int64_t start_label,
                               const View& out);

// ---- engine schedules of slic_iterate (arguments validated by the entry; image and segments not empty) ----
void slic_iterate_cpu(const View& image, const View& mask, bool use_mask, const View& segments, double step,
                      std::span<const int64_t> grid_steps, int64_t max_num_iter, std::span<const double> spacing,
                      bool slic_zero, int64_t start_label, bool ignore_color, const View& labels);
#ifdef NDIMG_WITH_CUDA
void slic_iterate_cuda(const View& image, const View& mask, bool use_mask, const View& segments, double step,
                       std::span<const int64_t> grid_steps, int64_t max_num_iter, std::span<const double> spacing,
                       bool slic_zero, int64_t start_label, bool ignore_color, const View& labels,
                       StreamHandle stream);
#endif

// ---- the math, shared by both engines ----
namespace slic_math {

// A centre's window [lo, hi) along each axis; ok is false for a NaN centre (an empty segment).
struct Win {
  int64_t z0, z1, y0, y1, x0, x1;
  bool ok;
};

// The window along one axis as skimage's Cython computes it in the image's type (max/min of the float
// bounds, truncated); a NaN centre has none.
template <class T>
NDIMG_HD bool window(T c, int64_t s, int64_t n, int64_t& lo, int64_t& hi) {
  T a = c - T(2 * s);
  a = T(0) > a ? T(0) : a;
  T b = c + T(2 * s) + T(1);
  b = T(n) < b ? T(n) : b;
  if (a != a || b != b) return false;
  lo = int64_t(a);
  hi = int64_t(b);
  return true;
}

template <class T>
NDIMG_HD Win centre_window(const T* s, const int64_t* gs, int64_t D, int64_t H, int64_t W) {
  Win w{};
  w.ok = window(s[0], gs[0], D, w.z0, w.z1) & window(s[1], gs[1], H, w.y0, w.y1) & window(s[2], gs[2], W, w.x0, w.x1);
  return w;
}

// The squared spatial offset along one axis, weighted by its spacing: (sp * (c - v))^2.
template <class T>
NDIMG_HD T axis_term(T sp, T c, T v) {
  return square_rn(mul_rn(sp, sub_rn(c, v)));
}

// The spatial part of the distance: ((dz^2 + dy^2) + dx^2) / step^2 (sw = 1 / step^2), skimage's order.
template <class T>
NDIMG_HD T spatial_distance(T zy, T dx2, T sw) {
  return mul_rn(add_rn(zy, dx2), sw);
}

// The colour distance of a voxel (C >= 1 values, pstep apart) to the centre's colour (C values), summed from
// channel 0 as skimage sums it from 0 (0 + t * t is t * t).
template <class T>
NDIMG_HD T colour_distance(const T* p, int64_t pstep, const T* centre, int64_t C) {
  T dc = square_rn(sub_rn(p[0], centre[0]));
  for (int64_t c = 1; c < C; ++c) dc = add_rn(dc, square_rn(sub_rn(p[c * pstep], centre[c])));
  return dc;
}

}  // namespace slic_math
}  // namespace ndimg::segmentation
