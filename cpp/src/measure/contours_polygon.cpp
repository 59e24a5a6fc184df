#include "measure/contours_polygon.hpp"

#include <algorithm>

#include "core/engine.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::measure {

void points_in_polygon(const double* xp, const double* yp, int64_t nverts, const double* x, const double* y,
                       int64_t npoints, uint8_t* out) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / (nverts + 1));
  parallel_for(npoints, grain, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) out[k] = point_in_polygon(xp, yp, nverts, x[k], y[k]);
  });
}

void grid_points_in_polygon_cpu(const double* xp, const double* yp, int64_t nverts, int64_t rows, int64_t cols,
                                uint8_t* out) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / ((nverts + 1) * (cols + 1)));
  parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = point_in_polygon(xp, yp, nverts, double(r), double(c));
  });
}

void grid_points_in_polygon(const View& xp, const View& yp, const View& out, StreamHandle stream) {
  const char* op = "grid_points_in_polygon";
  require_same_device(xp, out, op);
  require_same_device(yp, out, op);
  if (xp.ndim != 1 || yp.ndim != 1 || xp.shape[0] != yp.shape[0] || xp.dtype != DType::F64 ||
      yp.dtype != DType::F64 || !xp.c_contiguous() || !yp.c_contiguous())
    throw ValueError("grid_points_in_polygon: the vertices are two float64 vectors of one length");
  if (out.ndim != 2 || out.dtype != DType::U8 || !out.c_contiguous())
    throw ValueError("grid_points_in_polygon: out must be a C-contiguous 2-D uint8 array");
  const int64_t n = xp.shape[0], rows = out.shape[0], cols = out.shape[1];
  if (rows * cols == 0) return;
  NDIMG_ROUTE(out, op, grid_points_in_polygon_cpu(xp.ptr<double>(), yp.ptr<double>(), n, rows, cols, out.ptr<uint8_t>()),
              grid_points_in_polygon_cuda(xp.ptr<double>(), yp.ptr<double>(), n, rows, cols, out.ptr<uint8_t>(),
                                          out.device_id, stream));
}

}  // namespace ndimg::measure
