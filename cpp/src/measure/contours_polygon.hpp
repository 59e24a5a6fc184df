// Points against a polygon (scikit-image's pnpoly, after O'Rourke's crossing test): 0 outside, 1 inside,
// 2 on a vertex (within 1e-12 on both axes), 3 on an edge; the test once, the loops over points on the pool.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::measure {

// Where the edge from (x1, y1) to (x0, y0), both relative to the point, crosses the point's row: its
// abscissa relative to the point (pnpoly's test, defined where the edge straddles the row).
NDIMG_HD double edge_crossing(double x0, double y0, double x1, double y1) { return (x0 * y1 - x1 * y0) / (y1 - y0); }

NDIMG_HD uint8_t point_in_polygon(const double* xp, const double* yp, int64_t n, double x, double y) {
  constexpr double eps = 1e-12;
  if (n == 0) return 0;
  double x1 = xp[n - 1] - x, y1 = yp[n - 1] - y;
  uint32_t right = 0, left = 0;  // crossings of the horizontal ray on each side
  for (int64_t i = 0; i < n; ++i) {
    const double x0 = xp[i] - x, y0 = yp[i] - y;
    if (-eps < x0 && x0 < eps && -eps < y0 && y0 < eps) return 2;
    if ((y0 > 0) != (y1 > 0) && edge_crossing(x0, y0, x1, y1) > 0) ++right;
    if ((y0 < 0) != (y1 < 0) && edge_crossing(x0, y0, x1, y1) < 0) ++left;
    x1 = x0;
    y1 = y0;
  }
  if ((right & 1) != (left & 1)) return 3;
  return right & 1 ? 1 : 0;
}

// out[k] = point_in_polygon(.., x[k], y[k]) for k < npoints.
void points_in_polygon(const double* xp, const double* yp, int64_t nverts, const double* x, const double* y,
                       int64_t npoints, uint8_t* out);
// out[m, n] = point_in_polygon(.., m, n): out a C-contiguous uint8 (rows, cols) array, xp and yp the
// vertices as float64 vectors on out's device.
void grid_points_in_polygon(const View& xp, const View& yp, const View& out, StreamHandle stream = nullptr);

// ---- engine schedules (arguments validated by the entry) ----
void grid_points_in_polygon_cpu(const double* xp, const double* yp, int64_t nverts, int64_t rows, int64_t cols,
                                uint8_t* out);
#ifdef NDIMG_WITH_CUDA
void grid_points_in_polygon_cuda(const double* xp, const double* yp, int64_t nverts, int64_t rows, int64_t cols,
                                 uint8_t* out, int device, StreamHandle stream);
#endif

}  // namespace ndimg::measure
