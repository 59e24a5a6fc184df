// HOG (skimage.feature.hog): a pixel's gradient and orientation bin, a cell's histogram and a block's
// normalisation, written once for both engines; the schedules' declarations. The entries are in hog.cpp.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/feature_desc.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

template <class T>
NDIMG_HD T hog_hypot(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return hypotf(a, b);
  else return ::hypot(a, b);
#else
  return std::hypot(a, b);
#endif
}

// numpy's arctan2(g_row, g_col) * (180 / pi) % 180: fmod keeps the dividend's sign, Python's % the
// divisor's (a zero remainder is +0).
NDIMG_HD double hog_orientation(double g_row, double g_col) {
#if defined(__CUDA_ARCH__)
  const double x = mul_rn(::atan2(g_row, g_col), 180.0 / 3.141592653589793);
  double m = ::fmod(x, 180.0);
#else
  const double x = std::atan2(g_row, g_col) * (180.0 / 3.141592653589793);
  double m = std::fmod(x, 180.0);
#endif
  if (m < 0) m = add_rn(m, 180.0);
  else if (m == 0) m = 0.0;
  return m;
}

// Whether orientation `ori` falls in bin o of n: bins [180 / n * o, 180 / n * (o + 1)) in double; a pixel is
// skipped where ori >= start or ori < end (so a NaN orientation counts in every bin).
NDIMG_HD bool hog_in_bin(double ori, int64_t o, int64_t n) {
  const double per_bin = 180.0 / double(n);
  return !(ori >= mul_rn(per_bin, double(o + 1)) || ori < mul_rn(per_bin, double(o)));
}

// The gradient (g_row, g_col) of pixel (r, c) of a (rows, cols, nch) image: central differences in T, 0 on
// the first and last row (column); with several channels, the one of the largest hypot(g_row, g_col) in T,
// the first of equals (numpy's argmax, NaN counting as the largest).
template <class T>
NDIMG_HD void hog_gradient(const T* img, int64_t rows, int64_t cols, int64_t nch, int64_t r, int64_t c, T& g_row,
                           T& g_col) {
  const T* px = img + (r * cols + c) * nch;
  const int64_t rs = cols * nch;
  const bool edge_r = r == 0 || r == rows - 1, edge_c = c == 0 || c == cols - 1;
  T best = T(0);
  for (int64_t k = 0; k < nch; ++k) {
    const T a = edge_r ? T(0) : sub_rn(px[rs + k], px[k - rs]);
    const T b = edge_c ? T(0) : sub_rn(px[nch + k], px[k - nch]);
    if (nch == 1) {
      g_row = a;
      g_col = b;
      return;
    }
    const T m = hog_hypot(a, b);
    if (k == 0 || (best == best && (m > best || m != m))) {
      best = m;
      g_row = a;
      g_col = b;
    }
  }
}

// The histogram h[0, n) of cell (yi, xi): each pixel's magnitude hypot(g_col, g_row) (double) added to the
// bins of its orientation, the running sums rounded to float32 after each addition as scikit-image's float
// accumulator (h holds them as doubles), then divided by the cell's area in float32.
template <class T>
NDIMG_HD void hog_cell(const T* img, int64_t rows, int64_t cols, int64_t nch, int64_t cell_rows, int64_t cell_cols,
                       int64_t yi, int64_t xi, int64_t n, double* h) {
  for (int64_t o = 0; o < n; ++o) h[o] = 0.0;
  const int64_t r0 = yi * cell_rows, c0 = xi * cell_cols;
  for (int64_t r = r0; r < r0 + cell_rows && r < rows; ++r)
    for (int64_t c = c0; c < c0 + cell_cols && c < cols; ++c) {
      T gr = T(0), gc = T(0);
      hog_gradient(img, rows, cols, nch, r, c, gr, gc);
      const double mag = hog_hypot(double(gc), double(gr));
      const double ori = hog_orientation(double(gr), double(gc));
      for (int64_t o = 0; o < n; ++o)
        if (hog_in_bin(ori, o, n)) h[o] = static_cast<float>(add_rn(h[o], mag));
    }
  const float area = static_cast<float>(int(cell_rows * cell_cols));
  for (int64_t o = 0; o < n; ++o) h[o] = static_cast<float>(h[o]) / area;
}

// Block (r, c) of `hist` (cells (n_cells_col, n) per row) normalised into out[0, br * bc * n), in double,
// the block's sum taken in index order.
template <class T>
NDIMG_HD void hog_block(const double* hist, int64_t n_cells_col, int64_t n, int64_t br, int64_t bc, int64_t r,
                        int64_t c, HogNorm norm, T* out) {
  constexpr double eps = 1e-5, eps2 = 1e-5 * 1e-5;
  const bool l1 = norm == HogNorm::L1 || norm == HogNorm::L1Sqrt;
  double s = 0.0;
  for (int64_t i = 0; i < br; ++i)
    for (int64_t k = 0; k < bc * n; ++k) {
      const double v = hist[((r + i) * n_cells_col + c) * n + k];
      s = add_rn(s, l1 ? (v < 0 ? -v : v) : square_rn(v));
    }
  const double d = l1 ? add_rn(s, eps) : std::sqrt(add_rn(s, eps2));
  double s2 = 0.0;
  int64_t at = 0;
  for (int64_t i = 0; i < br; ++i)
    for (int64_t k = 0; k < bc * n; ++k, ++at) {
      const double q = hist[((r + i) * n_cells_col + c) * n + k] / d;
      if (norm == HogNorm::L2Hys) {
        const double w = q > 0.2 ? 0.2 : q;  // np.minimum(q, 0.2): NaN stays NaN
        s2 = add_rn(s2, square_rn(w));
        out[at] = T(w);  // overwritten below
      } else {
        out[at] = T(norm == HogNorm::L1Sqrt ? std::sqrt(q) : q);
      }
    }
  if (norm != HogNorm::L2Hys) return;
  const double d2 = std::sqrt(add_rn(s2, eps2));
  at = 0;
  for (int64_t i = 0; i < br; ++i)
    for (int64_t k = 0; k < bc * n; ++k, ++at) {
      const double q = hist[((r + i) * n_cells_col + c) * n + k] / d;
      out[at] = T((q > 0.2 ? 0.2 : q) / d2);
    }
}

// ---- engine schedules (arguments validated by the entries) ----
void hog_histograms_cpu(const View& image, int64_t cell_rows, int64_t cell_cols, const View& hist);
void hog_normalize_cpu(const View& hist, HogNorm norm, const View& blocks);
#ifdef NDIMG_WITH_CUDA
void hog_histograms_cuda(const View& image, int64_t cell_rows, int64_t cell_cols, const View& hist, StreamHandle s);
void hog_normalize_cuda(const View& hist, HogNorm norm, const View& blocks, StreamHandle s);
#endif

}  // namespace ndimg::feature
