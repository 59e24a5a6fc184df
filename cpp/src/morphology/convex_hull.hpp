// ndimg::morphology convex hull rasterisation (convex_hull_image's and convex_hull_object's last step): the
// per-line geometry once here for both engines; the entries in convex_hull.cpp, the schedules in
// convex_hull_cpu.cpp and convex_hull_cuda.cu. Every line (a row, or a line along the last axis) gets the
// interval of positions inside the hull; the pixels are then filled from the intervals.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::morphology {

// floor(a / b) and ceil(a / b) for b > 0
NDIMG_HD int64_t floor_div(__int128 a, __int128 b) { return int64_t(a >= 0 ? a / b : -((-a + b - 1) / b)); }
NDIMG_HD int64_t ceil_div(__int128 a, __int128 b) { return -floor_div(-a, b); }

// The columns [lo, hi] of row r inside the convex polygon whose k vertices are `twice` (rows of (2 * row,
// 2 * column), integers: half-pixel vertices are exact), boundary included unless `strict`; lo > hi when
// none. Exact integer tests from the extreme crossings of the row with the edges, so points on edges and
// vertices are told exactly (as scikit-image's crossing test tells them for these coordinates).
NDIMG_HD void polygon_row(const int64_t* twice, int64_t k, int64_t r, bool strict, int64_t& lo, int64_t& hi) {
  const int64_t x = 2 * r;
  lo = INT64_MAX;
  hi = INT64_MIN;
  bool along = false;  // an edge lies on this row: no pixel of it is strictly inside
  for (int64_t e = 0; e < k; ++e) {
    const int64_t x0 = twice[2 * e], y0 = twice[2 * e + 1];
    const int64_t x1 = twice[(2 * e + 2) % (2 * k)], y1 = twice[(2 * e + 3) % (2 * k)];
    if (x < (x0 < x1 ? x0 : x1) || x > (x0 < x1 ? x1 : x0)) continue;
    if (x0 == x1) {
      along = true;
      continue;
    }
    // the crossing's doubled column num / den, den > 0; pixel column c is at doubled column 2c
    __int128 den = x1 - x0, num = __int128(y0) * den + __int128(x - x0) * (y1 - y0);
    if (den < 0) den = -den, num = -num;
    int64_t a, b;
    if (strict) a = floor_div(num, 2 * den) + 1, b = ceil_div(num, 2 * den) - 1;
    else a = ceil_div(num, 2 * den), b = floor_div(num, 2 * den);
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
  }
  if (strict && along) lo = hi + 1;
}

// a * b + c rounded twice, never fused (the host build contracts nothing either)
NDIMG_HD double mul_add(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(__dmul_rn(a, b), c);
#else
  return a * b + c;
#endif
}

// Facet q (ndim normal components, then the offset) at a line's point x (its first ndim - 1 coordinates):
// the offset plus the normal's part over those coordinates.
NDIMG_HD double facet_rest(const double* q, int nd, const int64_t* x) {
  double v = 0.0;
  for (int d = 0; d < nd - 1; ++d) v = mul_add(q[d], double(x[d]), v);
  return v + q[nd];
}

// Whether position c of the line at x is inside every facet of `equations` (f rows of nd + 1 terms):
// normal . x + offset < tolerance.
NDIMG_HD bool hull_inside(const double* equations, int64_t f, int nd, const int64_t* x, int64_t c,
                                 double tolerance) {
  for (int64_t e = 0; e < f; ++e) {
    const double* q = equations + e * (nd + 1);
    if (!(mul_add(q[nd - 1], double(c), facet_rest(q, nd, x)) < tolerance)) return false;
  }
  return true;
}

// The positions [lo, hi] (lo > hi: none) of the line at x (length w) inside the hull: the facets bound an
// interval, widened by a position, whose ends are then settled position by position.
NDIMG_HD void hull_line(const double* equations, int64_t f, int nd, const int64_t* x, int64_t w,
                               double tolerance, int64_t& lo, int64_t& hi) {
  double a = -1.0, b = double(w);
  for (int64_t e = 0; e < f; ++e) {
    const double* q = equations + e * (nd + 1);
    const double rest = facet_rest(q, nd, x), c = q[nd - 1];
    if (c > 0) b = fmin(b, floor((tolerance - rest) / c) + 1.0);
    else if (c < 0) a = fmax(a, ceil((tolerance - rest) / c) - 1.0);
    else if (!(rest < tolerance)) a = double(w), b = -1.0;
  }
  lo = a > 0 ? (a < double(w) ? int64_t(a) : w) : 0;
  hi = b < double(w - 1) ? (b > -1.0 ? int64_t(b) : -1) : w - 1;
  while (lo <= hi && !hull_inside(equations, f, nd, x, lo, tolerance)) ++lo;
  while (hi >= lo && !hull_inside(equations, f, nd, x, hi, tolerance)) --hi;
}

// out (bool, 2-D, any strides) = the pixels (row, column) inside the convex polygon `twice` (k rows of
// (2 * row, 2 * column)), or on its boundary unless `strict`.
void fill_convex_polygon(const View& out, std::span<const int64_t> twice, bool strict, StreamHandle stream = nullptr);

// out (bool, 2-D, any strides) |= the pixels inside or on each polygon p, whose vertices are rows
// starts[p]..starts[p + 1] - 1 of `twice` (as fill_convex_polygon's); the other pixels keep their values.
void fill_convex_polygons(const View& out, std::span<const int64_t> twice, std::span<const int64_t> starts,
                          StreamHandle stream = nullptr);

// out (bool, C-contiguous, n-D) = the pixels x with normal . x + offset < tolerance for every facet of
// `equations` (rows of ndim normal components then the offset, Qhull's ConvexHull.equations).
void fill_convex_hull_nd(const View& out, std::span<const double> equations, double tolerance,
                         StreamHandle stream = nullptr);

// ---- engine schedules (arguments validated by the entries) ----
void fill_convex_polygons_cpu(const View& out, std::span<const int64_t> twice, std::span<const int64_t> starts,
                              bool strict, bool whole);
void fill_convex_hull_nd_cpu(const View& out, std::span<const double> equations, double tolerance);
#ifdef NDIMG_WITH_CUDA
void fill_convex_polygons_cuda(const View& out, std::span<const int64_t> twice, std::span<const int64_t> starts,
                               bool strict, bool whole, StreamHandle stream);
void fill_convex_hull_nd_cuda(const View& out, std::span<const double> equations, double tolerance,
                              StreamHandle stream);
#endif

}  // namespace ndimg::morphology
