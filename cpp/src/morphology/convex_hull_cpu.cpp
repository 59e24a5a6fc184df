// Convex hull rasterisation on the thread pool: the lines of a polygon (or of the n-D hull) in parallel, each
// line's interval from convex_hull.hpp, then its pixels.
#include <algorithm>

#include "morphology/convex_hull.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::morphology {

void fill_convex_polygons_cpu(const View& out, std::span<const int64_t> twice, std::span<const int64_t> starts,
                              bool strict, bool whole) {
  const int64_t h = out.shape[0], w = out.shape[1];
  bool* o = out.ptr<bool>();
  for (size_t p = 0; p + 1 < starts.size(); ++p) {
    const int64_t* v = twice.data() + 2 * starts[p];
    const int64_t k = starts[p + 1] - starts[p];
    // the rows the polygon reaches (all rows when the whole image is written)
    int64_t r0 = 0, r1 = h - 1;
    if (!whole) {
      int64_t x0 = v[0], x1 = v[0];
      for (int64_t e = 1; e < k; ++e) x0 = std::min(x0, v[2 * e]), x1 = std::max(x1, v[2 * e]);
      r0 = std::max<int64_t>(ceil_div(x0, 2), 0);
      r1 = std::min<int64_t>(floor_div(x1, 2), h - 1);
    }
    parallel_for(std::max<int64_t>(r1 - r0 + 1, 0), 16, [&](int64_t a, int64_t b) {
      for (int64_t r = r0 + a; r < r0 + b; ++r) {
        int64_t lo, hi;
        polygon_row(v, k, r, strict, lo, hi);
        lo = std::max<int64_t>(lo, 0);
        hi = std::min<int64_t>(hi, w - 1);
        bool* row = o + r * out.strides[0];
        if (whole)
          for (int64_t c = 0; c < w; ++c) row[c * out.strides[1]] = c >= lo && c <= hi;
        else
          for (int64_t c = lo; c <= hi; ++c) row[c * out.strides[1]] = true;
      }
    });
  }
}

void fill_convex_hull_nd_cpu(const View& out, std::span<const double> equations, double tolerance) {
  const int nd = out.ndim;
  const int64_t f = int64_t(equations.size()) / (nd + 1), w = out.shape[nd - 1], lines = out.size() / w;
  bool* o = out.ptr<bool>();
  parallel_for(lines, 16, [&](int64_t l0, int64_t l1) {
    int64_t x[kMaxDim];
    for (int64_t l = l0; l < l1; ++l) {
      for (int64_t d = nd - 2, r = l; d >= 0; --d) {
        x[d] = r % out.shape[d];
        r /= out.shape[d];
      }
      int64_t lo, hi;
      hull_line(equations.data(), f, nd, x, w, tolerance, lo, hi);
      bool* row = o + l * w;
      for (int64_t c = 0; c < w; ++c) row[c] = c >= lo && c <= hi;
    }
  });
}

}  // namespace ndimg::morphology
