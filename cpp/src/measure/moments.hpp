// Raw and central image moments per label (regionprops): for every element with slot s >= 0,
//   out[s, p_0, ..., p_{nd-1}] += w * prod_d ((idx_d - origin[s, d]) * spacing[d] - center[s, d])^p_d
// for all powers p_d <= order, w being the element's value (or 1 without weights). origin = the region's
// bounding-box start and center = 0 gives scikit-image's moments of the region's crop; center = the local
// centroid its central moments, each in one pass for all labels. The math is here, once, for both engines.
#pragma once
#include <cstdint>
#include <span>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::measure {

constexpr int kMaxMomentTerms = 64;   // (order + 1)^ndim: order 3 in 3-D
constexpr int kMaxMomentDim = 6, kMaxMomentOrder = 7;

// Adds w * the products of the coordinates' powers into acc[(order+1)^nd] (C order over the powers).
// c: the element's nd coordinates relative to the center.
NDIMG_HD void add_moment_terms(const double* c, int nd, int order, double w, double* acc) {
  double pw[kMaxMomentDim][kMaxMomentOrder + 1];
  for (int d = 0; d < nd; ++d) {
    pw[d][0] = 1.0;
    for (int k = 1; k <= order; ++k) pw[d][k] = pw[d][k - 1] * c[d];
  }
  // the products axis by axis, the last axis fastest: term t = prefix product * pw[last][p]
  double prod[kMaxMomentTerms];
  int n = 1;
  prod[0] = w;
  for (int d = 0; d < nd; ++d) {
    for (int t = n - 1; t >= 0; --t)
      for (int k = order; k >= 0; --k) prod[t * (order + 1) + k] = prod[t] * pw[d][k];
    n *= order + 1;
  }
  for (int t = 0; t < n; ++t) acc[t] += prod[t];
}

// The coordinates of the element of C-order index vector idx in slot s.
NDIMG_HD void moment_coords(const int64_t* idx, int nd, int32_t s, const int64_t* origin, const double* center,
                                   const double* spacing, double* c) {
  for (int d = 0; d < nd; ++d)
    c[d] = double(idx[d] - origin[int64_t(s) * nd + d]) * spacing[d] - center[int64_t(s) * nd + d];
}

// One image's moments (measure.moments, moments_central, centroid), in float64:
//   out[p_0, ..., p_{nd-1}] = sum w * prod_d (idx_d * spacing[d] - center[d])^p_d
// taken line by line along the last axis: a line's sums s[k] = sum w * c^k (k <= order, c its coordinate along
// that axis) first, then each term = s[p_last] times the line's outer coordinates to their powers.
NDIMG_HD double moment_coord(int64_t idx, double spacing, double center) { return double(idx) * spacing - center; }
// The element offset of line l (C order over the outer axes 0 .. last - 1) and those axes' coordinates.
NDIMG_HD int64_t line_origin(int64_t l, int last, const int64_t* shape, const int64_t* strides, const double* spacing,
                             const double* center, double* outer) {
  int64_t base = 0;
  for (int d = last - 1; d >= 0; --d) {
    const int64_t i = l % shape[d];
    l /= shape[d];
    base += i * strides[d];
    outer[d] = moment_coord(i, spacing[d], center[d]);
  }
  return base;
}
// Term t of (order+1)^nd (C order over the powers) of a line whose sum s[t % (order + 1)] is `last`: outer =
// the line's nd - 1 outer coordinates.
NDIMG_HD double line_term(double last, const double* outer, int nd, int order, int t) {
  t /= order + 1;
  for (int d = nd - 2; d >= 0; --d, t /= order + 1)
    for (int k = 0; k < t % (order + 1); ++k) last *= outer[d];
  return last;
}

// Entry of one image's moments: in (any real dtype, 1 to 6 axes), center and spacing (ndim each), out (float64,
// C-contiguous, (order+1)^ndim <= 64 elements) on in's device.
void image_moments(const View& in, std::span<const double> center, std::span<const double> spacing, int order,
                   const View& out, StreamHandle stream = nullptr);
void image_moments_cpu(const View& in, const double* center, const double* spacing, int order, double* out);
#ifdef NDIMG_WITH_CUDA
void image_moments_cuda(const View& in, const double* center, const double* spacing, int order, double* out,
                        StreamHandle s);
#endif

// Entry: in (any real dtype, of the slots' shape; or empty: weight 1), slots (int32, C-contiguous), origin
// (nslots, nd) int64, center (nslots, nd) float64, spacing (nd) float64, out (nslots, (order+1)^nd) float64,
// zeroed by the caller.
void label_moments(const View& in, const View& slots, const View& origin, const View& center, const View& spacing,
                   int order, const View& out, StreamHandle stream = nullptr);

void label_moments_cpu(const View& in, const View& slots, const View& origin, const View& center,
                       const View& spacing, int order, const View& out);
#ifdef NDIMG_WITH_CUDA
void label_moments_cuda(const View& in, const View& slots, const View& origin, const View& center,
                        const View& spacing, int order, const View& out, StreamHandle s);
#endif

}  // namespace ndimg::measure
