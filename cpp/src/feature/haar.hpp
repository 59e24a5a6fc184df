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

// ---- engine schedules (arguments validated by the entry) ----
void haar_features_cpu(const View& ii, const View& rects, const View& out);
#ifdef NDIMG_WITH_CUDA
void haar_features_cuda(const View& ii, const View& rects, const View& out, StreamHandle s);
#endif

}  // namespace ndimg::feature
