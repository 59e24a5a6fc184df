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

// hypot(g_col, g_row); for integer gradients (integer images: hog does not rescale) below 2**26 the sum of
// the squares is exact, and its square root the correctly rounded hypot at a fraction of the cost.
NDIMG_HD double hog_magnitude(double g_row, double g_col) {
  const double s = add_rn(square_rn(g_row), square_rn(g_col));
  if (s < 4503599627370496.0 && double(int64_t(g_row)) == g_row && double(int64_t(g_col)) == g_col)
    return std::sqrt(s);
  return hog_hypot(g_col, g_row);
}

// numpy's arctan2(g_row, g_col) * (180 / pi) % 180: fmod keeps the dividend's sign, Python's % the
// divisor's (a zero remainder is +0); |x| < 180 is its own remainder.
NDIMG_HD double hog_orientation(double g_row, double g_col) {
#if defined(__CUDA_ARCH__)
  const double x = mul_rn(::atan2(g_row, g_col), 180.0 / 3.141592653589793);
  double m = x < 180.0 && x > -180.0 ? x : ::fmod(x, 180.0);
#else
  const double x = std::atan2(g_row, g_col) * (180.0 / 3.141592653589793);
  double m = x < 180.0 && x > -180.0 ? x : std::fmod(x, 180.0);
#endif
  if (m < 0) m = add_rn(m, 180.0);
  else if (m == 0) m = 0.0;
  return m;
}

// The bins [w * o, w * (o + 1)) in double (w = 180 / n) of orientation `ori`: scikit-image skips a pixel in
// bin o where ori >= w * (o + 1) or ori < w * o, so a NaN orientation counts in every bin and any other in the
// one bin whose bounds hold it (consecutive bounds are the same products), or none beyond the last.
// add(o) is called for each.
template <class Add>
NDIMG_HD void hog_bins(double ori, int64_t n, double w, Add&& add) {
  if (ori != ori) {
    for (int64_t o = 0; o < n; ++o) add(o);
    return;
  }
  if (!(ori >= 0.0)) return;
  int64_t o = static_cast<int64_t>(ori / w);
  if (o > n - 1) o = n - 1;
  while (o > 0 && ori < mul_rn(w, double(o))) --o;
  while (o < n - 1 && ori >= mul_rn(w, double(o + 1))) ++o;
  if (ori < mul_rn(w, double(o + 1)) && ori >= mul_rn(w, double(o))) add(o);
}

// The bin of a gradient from a float32 orientation (a few float32 ulps, far below 1e-3 degrees, from the
// double one), or -1 where that is not certain: within 1e-3 degrees of a bin bound (0 and 180 included), a
// gradient outside float32's comfortable range, or a NaN. Only then is the double atan2 needed, whose bin
// this one equals everywhere else.
NDIMG_HD int64_t hog_quick_bin(double g_row, double g_col, int64_t n, double w) {
  const double ar = g_row < 0 ? -g_row : g_row, ac = g_col < 0 ? -g_col : g_col;
  const double big = ar > ac ? ar : ac;
  if (!(big > 1e-30 && big < 1e30) || w < 0.01) return -1;
#if defined(__CUDA_ARCH__)
  float a = __fmul_rn(::atan2f(float(g_row), float(g_col)), 57.29577951f);
#else
  float a = std::atan2(float(g_row), float(g_col)) * 57.29577951f;
#endif
  if (a < 0.0f) a += 180.0f;
  const double d = double(a) / w;
  const int64_t o = static_cast<int64_t>(d);
  const double margin = 1e-3 / w;
  if (o < 0 || o >= n || d - double(o) < margin || double(o + 1) - d < margin) return -1;
  return o;
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

// The histogram h[0, n) of cell (yi, xi): each pixel's magnitude (double) added to the
// bins of its orientation, the running sums rounded to float32 after each addition as scikit-image's float
// accumulator (h holds them as doubles), then divided by the cell's area in float32.
template <class T>
NDIMG_HD void hog_cell(const T* img, int64_t rows, int64_t cols, int64_t nch, int64_t cell_rows, int64_t cell_cols,
                       int64_t yi, int64_t xi, int64_t n, double* h) {
  for (int64_t o = 0; o < n; ++o) h[o] = 0.0;
  const double w = 180.0 / double(n);
  const int64_t r0 = yi * cell_rows, c0 = xi * cell_cols;
  for (int64_t r = r0; r < r0 + cell_rows && r < rows; ++r)
    for (int64_t c = c0; c < c0 + cell_cols && c < cols; ++c) {
      T gr = T(0), gc = T(0);
      hog_gradient(img, rows, cols, nch, r, c, gr, gc);
      const double mag = hog_magnitude(double(gr), double(gc));
      const auto add = [&](int64_t o) { h[o] = static_cast<float>(add_rn(h[o], mag)); };
      const int64_t quick = hog_quick_bin(double(gr), double(gc), n, w);
      if (quick >= 0) add(quick);
      else hog_bins(hog_orientation(double(gr), double(gc)), n, w, add);
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
