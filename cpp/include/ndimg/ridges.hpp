// ndimg::filters ridges — the per-pixel part of skimage.filters' frangi / hessian / sato / meijering.
// Python computes the Hessian of one scale with Gaussian-derivative filters; here each pixel's symmetric
// matrix gets its eigenvalues and the filter's measure, which is folded into the running maximum over scales.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::filters {

// Norm is not a filter: it is the Hessian's Frobenius norm sqrt(sum eig^2), whose maximum frangi needs
// for its default gamma.
enum class Ridge : uint8_t { Frangi, Sato, Meijering, Norm };

struct RidgeParams {
  double alpha = 0.5;   // frangi: plate sensitivity; meijering: the shaping constant
  double beta = 0.5;    // frangi: blob sensitivity
  double gamma = 15;    // frangi: structure sensitivity
  double scale = 1;     // sato: sigma**2, the factor of the measure
  double norm = 1;      // meijering: the divisor of the measure (its positive maximum, else 1)
  bool fill = false;    // hessian: after the fold, values <= 0 become 1
};

// Largest dimensionality handled per pixel: meijering takes 1 to 4 (scikit-image's, any), frangi and sato 2 or 3.
constexpr int kMaxRidgeDim = 4;

// The maximum over all pixels of the measure `kind` (Meijering before normalisation, or Norm); NaN if
// any pixel's measure is NaN, as numpy's max. `hessian` holds the n(n+1)/2 upper-triangle elements in
// row-major order (H00, H01, ..., H11, ...), C-contiguous float arrays of one dtype and shape.
double ridge_max(Ridge kind, std::span<const View> hessian, const RidgeParams& p, StreamHandle stream = nullptr);

// acc = maximum(acc, measure) per pixel (NaN propagating, like numpy.maximum), then the `fill` rule.
// acc: C-contiguous, the Hessian's shape, dtype the Hessian's or float64.
void ridge_accumulate(Ridge kind, std::span<const View> hessian, const View& acc, const RidgeParams& p,
                      StreamHandle stream = nullptr);

}  // namespace ndimg::filters
