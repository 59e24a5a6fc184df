// The Fourier filters' math, once for both engines. Each filter's transform is a product (gaussian, uniform)
// or a sum (ellipsoid's squared radius, the shift's phase, kept as exp(i phase) so that it too is a product)
// of per-axis factors of an element's frequency index along each axis. The per-axis tables are computed
// on the host in double, as scipy computes them (the same expressions in the same order, so that the CPU
// engine's results equal scipy's where scipy's arithmetic is the same); each element then joins its axes'
// entries in one pass.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage_fourier.hpp"

namespace ndimg::ndimage {

// The frequency index of element i of an axis of length dim: a real FFT's axis holds 0, 1, ..., dim - 1; a
// complex FFT's 0 .. (dim + 1) / 2 - 1, then -(dim / 2) .. -1 (numpy.fft.fftfreq's order).
inline int64_t frequency_index(int64_t i, int64_t dim, bool real_axis) {
  return real_axis || i < (dim + 1) / 2 ? i : i - dim;
}

// The entries a table holds per element of its axis: the shift's (cos, sin), a number for the others.
inline int fourier_width(FourierKind k) { return k == FourierKind::Shift ? 2 : 1; }

// Axis `len` elements from global index `first` of an axis of length `dim` of the transform, into t (width
// entries each). `length` is the signal length the frequencies are relative to: n on a real FFT's axis,
// else dim. scipy leaves axes of length 1 out of the gaussian, uniform and shift products (a neutral entry
// here) and squares the ellipsoid's entries where it has more than one axis.
inline void fourier_axis_table(FourierKind kind, double param, int64_t dim, int64_t length, bool real_axis,
                               int ndim, int64_t first, int64_t len, double* t) {
  constexpr double pi = 3.14159265358979323846;
  const int w = fourier_width(kind);
  if (dim <= 1 && kind != FourierKind::Ellipsoid) {
    for (int64_t i = 0; i < len; ++i) {
      t[i * w] = 1.0;
      if (w == 2) t[i * w + 1] = 0.0;
    }
    return;
  }
  // scipy holds the gaussian's and the shift's length in a C int
  const double int_length = double(static_cast<int32_t>(length));
  double c = 0;
  switch (kind) {
    case FourierKind::Gaussian:
      c = param * pi / int_length;
      c = -2.0 * c * c;
      break;
    case FourierKind::Uniform:
    case FourierKind::Ellipsoid: c = pi * param / double(length); break;
    case FourierKind::Shift: c = -2.0 * pi * param / int_length; break;
  }
  for (int64_t i = 0; i < len; ++i) {
    const double k = double(frequency_index(first + i, dim, real_axis));
    double* e = t + i * w;
    switch (kind) {
      case FourierKind::Gaussian: {
        const double x = c * k * k;
        e[0] = std::fabs(x) > 50.0 ? 0.0 : std::exp(x);
        break;
      }
      case FourierKind::Uniform: e[0] = k == 0 ? 1.0 : (c > 0.0 ? std::sin(c * k) / (c * k) : 0.0); break;
      case FourierKind::Ellipsoid: e[0] = ndim > 1 ? (k * c) * (k * c) : k * c; break;
      case FourierKind::Shift: e[0] = std::cos(c * k); e[1] = std::sin(c * k); break;
    }
  }
}

// J1(x) for x >= 0 to about 1e-16 absolute (the CUDA engine's: the device library's j1 is only 5e-12
// accurate beyond 8, which scipy's results of 1e-12 relative show). Below 20 its power series
// (x/2) sum_k (-x^2/4)^k / (k! (k+1)!) in double-double (terms reach 1e8 there, which double alone would
// cancel to 1e-9); from 20 Hankel's expansion (P cos(x - 3pi/4) - Q sin(x - 3pi/4)) sqrt(2 / (pi x)), whose
// terms fall below 1e-17 before they grow again.
namespace detail {
struct DD {
  double hi, lo;
};
NDIMG_HD double fma_exact(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
NDIMG_HD DD dd_norm(double hi, double lo) {
  const double s = hi + lo;
  return {s, lo - (s - hi)};
}
NDIMG_HD DD dd_add(DD a, DD b) {
  const double s = a.hi + b.hi, bb = s - a.hi;
  return dd_norm(s, (a.hi - (s - bb)) + (b.hi - bb) + a.lo + b.lo);
}
NDIMG_HD DD dd_mul(DD a, DD b) {
  const double p = a.hi * b.hi;
  return dd_norm(p, fma_exact(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi));
}
NDIMG_HD DD dd_div(DD a, double d) {
  const double q = a.hi / d, p = q * d;
  return dd_norm(q, (a.hi - p - fma_exact(q, d, -p) + a.lo) / d);
}
}  // namespace detail

NDIMG_HD double bessel_j1_dd(double x) {
  using detail::DD;
  if (!(x < 20.0)) {
    if (!(x - x == 0.0)) return x - x;  // inf: NaN, as scipy's
    double p = 1.0, q = 0.0, b = 1.0, prev = 2.0;
    for (int k = 1; k < 60; ++k) {
      const double odd = double(2 * k - 1);
      b *= (4.0 - odd * odd) / (8.0 * double(k) * x);
      if (!(std::fabs(b) < prev) || std::fabs(b) < 1e-18) break;
      prev = std::fabs(b);
      // b_k joins P (even k) or Q (odd k), with sign (-1)^(k / 2)
      const double t = (k / 2) % 2 ? -b : b;
      if (k % 2) q += t;
      else p += t;
    }
    const double s = std::sin(x), c = std::cos(x);
    constexpr double pi = 3.14159265358979323846;
    return (p * (s - c) + q * (s + c)) / std::sqrt(pi * x);
  }
  const double x2 = x * x;
  const DD quarter = {-0.25 * x2, -0.25 * detail::fma_exact(x, x, -x2)};  // -x^2 / 4
  DD term = {1.0, 0.0}, sum = {1.0, 0.0};
  for (int k = 1; k < 80; ++k) {
    term = detail::dd_div(detail::dd_mul(term, quarter), double(k) * double(k + 1));
    sum = detail::dd_add(sum, term);
    if (double(k) * double(k) > -quarter.hi && std::fabs(term.hi) < 1e-22) break;
  }
  return 0.5 * x * sum.hi + 0.5 * x * sum.lo;
}

// A factor: real for the filters, (cos, sin) of the phase for the shift.
struct Factor {
  double re, im;
};

template <FourierKind K>
struct FourierMath {
  // the join of no axis
  NDIMG_HD static Factor start() { return {K == FourierKind::Ellipsoid ? 0.0 : 1.0, 0.0}; }
  // a joined with one axis' entry e
  NDIMG_HD static Factor join(Factor a, const double* e) {
    if constexpr (K == FourierKind::Ellipsoid) return {a.re + e[0], 0.0};
    // (products rounded alone, as the CPU engine's: nvcc would contract them with the sums)
    else if constexpr (K == FourierKind::Shift)
      return {sub_rn(mul_rn(a.re, e[0]), mul_rn(a.im, e[1])), add_rn(mul_rn(a.re, e[1]), mul_rn(a.im, e[0]))};
    else return {a.re * e[0], 0.0};
  }
  // the factor of an element whose axes joined to a: the ellipsoid's transform of its radius (sinc, the
  // disc's 2 J1(r)/r, the ball's 3 (sin r - r cos r)/r^3)
  NDIMG_HD static Factor finish(Factor a, int ndim) {
    if constexpr (K == FourierKind::Ellipsoid) {
      double v = a.re;
      if (ndim == 1) {
        v = v != 0 ? std::sin(v) / v : 1.0;
      } else {
        const double r = std::sqrt(v);
        // scipy's J1 is NaN at infinity (its asymptotic form takes cos(inf)); the library's is 0
#if defined(__CUDA_ARCH__)
        const auto j1 = [](double x) { return bessel_j1_dd(x); };
#else
        const auto j1 = [](double x) { return ::j1(x); };
#endif
        if (ndim == 2) v = r > 0.0 ? (r - r == 0.0 ? 2.0 * j1(r) / r : r - r) : 1.0;
        else v = r > 0.0 ? 3.0 * sub_rn(std::sin(r), mul_rn(r, std::cos(r))) / (r * r * r) : 1.0;
      }
      return {v, 0.0};
    } else {
      return a;
    }
  }
  // the output (re, im) of input (re, im) (im 0 and unused for real input, CIN false): the filters scale
  // both parts, the shift rotates them; a real input's filtered imaginary part is 0
  template <bool CIN>
  NDIMG_HD static Factor apply(Factor f, double re, double im) {
    if constexpr (K == FourierKind::Shift) {
      if constexpr (CIN) return {sub_rn(mul_rn(re, f.re), mul_rn(im, f.im)), add_rn(mul_rn(re, f.im), mul_rn(im, f.re))};
      else return {re * f.re, re * f.im};
    } else {
      return {re * f.re, CIN ? im * f.re : 0.0};
    }
  }
};

// A call as the engines take it: the traversal (axes ordered so that the last one is the output's
// innermost) and where each axis' table starts in the tables (entries of fourier_width each).
struct FourierArgs {
  Layout l;
  int64_t start[kMaxDim];
  int64_t line_stride[kMaxDim];  // lines per step of each outer axis (the product of the outer axes after it)
  int ndim;                      // of the transform (the ellipsoid's form)
};

// The engines' schedules: in/out parts of at least one element, validated by fourier_filter.
void fourier_cpu(std::span<const View> in, std::span<const View> out, FourierKind kind, const FourierArgs& a,
                 const std::vector<double>& tables);
#ifdef NDIMG_WITH_CUDA
void fourier_cuda(std::span<const View> in, std::span<const View> out, FourierKind kind, const FourierArgs& a,
                  const std::vector<double>& tables, StreamHandle stream);
#endif

}  // namespace ndimg::ndimage
