#include "measure/contours_polygon.hpp"

#include <algorithm>

#include "ndimg/parallel.hpp"

namespace ndimg::measure {

void points_in_polygon(const double* xp, const double* yp, int64_t nverts, const double* x, const double* y,
                       int64_t npoints, uint8_t* out) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / (nverts + 1));
  parallel_for(npoints, grain, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) out[k] = point_in_polygon(xp, yp, nverts, x[k], y[k]);
  });
}

void grid_points_in_polygon(const double* xp, const double* yp, int64_t nverts, int64_t rows, int64_t cols,
                            uint8_t* out) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / ((nverts + 1) * (cols + 1)));
  parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = point_in_polygon(xp, yp, nverts, double(r), double(c));
  });
}

}  // namespace ndimg::measure
