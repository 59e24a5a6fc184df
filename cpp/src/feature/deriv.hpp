// Derivative features: the math, written once for both engines, and the schedules' declarations. The
// entries (validation, routing) are in deriv.cpp.
#pragma once
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/engine.hpp"
#include "filters/ridges.hpp"
#include "ndimg/feature_deriv.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

// ---- engine schedules (arguments validated by the entries) ----
void sym_eigvals_cpu(int n, std::span<const View> elems, const View& out);
void hessian_det_box_cpu(const View& integral, const View& out, double sigma);
#ifdef NDIMG_WITH_CUDA
void sym_eigvals_cuda(int n, std::span<const View> elems, const View& out, StreamHandle stream);
void hessian_det_box_cuda(const View& integral, const View& out, double sigma, StreamHandle stream);
#endif

namespace deriv_math {

using filters::ridge_math::n_elems;
// the matrix elements' pointers of one call: the ridge filters' Hessian element pointers
using filters::ridge_math::HessianPtrs;
using filters::ridge_math::hessian_ptrs;
static_assert(kMaxSymDim <= filters::kMaxRidgeDim, "HessianPtrs holds every element of the largest matrix");

// The decreasing eigenvalues of [[h00, h01], [h01, h11]] as scikit-image's NumPy expression rounds them:
// (M00 + M11) / 2 +- sqrt(M01**2 + ((M00 - M11) / 2)**2), each operation rounded on its own.
template <class T>
NDIMG_HD void sym2_eigvals(T h00, T h01, T h11, T* e) {
  const T mean = add_rn(h00, h11) / T(2), half = sub_rn(h00, h11) / T(2);
  const T r = filters::ridge_math::sqrt_(add_rn(square_rn(h01), square_rn(half)));
  e[0] = add_rn(mean, r);
  e[1] = sub_rn(mean, r);
}

// One pixel: its eigenvalues written to out[k * plane + i], decreasing. The 2 x 2 closed form in the
// elements' own type, as scikit-image's NumPy expression rounds it; larger matrices by Jacobi rotations
// in double (backward stable, as LAPACK's eigvalsh).
template <int N, class T>
NDIMG_HD void pixel_eigvals(const HessianPtrs<T>& p, int64_t i, int64_t plane, T* out) {
  using C = std::conditional_t<N == 2, T, double>;
  C h[n_elems(N)], e[N];
  for (int k = 0; k < n_elems(N); ++k) h[k] = C(p.h[k][i]);
  if constexpr (N == 2) {
    sym2_eigvals(h[0], h[1], h[2], e);
  } else {
    filters::ridge_math::sym_eigvals<N, C>(h, e);
  }
  for (int k = 0; k < N; ++k) out[k * plane + i] = T(e[k]);
}

// Python's floor division (the box offsets of negative sizes round down).
NDIMG_HD int64_t floordiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// SURF's box-filter sizes at one scale (skimage's _hessian_matrix_det), with the offsets every pixel uses.
struct BoxSizes {
  int64_t s2, s3, s3h, w;   // s3h: s3 // 2
  double w_i;
};
inline BoxSizes box_sizes(double sigma) {
  const int64_t size = int64_t(3 * sigma);
  const int64_t s3 = floordiv(size, 3);
  return {floordiv(size - 1, 2), s3, floordiv(s3, 2), size, 1.0 / double(size) / double(size)};
}

NDIMG_HD int64_t clip_index(int64_t x, int64_t hi) { return x > hi ? hi : (x < 0 ? 0 : x); }

// The sum over rl x cl pixels from (r, c) (corners clipped to the image) of an integral image, at least 0.
NDIMG_HD double box(const double* ii, int64_t h, int64_t w, int64_t r, int64_t c, int64_t rl, int64_t cl) {
  r = clip_index(r, h - 1);
  c = clip_index(c, w - 1);
  const int64_t r2 = clip_index(r + rl, h - 1), c2 = clip_index(c + cl, w - 1);
  const double ans = sub_rn(sub_rn(add_rn(ii[r * w + c], ii[r2 * w + c2]), ii[r * w + c2]), ii[r2 * w + c]);
  return ans > 0 ? ans : 0.0;   // NaN gives 0, as Python's max(0.0, ans)
}

NDIMG_HD double hessian_det_at(const double* ii, int64_t h, int64_t w, int64_t r, int64_t c, const BoxSizes& b) {
  const int64_t s3 = b.s3;
  const double tl = box(ii, h, w, r - s3, c - s3, s3, s3), br = box(ii, h, w, r + 1, c + 1, s3, s3);
  const double bl = box(ii, h, w, r - s3, c + 1, s3, s3), tr = box(ii, h, w, r + 1, c - s3, s3, s3);
  const double dxy = mul_rn(-sub_rn(sub_rn(add_rn(bl, tr), tl), br), b.w_i);
  double mid = box(ii, h, w, r - s3 + 1, c - b.s2, 2 * s3 - 1, b.w);
  double side = box(ii, h, w, r - s3 + 1, c - b.s3h, 2 * s3 - 1, s3);
  const double dxx = mul_rn(-sub_rn(mid, mul_rn(3.0, side)), b.w_i);
  mid = box(ii, h, w, r - b.s2, c - s3 + 1, b.w, 2 * s3 - 1);
  side = box(ii, h, w, r - b.s3h, c - s3 + 1, s3, 2 * s3 - 1);
  const double dyy = mul_rn(-sub_rn(mid, mul_rn(3.0, side)), b.w_i);
  return sub_rn(mul_rn(dxx, dyy), mul_rn(0.81, square_rn(dxy)));
}

// f.template operator()<N>() for a matrix size 1..kMaxSymDim.
template <class F>
void dispatch_sym(int n, F&& f) {
  switch (n) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 3: f.template operator()<3>(); break;
    default: f.template operator()<4>(); break;
  }
  static_assert(kMaxSymDim == 4, "dispatch_sym covers 1..4");
}

}  // namespace deriv_math
}  // namespace ndimg::feature
