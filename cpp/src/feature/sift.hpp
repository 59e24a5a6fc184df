// SIFT (skimage.feature.SIFT): a scale-space element's extremum test and one keypoint's descriptor histograms,
// written once for both engines; the schedules' declarations. The entries are in sift.cpp.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/feature_kp.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

// The element at `p` of a (scales, rows, cols) stack with scale and row strides `ss`, `rs` (elements), not on
// its border: scikit-image's test (see sift_extrema).
template <class T>
NDIMG_HD bool sift_is_extremum(const T* p, int64_t ss, int64_t rs, double threshold) {
  const T v = *p;
  if (std::fabs(double(v)) < threshold) return false;
  bool below = false, reached = false;   // some neighbour <= v; some neighbour >= v (NaNs are neither)
  for (int64_t ds = -1; ds <= 1; ++ds)
    for (int64_t dr = -1; dr <= 1; ++dr)
      for (int64_t dc = -1; dc <= 1; ++dc) {
        if (ds == 0 && dr == 0 && dc == 0) continue;
        const T n = p[ds * ss + dr * rs + dc];
        below = below || n <= v;
        reached = reached || n >= v;
      }
  return !below || !reached;
}

// One keypoint's descriptor patch: the pixels (row, col) of rows [r0, r1) and columns [c0, c1) whose offsets
// from the centre (cr, cc), rotated by the angle of cosine ca and sine sa, lie strictly within `rad` on both
// axes, in row-major order; emit(row, col, r_norm, c_norm) for each. The offsets in T, each operation rounded
// as NumPy's (the row minus the centre, then ca * dr + sa * dc and -sa * dr + ca * dc).
template <class T, class Emit>
NDIMG_HD void sift_patch(int64_t r0, int64_t r1, int64_t c0, int64_t c1, T cr, T cc, T ca, T sa, T rad,
                         Emit&& emit) {
  for (int64_t row = r0; row < r1; ++row) {
    const T dr = sub_rn(T(row), cr);
    for (int64_t col = c0; col < c1; ++col) {
      const T dc = sub_rn(T(col), cc);
      const T rn = add_rn(mul_rn(ca, dr), mul_rn(sa, dc));
      const T cn = add_rn(mul_rn(-sa, dr), mul_rn(ca, dc));
      if (std::fabs(rn) < rad && std::fabs(cn) < rad) emit(row, col, rn, cn);
    }
  }
}

// One keypoint: `n` pixels of (row, col, direction, magnitude) into its (n_hist, n_hist, n_ori) histogram.
// scikit-image's operand order and precision: T throughout, each product and sum rounded on its own; the
// nearest orientation bin is the first smallest distance upward (wrapped by one turn), and a pixel whose
// direction compares with nothing (NaN) keeps the previous pixel's bin at distance 100, as its loop does.
template <class T>
NDIMG_HD void sift_descriptor_hist(const T* pix, int64_t n, const T* rc_bins, T spacing, const T* ori_bins,
                                   int64_t n_hist, int64_t n_ori, T* hist) {
  const T two_pi = T(2 * 3.14159265358979323846);
  const T inv = T(1) / spacing;
  const T norm1 = T(double(n_ori) / (2 * 3.14159265358979323846));
  int64_t k = 0;
  for (int64_t p = 0; p < n; ++p) {
    const T r_norm = pix[4 * p], c_norm = pix[4 * p + 1], theta = pix[4 * p + 2], mag = pix[4 * p + 3];
    T best = T(100);
    for (int64_t j = 0; j < n_ori; ++j) {
      T d = sub_rn(ori_bins[j], theta);
      if (d > two_pi) d = sub_rn(d, two_pi);
      else if (d < T(0)) d = add_rn(d, two_pi);
      if (d < best) {
        k = j;
        best = d;
      }
    }
    const int64_t k2 = k + 1 == n_ori ? 0 : k + 1;
    for (int64_t r = 0; r < n_hist; ++r) {
      const T dr = std::fabs(sub_rn(rc_bins[r], r_norm));
      if (dr > spacing) continue;
      const T wr = sub_rn(T(1), mul_rn(inv, dr));
      for (int64_t c = 0; c < n_hist; ++c) {
        const T dc = std::fabs(sub_rn(rc_bins[c], c_norm));
        if (dc > spacing) continue;
        const T w0 = mul_rn(mul_rn(wr, sub_rn(T(1), mul_rn(inv, dc))), mag);
        const T w1 = mul_rn(mul_rn(w0, norm1), best);
        const T w2 = sub_rn(w0, w1);
        T* cell = hist + (r * n_hist + c) * n_ori;
        cell[k] = add_rn(cell[k], w1);
        cell[k2] = add_rn(cell[k2], w2);
      }
    }
  }
}

void sift_extrema_cpu(const View& dog, double threshold, const View& mask);
void sift_patches_cpu(const View& g_row, const View& g_col, const View& geometry, const View& bounds,
                      const View& starts, const View& pixels);
void sift_descriptor_histograms_cpu(const View& pixels, const View& starts, const View& rc_bins, const View& spacing,
                                    const View& ori_bins, const View& hist);
#ifdef NDIMG_WITH_CUDA
void sift_extrema_cuda(const View& dog, double threshold, const View& mask, StreamHandle stream);
void sift_patches_cuda(const View& g_row, const View& g_col, const View& geometry, const View& bounds,
                       const View& starts, const View& pixels, StreamHandle stream);
void sift_descriptor_histograms_cuda(const View& pixels, const View& starts, const View& rc_bins,
                                     const View& spacing, const View& ori_bins, const View& hist, StreamHandle stream);
#endif

}  // namespace ndimg::feature
