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

// scipy's NI_MinOrMaxFilter, one tap at a time. The first tap's value in double: v + s0 summed in double
// (flat footprints, s == nullptr: v). A later tap's: v + sa (s cast to A) in A, then double.
template <class A>
NDIMG_HD double grey_first(A v, const double* s) {
  return s ? double(v) + s[0] : double(v);
}
template <class A>
NDIMG_HD double grey_later(A v, const A* sa, int64_t k) {
  return sa ? double(wrap_add(v, sa[k])) : double(v);
}
// Folds a later tap's value t into res: replaced only where strictly smaller (larger), so a NaN first tap
// stays and a later NaN is skipped, as scipy compares.
template <bool Minimum, class T>
NDIMG_HD T grey_fold(T res, T t) {
  return (Minimum ? t < res : t > res) ? t : res;
}

// One output element over all taps (the CUDA schedule's; the CPU sweeps lines with the same steps).
template <bool Minimum, class A, class TI>
NDIMG_HD double grey_taps(const Geometry& g, const int64_t* c, const TI* in, const int64_t* offsets,
                          const int64_t* linear, const double* s, const A* sa, int64_t count, Mode mode, A cval) {
  double res = 0;
  for_each_tap<A>(g, c, in, offsets, linear, count, mode, cval, [&](int64_t k, A v) {
    res = k == 0 ? grey_first(v, s) : grey_fold<Minimum>(res, grey_later(v, sa, k));
  });
  return res;
}

#ifdef NDIMG_WITH_CUDA
void grey_filter_cuda(const View& in, const View& out, const Taps& t, std::span<const double> s, bool minimum,
                      Mode mode, double cval, StreamHandle stream);
#endif

}  // namespace ndimg::ndimage
