// stencils: K n-D stencils of one image in one sweep, each summed in double as scipy's correlate sums
// (correlate_taps), rounded to the float type T and combined in T (scikit-image's edge filters and their
// gradient magnitude, rounded as its NumPy operations round).
#pragma once
#include <cmath>

#include "ndimage/correlate_nd.hpp"

namespace ndimg::ndimage {

// How the stencils' rounded values make the output.
struct StencilCombine {
  int64_t count;  // K
  double scale;
  bool scale_in_double;
};

// Stencil k's double sum joins the running result r: rounded to T, it is the result of a single stencil,
// else its square (in T) starts or extends the sum of squares.
template <class T>
NDIMG_HD T stencil_add(T r, int64_t k, const StencilCombine& sc, double sum) {
  const T p = T(sum);
  if (sc.count == 1) return p;
  return k == 0 ? square_rn(p) : r + square_rn(p);  // the square rounded before the sum, as NumPy's
}

template <class T>
NDIMG_HD T stencil_finish(T r, const StencilCombine& sc) {
  if (sc.count == 1) return r;
  const T m = std::sqrt(r);  // division and sqrt round correctly on both engines
  return sc.scale_in_double ? T(double(m) / sc.scale) : m / T(sc.scale);
}

// The math of one output element: stencil k is the counts[k] taps following the previous stencils' ones.
template <class T>
NDIMG_HD T stencils_value(const Geometry& g, const int64_t* c, const T* in, const int64_t* offsets,
                          const int64_t* linear, const double* w, const int64_t* counts, const StencilCombine& sc,
                          Mode mode, double cval) {
  T r = 0;
  for (int64_t k = 0, first = 0; k < sc.count; first += counts[k++])
    r = stencil_add(r, k, sc,
                    correlate_taps<double>(g, c, in, offsets + first * g.ndim, linear + first, w + first, counts[k],
                                           mode, cval));
  return stencil_finish(r, sc);
}

// The engines' schedules (validated views: float32/float64 of one dtype and shape, at least one element).
void stencils_cpu(const View& in, const View& out, const Taps& t, std::span<const double> w,
                  std::span<const int64_t> counts, const StencilCombine& sc, Mode mode, double cval);
#ifdef NDIMG_WITH_CUDA
void stencils_cuda(const View& in, const View& out, const Taps& t, std::span<const double> w,
                   std::span<const int64_t> counts, const StencilCombine& sc, Mode mode, double cval,
                   StreamHandle stream);
#endif

}  // namespace ndimg::ndimage
