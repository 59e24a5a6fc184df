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
    else if constexpr (K == FourierKind::Shift) return {a.re * e[0] - a.im * e[1], a.re * e[1] + a.im * e[0]};
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
        if (ndim == 2) v = r > 0.0 ? (r - r == 0.0 ? 2.0 * ::j1(r) / r : r - r) : 1.0;
        else v = r > 0.0 ? 3.0 * (std::sin(r) - r * std::cos(r)) / (r * r * r) : 1.0;
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
      if constexpr (CIN) return {re * f.re - im * f.im, re * f.im + im * f.re};
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
