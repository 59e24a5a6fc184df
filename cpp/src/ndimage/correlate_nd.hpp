// correlate: out[i] = sum_k w[k] * in[ext(i + offsets[k])] over the taps of an n-D footprint.
#pragma once
#include "ndimage/correlate1d.hpp"
#include "ndimage/footprint.hpp"

namespace ndimg::ndimage {

// The math of one output element; C is the compute type (float for float32 data, double otherwise).
// add_mul: no FMA in double on CUDA either, so that both engines round each product as scipy does.
template <class C, class TI>
NDIMG_HD C correlate_taps(const Geometry& g, const int64_t* c, const TI* in, const int64_t* offsets,
                          const int64_t* linear, const C* w, int64_t count, Mode mode, C cval) {
  C acc = 0;
  for_each_tap<C>(g, c, in, offsets, linear, count, mode, cval,
                  [&](int64_t k, C v) { acc = add_mul(acc, w[k], v); });
  return acc;
}

// The sum's type: double, as scipy sums, except float32 data written as float32, which sums in float (the
// fast path, within float rounding of scipy).
template <class TI, class TO>
using correlate_t = std::conditional_t<std::is_same_v<TO, double>, double, compute_t<TI>>;

#ifdef NDIMG_WITH_CUDA
void correlate_cuda(const View& in, const View& out, const Taps& t, std::span<const double> w, Mode mode,
                    double cval, StreamHandle stream);
#endif

}  // namespace ndimg::ndimage
