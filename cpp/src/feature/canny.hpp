// Canny's non-maximum suppression: the per-pixel math once for both engines (scikit-image's bilinear
// suppression loop, rounding step for step), and the schedules' declarations. The entry is canny.cpp.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/feature_texture.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

// The gradient magnitude as NumPy computes it in T: the squares and their sum each rounded in T.
template <class T>
NDIMG_HD T gradient_magnitude(T gi, T gj) {
  const T s = add_rn(square_rn(gi), square_rn(gj));
  if constexpr (sizeof(T) == 4) return sqrtf(s);
  else return sqrt(s);
}

template <class T>
NDIMG_HD T abs_of(T x) {
  if constexpr (sizeof(T) == 4) return fabsf(x);
  else return fabs(x);
}

// One pixel of the gradient magnitude.
template <class T>
struct CannyMagnitude {
  const T* gi;
  const T* gj;
  T* mag;
  int64_t cols;
  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    const int64_t o = r * cols + c;
    mag[o] = gradient_magnitude(gi[o], gj[o]);
  }
};

// One pixel: 0, 1 (a local maximum across the edge at or above `low`) or 2 (also at or above `high`). The
// two neighbours along the gradient are interpolated between the 4- and the 8-neighbour as scikit-image
// does: the weight and its product with the diagonal neighbour in T, the rest of the sum in double (its
// 1.0 - w is a double). scikit-image's four cases are selects here, not branches (gradient directions are
// as good as random from one pixel to the next): with gradients of one sign the diagonal is down-right,
// else up-right; the 4-neighbour is down (up for opposite signs) where the gradient along the rows
// dominates, else right; the mirrored pair is on the other side.
template <class T>
struct CannySuppress {
  const T* gi;
  const T* gj;
  const T* mag;
  const uint8_t* mask;
  uint8_t* out;
  int64_t rows, cols;
  double low, high;

  NDIMG_HD bool not_above(double m, int64_t near, int64_t diag, T w) const {
    return add_rn(double(mul_rn(mag[diag], w)), mul_rn(double(mag[near]), 1.0 - double(w))) <= m;
  }
  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    const int64_t o = r * cols + c;
    // scikit-image's eroded mask is always clear on the frame, which its loop relies on
    if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1) {
      out[o] = 0;
      return;
    }
    const T m = mag[o], a = gi[o], b = gj[o];
    const T abs_a = abs_of(a), abs_b = abs_of(b);
    const bool same = (a <= T(0)) == (b <= T(0));
    const bool rows_dominate = same ? abs_a > abs_b : !(abs_a < abs_b);
    const T w = rows_dominate ? abs_b / abs_a : abs_a / abs_b;
    const int64_t diag = same ? cols + 1 : 1 - cols;
    const int64_t near = rows_dominate ? (same ? cols : -cols) : 1;
    const bool peak = not_above(double(m), o + near, o + diag, w) & not_above(double(m), o - near, o - diag, w);
    const bool candidate = mask[o] && double(m) >= low && peak;
    out[o] = candidate ? (double(m) >= high ? 2 : 1) : 0;
  }
};

// ---- engine schedules (arguments validated by the entries) ----
// The schedules' float type of a view: float32 stays, anything else is float64 (host side, both engines).
template <class F>
void on_float(const View& v, F&& f) {
  if (v.dtype == DType::F32) f.template operator()<float>();
  else f.template operator()<double>();
}

void gradient_magnitude_cpu(const View& gi, const View& gj, const View& out);
void canny_suppress_cpu(const View& gi, const View& gj, const View& mag, const View& mask, double low, double high,
                        const View& out);
void canny_hysteresis_cpu(const View& classes, const View& out);
#ifdef NDIMG_WITH_CUDA
void gradient_magnitude_cuda(const View& gi, const View& gj, const View& out, StreamHandle s);
void canny_suppress_cuda(const View& gi, const View& gj, const View& mag, const View& mask, double low, double high,
                         const View& out, StreamHandle s);
#endif

}  // namespace ndimg::feature
