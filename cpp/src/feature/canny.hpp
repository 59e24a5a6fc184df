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

// One pixel: 0, 1 (a local maximum across the edge at or above `low`) or 2 (also at or above `high`). The
// two neighbours along the gradient are interpolated between the 4- and the 8-neighbour as scikit-image
// does: the weight and its product with the diagonal neighbour in T, the rest of the sum in double (its
// 1.0 - w is a double).
template <class T>
struct CannySuppress {
  const T* gi;
  const T* gj;
  const uint8_t* mask;
  uint8_t* out;
  int64_t rows, cols;
  double low, high;

  NDIMG_HD T mag(int64_t o) const { return gradient_magnitude(gi[o], gj[o]); }
  NDIMG_HD bool not_above(double m, int64_t near, int64_t diag, T w) const {
    return add_rn(double(mul_rn(mag(diag), w)), mul_rn(double(mag(near)), 1.0 - double(w))) <= m;
  }
  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    const int64_t o = r * cols + c;
    out[o] = 0;
    // scikit-image's eroded mask is always clear on the frame, which its loop relies on
    if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1 || !mask[o]) return;
    const T m = mag(o);
    if (!(double(m) >= low)) return;
    const T a = gi[o], b = gj[o];
    const T abs_a = abs_of(a), abs_b = abs_of(b);
    const int64_t down = cols, right = 1;
    int64_t near1, diag1, near2, diag2;
    T w;
    if ((a <= T(0)) == (b <= T(0))) {  // both gradients of one sign
      if (abs_a > abs_b) {
        w = abs_b / abs_a;
        near1 = o + down, diag1 = o + down + right, near2 = o - down, diag2 = o - down - right;
      } else {
        w = abs_a / abs_b;
        near1 = o + right, diag1 = o + down + right, near2 = o - right, diag2 = o - down - right;
      }
    } else if (abs_a < abs_b) {
      w = abs_a / abs_b;
      near1 = o + right, diag1 = o - down + right, near2 = o - right, diag2 = o + down - right;
    } else {
      w = abs_b / abs_a;
      near1 = o - down, diag1 = o - down + right, near2 = o + down, diag2 = o + down - right;
    }
    if (!not_above(double(m), near1, diag1, w) || !not_above(double(m), near2, diag2, w)) return;
    out[o] = double(m) >= high ? 2 : 1;
  }
};

// ---- engine schedules (arguments validated by the entry) ----
void canny_suppress_cpu(const View& gi, const View& gj, const View& mask, double low, double high, const View& out);
#ifdef NDIMG_WITH_CUDA
void canny_suppress_cuda(const View& gi, const View& gj, const View& mask, double low, double high, const View& out,
                         StreamHandle s);
#endif

}  // namespace ndimg::feature
