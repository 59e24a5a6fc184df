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

// A mean over a window this much longer than its line takes the long-window schedule below: memory and
// time O(n) whatever the window (scipy's result to rounding; shorter windows keep the bit-identical
// schedules, whose extension buffers grow with the window).
inline bool long_mean(int64_t taps, int64_t n) { return taps > 2 * n + 64; }

// Sum of the extended line over positions [a, a + count), x(k) the line's values, in O(n): the positions
// fold onto one period of the extension (reflect 2n, mirror 2n - 2, wrap n), or, for nearest and
// constant, onto the line plus two counts of its edge values (or cval).
template <class X>
NDIMG_HD double window_sum(const X& x, int64_t n, Mode mode, double cval, int64_t a, int64_t count) {
  if (mode == Mode::Nearest || mode == Mode::Constant) {
    const int64_t b = a + count;  // [a, b)
    const int64_t below = b <= 0 ? count : (a < 0 ? -a : 0);
    const int64_t above = a >= n ? count : (b > n ? b - n : 0);
    double inside = 0;
    for (int64_t k = a < 0 ? 0 : a; k < (b < n ? b : n); ++k) inside += x(k);
    const double lo = mode == Mode::Nearest ? x(0) : cval, hi = mode == Mode::Nearest ? x(n - 1) : cval;
    return inside + double(below) * lo + double(above) * hi;
  }
  const int64_t period = n == 1 ? 1 : (mode == Mode::Wrap ? n : (mode == Mode::Mirror ? 2 * n - 2 : 2 * n));
  const int64_t full = count / period, part = count % period;
  double all = 0, head = 0;
  for (int64_t t = 0; t < period; ++t) {
    const double v = x(extend_index(a + t, n, mode));
    all += v;
    if (t < part) head += v;
  }
  return double(full) * all + head;
}

// The mean of `taps` values over the line (scipy's uniform_filter1d running sum after the first window,
// which window_sum gives): emit(i, mean) for i < n.
template <class X, class Emit>
NDIMG_HD void long_mean_line(const X& x, int64_t n, Mode mode, double cval, int64_t left, int64_t taps,
                             Emit&& emit) {
  auto ext = [&](int64_t p) {
    const int64_t k = extend_index(p, n, mode);
    return k < 0 ? cval : double(x(k));
  };
  const double size = double(taps);
  double acc = window_sum(x, n, mode, cval, -left, taps);
  emit(0, acc / size);
  for (int64_t i = 1; i < n; ++i) {
    acc += ext(i - left + taps - 1) - ext(i - left - 1);
    emit(i, acc / size);
  }
}

// What the passes before the last write: `out`, except that a bool output holds unsigned char values
// between passes, as scipy's does (its bool output is written through an unsigned char cast, so a -1
// stays 255 for the next pass to read); the last pass writes the bool.
inline View between_passes(const View& out) {
  View v = out;
  if (v.dtype == DType::Bool) v.dtype = DType::U8;
  return v;
}

// One pass of the CPU schedule (in may be out).
void pass1d_cpu(const View& in, const View& out, const Pass1d& p);
#ifdef NDIMG_WITH_CUDA
// All passes of a separable filter on CUDA (in and out do not overlap; passes already validated).
void separable_cuda(const View& in, const View& out, std::span<const Pass1d> passes, StreamHandle stream);
#endif
}  // namespace ndimg::ndimage
