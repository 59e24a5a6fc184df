// Niblack/Sauvola local thresholds: the per-pixel math, written once for both engines, and the engine
// schedules' declarations. The entry is in threshold.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimage/boundary.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/threshold.hpp"

namespace ndimg::threshold {

// Sum of `get(j)` over the window of `w` (odd) samples centred on i of a line of n, mirror boundary.
template <class G>
NDIMG_HD double window_sum(int64_t i, int64_t n, int64_t w, G get) {
  double s = 0;
  for (int64_t j = i - w / 2; j <= i + w / 2; ++j) s += get(extend_index(j, n, Mode::Mirror));
  return s;
}
// skimage's arithmetic after the double window sums: cast to the float type, divide, clip the variance.
template <class F>
NDIMG_HD F local_value(double sum, double sumsq, F size, LocalKind kind, F k, F r) {
  const F m = F(sum) / size;
  const F g2 = F(sumsq) / size;
  // m * m rounded (and overflowing) on its own, not fused into the subtraction: inf - inf is NaN where
  // scikit-image's is
  F var = g2 - square_rn(m);
  var = var < F(0) ? F(0) : var;  // NaN stays NaN
  F s;
  if constexpr (std::is_same_v<F, float>) s = sqrtf(var);
  else s = sqrt(var);
  if (kind == LocalKind::Niblack) return m - k * s;
  return m * (F(1) + k * ((s / r) - F(1)));
}

// ---- engine schedules (arguments validated by the entry) ----
void local_threshold_cpu(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind,
                         double k, double r);
#ifdef NDIMG_WITH_CUDA
void local_threshold_cuda(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind,
                          double k, double r, StreamHandle s);
#endif

}  // namespace ndimg::threshold
