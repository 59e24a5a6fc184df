// Haar-like features on an integral image (skimage.feature.haar_like_feature): one feature's value, written
// once for both engines; the schedules' declarations. The entry is in haar.cpp.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/feature_desc.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

// Integers are summed in their unsigned twin (wrapping as scikit-image's C sums do, without signed overflow).
template <class T, bool = std::is_integral_v<T>>
struct HaarSum {
  using type = T;
};
template <class T>
struct HaarSum<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <>
struct HaarSum<bool, true> {  // bool images: sums of their bytes, as scikit-image's uint8 arithmetic
  using type = uint8_t;
};
template <class T>
using haar_sum_t = typename HaarSum<T>::type;
// A rectangle's sum as the output holds it: int64 from the same-width signed value for integers (for bool
// images, whether the byte sum is nonzero).
template <class T>
using haar_out_t = std::conditional_t<std::is_integral_v<T>, int64_t, T>;

// The sum over the inclusive rectangle (r0, c0, r1, c1) of the integral image (row stride rs, column stride cs):
// ii[r1, c1] + ii[r0 - 1, c0 - 1] - ii[r0 - 1, c1] - ii[r1, c0 - 1], the terms outside the image left out,
// in that order.
template <class T>
NDIMG_HD haar_out_t<T> haar_rect(const T* ii, int64_t rs, int64_t cs, const int64_t* q) {
  using S = haar_sum_t<T>;
  const int64_t r0 = q[0], c0 = q[1], r1 = q[2], c1 = q[3];
  S s = S(ii[r1 * rs + c1 * cs]);
  if (r0 >= 1 && c0 >= 1) s = S(s + S(ii[(r0 - 1) * rs + (c0 - 1) * cs]));
  if (r0 >= 1) s = S(s - S(ii[(r0 - 1) * rs + c1 * cs]));
  if (c0 >= 1) s = S(s - S(ii[r1 * rs + (c0 - 1) * cs]));
  if constexpr (std::is_same_v<T, bool>) return int64_t(s != 0);  // a bool array of those bytes, counted
  else if constexpr (std::is_integral_v<T>) return int64_t(std::make_signed_t<T>(s));
  else return s;
}

// Feature f of n_rects rectangles q[k * 4 ...]: (sum of the odd rectangles) - (sum of the even ones).
template <class T>
NDIMG_HD haar_out_t<T> haar_feature(const T* ii, int64_t rs, int64_t cs, const int64_t* q, int64_t n_rects) {
  using O = haar_out_t<T>;
  using A = haar_sum_t<O>;  // int64 sums wrap as NumPy's
  A odd = A(haar_rect(ii, rs, cs, q + 4)), even = A(haar_rect(ii, rs, cs, q));
  for (int64_t k = 2; k < n_rects; ++k) {
    const A v = A(haar_rect(ii, rs, cs, q + 4 * k));
    if (k % 2) odd = A(odd + v);
    else even = A(even + v);
  }
  return O(A(odd - even));
}

// Every feature of one type in a (height, width) window, enumerated as scikit-image's loops do: top left
// corner row y, column x, then one rectangle's height dy and width dx; the type's rectangles are blocks of
// an ny x nx grid of dy x dx rectangles, taken in the order (br[k], bc[k]).
struct HaarWindow {
  int64_t height, width, ny, nx, k;
  int64_t br[4], bc[4];

  NDIMG_HD static HaarWindow of(int64_t type, int64_t height, int64_t width) {
    switch (type) {  // FEATURE_TYPE's order: type-2-x, type-2-y, type-3-x, type-3-y, type-4
      case 0: return {height, width, 1, 2, 2, {0, 0}, {0, 1}};
      case 1: return {height, width, 2, 1, 2, {0, 1}, {0, 0}};
      case 2: return {height, width, 1, 3, 3, {0, 0, 0}, {0, 1, 2}};
      case 3: return {height, width, 3, 1, 3, {0, 1, 2}, {0, 0, 0}};
      default: return {height, width, 2, 2, 4, {0, 0, 1, 1}, {0, 1, 1, 0}};
    }
  }
  // Rectangle heights that fit below row y, widths right of column x.
  NDIMG_HD int64_t heights(int64_t y) const { return (height - y) / ny; }
  NDIMG_HD int64_t widths(int64_t x) const { return (width - x) / nx; }
  // floor(1 / n) + ... + floor(m / n)
  NDIMG_HD static int64_t floor_sum(int64_t m, int64_t n) {
    const int64_t q = m / n, r = m % n;
    return n * q * (q - 1) / 2 + q * (r + 1);
  }
  // Features of one corner row from columns 0 .. x-1; rectangle heights of the corner rows 0 .. y-1.
  NDIMG_HD int64_t widths_before(int64_t x) const { return floor_sum(width, nx) - floor_sum(width - x, nx); }
  NDIMG_HD int64_t heights_before(int64_t y) const { return floor_sum(height, ny) - floor_sum(height - y, ny); }
  NDIMG_HD int64_t count() const { return heights_before(height) * widths_before(width); }
  // The features of corner (y, x) and rectangle height dy, t = (y * width + x) * height + dy - 1 < triples():
  // f(index, q) for each, q[4 * j ...] its rectangles (r0, c0, r1, c1).
  NDIMG_HD int64_t triples() const { return height * width * height; }
  template <class F>
  NDIMG_HD void visit(int64_t t, F&& f) const {
    const int64_t dy = t % height + 1, x = t / height % width, y = t / (height * width);
    const int64_t ndy = heights(y), ndx = widths(x);
    if (dy > ndy || ndx == 0) return;
    int64_t idx = heights_before(y) * widths_before(width) + ndy * widths_before(x) + (dy - 1) * ndx;
    int64_t q[16];
    for (int64_t dx = 1; dx <= ndx; ++dx, ++idx) {
      for (int64_t j = 0; j < k; ++j) {
        q[4 * j] = y + br[j] * dy;
        q[4 * j + 1] = x + bc[j] * dx;
        q[4 * j + 2] = q[4 * j] + dy - 1;
        q[4 * j + 3] = q[4 * j + 1] + dx - 1;
      }
      f(idx, q);
    }
  }
};

// ---- engine schedules (arguments validated by the entry) ----
void haar_features_cpu(const View& ii, const View& rects, const View& out);
void haar_rects_cpu(const HaarWindow& w, const View& out);
void haar_window_features_cpu(const View& ii, const HaarWindow& w, const View& out);
#ifdef NDIMG_WITH_CUDA
void haar_features_cuda(const View& ii, const View& rects, const View& out, StreamHandle s);
void haar_window_features_cuda(const View& ii, const HaarWindow& w, const View& out, StreamHandle s);
#endif

}  // namespace ndimg::feature
