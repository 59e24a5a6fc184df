// The B-spline prefilter (scipy.ndimage.spline_filter1d): interpolating B-spline coefficients of orders
// 2-5 by the exact recursive filter of Unser, Aldroubi and Eden (1991). Per line: every value times the
// gain, then per pole z a causal pass c[i] += z c[i-1] and an anti-causal pass c[i] = z (c[i+1] - c[i]),
// each started from the value the boundary's extension of the line gives (its initial condition).
// The arithmetic is scipy's (1.17's or 1.18's reflect), operation for operation, so that the CPU engine
// (which runs it serially per line, in double) agrees with it to the last bit; the CUDA engine runs the same
// initial conditions and splits the recursions into segments (spline_filter_cuda.cu).
#pragma once
#include <cmath>
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

// The math below is always inlined: on the CPU it runs on vectors of doubles inside an AVX2 clone, and a
// vector passed to an out-of-line copy compiled for the baseline ISA would cross an ABI boundary.
#if defined(__CUDACC__) || !defined(__GNUC__)
#define NDIMG_SPLINE NDIMG_HD
#else
#define NDIMG_SPLINE inline __attribute__((always_inline))
#endif

namespace ndimg::interp {

// The initial conditions scipy has (its apply_filter): mirror serves 'mirror', 'constant',
// 'grid-constant' and 'wrap'; reflect serves 'reflect', 'grid-mirror' and 'nearest'; wrap serves
// 'grid-wrap' only (python/ndimg/ndimage/_splines.py maps the modes). ReflectScipy117 is reflect with the
// aliased last term scipy had before 1.18 (scipy#24615), chosen where the installed scipy still has it.
enum class SplineBoundary : uint8_t { Mirror, Reflect, Wrap, ReflectScipy117 };

struct SplinePoles {
  int count;
  double z[2];
};

// scipy's poles, as the decimal literals it rounds (computing them with sqrt differs in the last bits).
NDIMG_HD SplinePoles spline_poles(int order) {
  switch (order) {
    case 2: return {1, {-0.171572875253809902396622551580603843, 0}};                // sqrt(8) - 3
    case 3: return {1, {-0.267949192431122706472553658494127633, 0}};                // sqrt(3) - 2
    case 4: return {2, {-0.361341225900220177092212841325675255, -0.013725429297339121360331226939128204}};
    case 5: return {2, {-0.430575347099973791851434783493520110, -0.043096288203264653822712376822550182}};
    default: return {0, {0, 0}};
  }
}

NDIMG_HD double spline_gain(const SplinePoles& p) {
  double gain = 1.0;
  for (int k = 0; k < p.count; ++k) {
    const double z = p.z[k];
    gain = mul_rn(gain, mul_rn(1.0 - z, 1.0 - 1.0 / z));
  }
  return gain;
}

// The powers z^(n-1) and z^n of each pole for lines of n values, which the initial conditions take: from
// the host's pow on both engines, as scipy calls the C library's (CUDA's pow rounds some of them the other
// way, e.g. z^3 of order 3's pole, 0.025 units in the last place from half way), passed to the kernels.
struct LinePowers {
  double zn1[2], zn[2];
};

inline LinePowers line_powers(const SplinePoles& p, int64_t n) {
  LinePowers w{};
  for (int k = 0; k < p.count; ++k) {
    w.zn1[k] = std::pow(p.z[k], double(n - 1));
    w.zn[k] = std::pow(p.z[k], double(n));
  }
  return w;
}

// How many powers z^i of a pole the initial sums need before |z|^i < 2^-64, far below a double's
// resolution of the line's largest value: the CUDA engine sums that many terms (a line's ends only); the
// CPU engine sums all n, as scipy does.
NDIMG_HD int64_t spline_terms(double z) { return int64_t(std::ceil(-64.0 * 0.6931471805599453 / std::log(std::fabs(z)))) + 1; }

// (Products and sums through mul_rn/add_rn/sub_rn: nvcc would contract a * b + c into one rounding.)
// The causal pass's first value c+[0] of a line c(0..n-1) (n >= 2, already times the gain), summing at
// most `terms` powers of z (n or more: every one, exactly as scipy); zn1, zn: z^(n-1), z^n (line_powers).
template <class T, class C>
NDIMG_SPLINE T causal_init(const C& c, int64_t n, double z, double zn1, double zn, SplineBoundary b, int64_t terms) {
  const bool all = terms >= n;
  double zi = z;
  switch (b) {
    case SplineBoundary::Mirror: {  // period 2n - 2
      T acc = add_rn(c(0), mul_rn(c(n - 1), zn1));
      const int64_t last = all ? n - 2 : (terms < n - 2 ? terms : n - 2);
      for (int64_t i = 1; i <= last; ++i) {
        acc = add_rn(acc, mul_rn(add_rn(c(i), mul_rn(c(n - 1 - i), zn1)), zi));
        zi = zi * z;
      }
      return acc / sub_rn(1.0, mul_rn(zn1, zn1));
    }
    case SplineBoundary::Reflect:
    case SplineBoundary::ReflectScipy117: {  // period 2n
      const T c0 = c(0);
      T acc = add_rn(c0, mul_rn(c(n - 1), zn));
      const int64_t last = all ? n - 2 : (terms < n - 2 ? terms : n - 2);
      for (int64_t i = 1; i <= last; ++i) {
        acc = add_rn(acc, mul_rn(add_rn(c(i), mul_rn(c(n - 1 - i), zn)), zi));
        zi = zi * z;
      }
      // scipy before 1.18 summed in place in c[0], so its last term (i = n - 1) read the partial sum
      // where c[0] was; negligible once z^(n-1) is.
      if (all) acc = add_rn(acc, mul_rn(add_rn(c(n - 1), mul_rn(b == SplineBoundary::Reflect ? c0 : acc, zn)), zi));
      // 1.18 scales the sum as (sum z) / (1 - z^2n), 1.17 as sum (z / (1 - z^2n)): integer outputs see the
      // last bit
      const double den = sub_rn(1.0, mul_rn(zn, zn));
      return add_rn(b == SplineBoundary::Reflect ? mul_rn(acc, z) / den : mul_rn(acc, z / den), c0);
    }
    default: {  // wrap, period n
      T acc = c(0);
      const int64_t last = all ? n - 1 : terms;
      for (int64_t i = 1; i <= last; ++i) {
        acc = add_rn(acc, mul_rn(c(n - i), zi));
        zi = zi * z;
      }
      return acc / (1 - (all ? zi : zn));
    }
  }
}

// The anti-causal pass's first value c-[n-1], c(0..n-1) the causal pass's result; zn: z^n.
template <class T, class C>
NDIMG_SPLINE T anticausal_init(const C& c, int64_t n, double z, double zn, SplineBoundary b, int64_t terms) {
  switch (b) {
    case SplineBoundary::Mirror: return mul_rn(add_rn(mul_rn(c(n - 2), z), c(n - 1)), z) / sub_rn(mul_rn(z, z), 1.0);
    case SplineBoundary::Reflect:
    case SplineBoundary::ReflectScipy117: return mul_rn(c(n - 1), z / (z - 1));
    default: {
      const bool all = terms >= n;
      double zi = z;
      T acc = c(n - 1);
      const int64_t last = all ? n - 2 : terms - 1;
      for (int64_t i = 0; i <= last; ++i) {
        acc = add_rn(acc, mul_rn(c(i), zi));
        zi = zi * z;
      }
      return mul_rn(acc, z / ((all ? zi : zn) - 1));
    }
  }
}

// One line filtered in place, serially, in scipy's order of operations: c(i) is a reference to value i
// (n >= 2), pw the poles' powers for n (line_powers).
template <class T, class C>
NDIMG_SPLINE void spline_filter_line(const C& c, int64_t n, const SplinePoles& p, const LinePowers& pw,
                                     SplineBoundary b) {
  const double gain = spline_gain(p);
  for (int64_t i = 0; i < n; ++i) c(i) = mul_rn(c(i), gain);
  for (int k = 0; k < p.count; ++k) {
    const double z = p.z[k];
    c(0) = causal_init<T>(c, n, z, pw.zn1[k], pw.zn[k], b, n);
    for (int64_t i = 1; i < n; ++i) c(i) = add_rn(c(i), mul_rn(c(i - 1), z));
    c(n - 1) = anticausal_init<T>(c, n, z, pw.zn[k], b, n);
    for (int64_t i = n - 2; i >= 0; --i) c(i) = mul_rn(sub_rn(c(i + 1), c(i)), z);
  }
}

// The prefilter along each of `axes` in turn (scipy.ndimage.spline_filter1d, or spline_filter with every
// axis): the first pass reads `in`, each writes `out` in its dtype and the next reads `out` back, as scipy
// chains them. `order` 2..5; lines of length 1 are copied. On the CPU `in` may be `out`; on CUDA they must
// not overlap.
void spline_filter(const View& in, const View& out, int order, std::span<const int> axes, SplineBoundary b,
                   StreamHandle stream = nullptr);

void spline_pass_cpu(const View& in, const View& out, const SplinePoles& p, int axis, SplineBoundary b);
#ifdef NDIMG_WITH_CUDA
void spline_filter_cuda(const View& in, const View& out, const SplinePoles& p, std::span<const int> axes,
                        SplineBoundary b, StreamHandle stream);
#endif

}  // namespace ndimg::interp
