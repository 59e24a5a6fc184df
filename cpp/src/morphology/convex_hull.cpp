// Convex polygon rasterisation: per row, the exact interval of columns the polygon covers (the extreme
// crossings of the row with its edges), filled in parallel over rows.
#include "morphology/convex_hull.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <vector>

#include "ndimg/parallel.hpp"

namespace ndimg::morphology {
namespace {

// floor(a / b) and ceil(a / b) for b > 0
int64_t floor_div(__int128 a, __int128 b) { return int64_t(a >= 0 ? a / b : -((-a + b - 1) / b)); }
int64_t ceil_div(__int128 a, __int128 b) { return -floor_div(-a, b); }

}  // namespace

void fill_convex_polygon(const View& out, std::span<const int64_t> twice, bool strict) {
  if (out.device != Device::CPU || out.ndim != 2 || out.dtype != DType::Bool)
    throw ValueError("convex_hull_image: a 2-D bool host output is expected");
  if (twice.size() % 2 || twice.size() < 6) throw ValueError("convex_hull_image: a polygon of 3 vertices or more");
  const int64_t h = out.shape[0], w = out.shape[1], k = int64_t(twice.size() / 2);
  bool* o = out.ptr<bool>();
  parallel_for(h, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t x = 2 * r;
      int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
      bool along = false;  // an edge lies on this row: no pixel of it is strictly inside
      for (int64_t e = 0; e < k; ++e) {
        const int64_t x0 = twice[2 * e], y0 = twice[2 * e + 1];
        const int64_t x1 = twice[(2 * e + 2) % (2 * k)], y1 = twice[(2 * e + 3) % (2 * k)];
        if (x < std::min(x0, x1) || x > std::max(x0, x1)) continue;
        if (x0 == x1) {
          along = true;
          continue;
        }
        // the crossing's doubled column num / den, den > 0; pixel column c is at doubled column 2c
        __int128 den = x1 - x0, num = __int128(y0) * den + __int128(x - x0) * (y1 - y0);
        if (den < 0) den = -den, num = -num;
        if (strict) {
          lo = std::min(lo, floor_div(num, 2 * den) + 1);
          hi = std::max(hi, ceil_div(num, 2 * den) - 1);
        } else {
          lo = std::min(lo, ceil_div(num, 2 * den));
          hi = std::max(hi, floor_div(num, 2 * den));
        }
      }
      if (strict && along) lo = hi + 1;
      lo = std::max<int64_t>(lo, 0);
      hi = std::min<int64_t>(hi, w - 1);
      for (int64_t c = 0; c < w; ++c) o[r * out.strides[0] + c * out.strides[1]] = c >= lo && c <= hi;
    }
  });
}

void fill_convex_hull_nd(const View& out, std::span<const double> equations, double tolerance) {
  if (out.device != Device::CPU || out.dtype != DType::Bool || !out.c_contiguous() || out.ndim < 1)
    throw ValueError("convex_hull_image: a C-contiguous bool host output is expected");
  const int nd = out.ndim;
  const int64_t f = int64_t(equations.size()) / (nd + 1), w = out.shape[nd - 1], lines = out.size() / std::max<int64_t>(w, 1);
  if (int64_t(equations.size()) != f * (nd + 1)) throw ValueError("convex_hull_image: equations of ndim + 1 terms");
  if (out.size() == 0) return;
  bool* o = out.ptr<bool>();
  parallel_for(lines, 16, [&](int64_t l0, int64_t l1) {
    std::vector<double> rest(static_cast<size_t>(f)), x(static_cast<size_t>(nd));
    auto inside = [&](int64_t c) {  // one pixel, all facets
      for (int64_t e = 0; e < f; ++e)
        if (!(rest[e] + equations[e * (nd + 1) + nd - 1] * double(c) < tolerance)) return false;
      return true;
    };
    for (int64_t l = l0; l < l1; ++l) {
      int64_t r = l;
      for (int d = nd - 2; d >= 0; --d) {
        x[d] = double(r % out.shape[d]);
        r /= out.shape[d];
      }
      double lo = -1.0, hi = double(w);  // the interval of the last coordinate, widened by a pixel
      for (int64_t e = 0; e < f; ++e) {
        const double* q = &equations[e * (nd + 1)];
        double v = 0.0;
        for (int d = 0; d < nd - 1; ++d) v += q[d] * x[d];
        rest[e] = v + q[nd];
        const double c = q[nd - 1];
        if (c > 0) hi = std::min(hi, std::floor((tolerance - rest[e]) / c) + 1.0);
        else if (c < 0) lo = std::max(lo, std::ceil((tolerance - rest[e]) / c) - 1.0);
        else if (!(rest[e] < tolerance)) lo = double(w), hi = -1.0;
      }
      bool* row = o + l * w;
      std::fill(row, row + w, false);
      int64_t a = std::max<int64_t>(0, int64_t(lo)), b = std::min<int64_t>(w - 1, int64_t(hi));
      while (a <= b && !inside(a)) ++a;
      while (b >= a && !inside(b)) --b;
      std::fill(row + std::max<int64_t>(a, 0), row + std::max<int64_t>(b + 1, a), true);
    }
  });
}

}  // namespace ndimg::morphology
