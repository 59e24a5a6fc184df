// correlate1d: out[i] = sum_j w[j] * in[ext(i + j - k/2 - origin)] along one axis (scipy's definition).
#pragma once
#include <cstdint>
#include <span>

#include "core/engine.hpp"
#include "ndimage/boundary.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::ndimage {

// a + b * c rounded twice like scipy's C loop (no FMA contraction in double, where integer results
// truncated from it must match bit for bit); float32 data may contract.
template <class C>
NDIMG_HD C add_mul(C a, C b, C c) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(C) == 8) return __dadd_rn(a, __dmul_rn(b, c));
#endif
  return a + b * c;
}

// Symmetry of a pass's weights as scipy classifies them (odd length only): +1 symmetric, -1
// antisymmetric, 0 neither. It decides the order of summation below.
int weight_symmetry(std::span<const double> w);

// The math, in scipy's order of summation: `lanes` outputs at once, ext(j, k) being the extended input
// under tap j of output k (ext(0, k) is input index -left). `acc` receives the results.
template <class C, class Ext>
NDIMG_HD void correlate_taps(C* acc, int lanes, const C* w, int taps, int sym, const Ext& ext) {
  const int c = taps / 2;
  if (sym != 0) {
    for (int k = 0; k < lanes; ++k) acc[k] = ext(c, k) * w[c];
    for (int j = 0; j < c; ++j) {
      const C wj = w[j];
      if (sym > 0)
        for (int k = 0; k < lanes; ++k) acc[k] = add_mul(acc[k], ext(j, k) + ext(taps - 1 - j, k), wj);
      else
        for (int k = 0; k < lanes; ++k) acc[k] = add_mul(acc[k], ext(j, k) - ext(taps - 1 - j, k), wj);
    }
  } else {
    for (int k = 0; k < lanes; ++k) acc[k] = ext(taps - 1, k) * w[taps - 1];
    for (int j = 0; j < taps - 1; ++j) {
      const C wj = w[j];
      for (int k = 0; k < lanes; ++k) acc[k] = add_mul(acc[k], ext(j, k), wj);
    }
  }
}

// How far a filter of `taps` reaches before (left) and after (right) each output index.
struct Reach {
  int64_t left, right;
};
inline Reach filter_reach(int64_t taps, int origin) {
  int64_t left = taps / 2 + origin;
  return {left, taps - 1 - left};
}
inline void check_origin(int64_t taps, int origin, const char* op) {
  int64_t c = taps / 2 + origin;
  if (c < 0 || c >= taps) throw ValueError(std::string(op) + ": invalid origin");
}

// The mean of a pass (scipy's uniform_filter1d) divides the sum of its values by their count.
template <class C>
NDIMG_HD C finish_pass(C acc, int taps, bool mean) {
  return mean ? acc / C(taps) : acc;
}

// One pass of the CPU schedule (in may be out); pass1d_cpu_typed is its body for input type TI,
// instantiated in correlate1d_pass_*_cpu.cpp.
void pass1d_cpu(const View& in, const View& out, const Pass1d& p);
template <class TI>
void pass1d_cpu_typed(const View& in, const View& out, const Pass1d& p);
#ifdef NDIMG_WITH_CUDA
// All passes of a separable filter on CUDA (in and out do not overlap; passes already validated).
void separable_cuda(const View& in, const View& out, std::span<const Pass1d> passes, StreamHandle stream);
#endif
}  // namespace ndimg::ndimage
