// Grey morphology with a non-flat structure: the min-plus / max-plus reduction over a footprint's taps,
// the math shared by both engines.
#pragma once
#include <type_traits>

#include "ndimage/footprint.hpp"
#include "ndimg/ndimage_grey.hpp"

namespace ndimg::ndimage {

// The type scipy computes in: the input's, bool as the unsigned char numpy stores it.
template <class TI>
using grey_t = std::conditional_t<std::is_same_v<TI, bool>, uint8_t, TI>;

// a + b in A as C computes `a += b`: integers wrap (promoted and narrowed back; int32/int64 through
// unsigned, where C's overflow is undefined and x86 wraps).
template <class A>
NDIMG_HD A wrap_add(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    return a + b;
  } else {
    using U = std::make_unsigned_t<std::conditional_t<(sizeof(A) < sizeof(int)), int, A>>;
    return static_cast<A>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  }
}

// One output element: scipy's NI_MinOrMaxFilter with a structure. s[k] is the tap's value in double (used
// by the first tap), sa[k] the same cast to A (the others).
template <class A, class TI>
NDIMG_HD double grey_taps(const Geometry& g, const int64_t* c, const TI* in, const int64_t* offsets,
                          const int64_t* linear, const double* s, const A* sa, int64_t count, bool minimum,
                          Mode mode, A cval) {
  double res = 0;
  for_each_tap<A>(g, c, in, offsets, linear, count, mode, cval, [&](int64_t k, A v) {
    if (k == 0) {
      res = double(v) + s[0];
    } else {
      const double t = double(wrap_add(v, sa[k]));
      if (minimum ? t < res : t > res) res = t;
    }
  });
  return res;
}

#ifdef NDIMG_WITH_CUDA
void grey_filter_cuda(const View& in, const View& out, const Taps& t, std::span<const double> s, bool minimum,
                      Mode mode, double cval, StreamHandle stream);
#endif

}  // namespace ndimg::ndimage
