// Cumulative sums along an axis: the per-element math, written once for both engines, the lines' layout and
// the engine schedules' declarations. The entry is in cumsum.cpp.
//
// One output-dtype funnel without input x output instantiations: an input element is first widened exactly
// to its wide type W (int64 for bool and signed integers, uint64 for unsigned ones, double for floats), and
// the kernels are instantiated per (W, R), R the output type: 3 x 10. Widening is exact, so cast_to<R>(W)
// is NumPy's cast of the input element to R (float values beyond an integer R's range, undefined in C, take
// cast_to's truncation through int64 and wrap: NumPy's x86 values up to 2^31). Sums run in R, integers
// modulo 2^bits as NumPy's wrap.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/scan.hpp"

namespace ndimg::scan {

// The type an input element of type T is widened to, exactly.
template <class T>
using wide_t = std::conditional_t<std::is_floating_point_v<T>, double,
                                  std::conditional_t<std::is_signed_v<T> || std::is_same_v<T, bool>, int64_t, uint64_t>>;

// a + b in R; integers wrap modulo 2^bits (summed as unsigned, where overflow is defined).
template <class R>
NDIMG_HD R add(R a, R b) {
  if constexpr (std::is_integral_v<R>) {
    using U = std::make_unsigned_t<R>;
    return static_cast<R>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// x rounded to the nearest float16 value (ties to even; infinite beyond its range), kept in x's type: NumPy's
// casts to float16 and the rounding of each of its float16 sums (float's sum, then rounded to float16).
template <class F>
NDIMG_HD F round_to_half(F x) {
  const F a = x < F(0) ? -x : x;
  if (!(a < F(65520))) return a != a ? x : (x < F(0) ? -a * F(2) : a * F(2));  // NaN, or +-inf (a >= 65520)
  int e;
  frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  const int k = (e - 1 < -14 ? -14 : e - 1) - 10;  // the exponent of float16's unit in the last place at a
  return ldexp(rint(ldexp(x, -k)), k);
}

// An input element (wide value w) in the output type R; Half: R is float holding float16 values.
template <class R, bool Half, class W>
NDIMG_HD R element(W w) {
  if constexpr (Half) return R(round_to_half(double(w)));
  else return cast_to<R>(w);
}

// The next partial sum.
template <bool Half, class R>
NDIMG_HD R step(R acc, R v) {
  if constexpr (Half) return round_to_half(acc + v);
  else return add(acc, v);
}

// The wide value of the element at offset `o` of an array of dtype `t` whose wide type is W (the kernels
// take the input's dtype at run time: one switch per element, uniform across threads, instead of a kernel
// per input dtype).
template <class W>
NDIMG_HD W load_wide(const void* p, DType t, int64_t o) {
  if constexpr (std::is_same_v<W, double>) {
    return t == DType::F32 ? double(static_cast<const float*>(p)[o]) : static_cast<const double*>(p)[o];
  } else if constexpr (std::is_same_v<W, uint64_t>) {
    switch (t) {
      case DType::U8: return static_cast<const uint8_t*>(p)[o];
      case DType::U16: return static_cast<const uint16_t*>(p)[o];
      case DType::U32: return static_cast<const uint32_t*>(p)[o];
      default: return static_cast<const uint64_t*>(p)[o];
    }
  } else {
    switch (t) {
      case DType::Bool: return static_cast<const bool*>(p)[o];
      case DType::I8: return static_cast<const int8_t*>(p)[o];
      case DType::I16: return static_cast<const int16_t*>(p)[o];
      case DType::I32: return static_cast<const int32_t*>(p)[o];
      default: return static_cast<const int64_t*>(p)[o];
    }
  }
}

// The lines of a scan: `outer` x `inner` lines of `n` elements; element (o, i, j) at o * s[0] + i * s[1] +
// j * s[2] (strides in elements) of each view.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  bool half = false;  // float32 output holding float16 values: NumPy's float16 sums
  int64_t in_s[3] = {0, 0, 0}, out_s[3] = {0, 0, 0};
};

// ---- engine schedules (arguments validated by the entry) ----
void cumsum_cpu(const View& in, const View& out, const Lines& l);
#ifdef NDIMG_WITH_CUDA
void cumsum_cuda(const View& in, const View& out, const Lines& l, StreamHandle s);
#endif

}  // namespace ndimg::scan
