// Convex polygon rasterisation: per row, the exact interval of columns the polygon covers (the extreme
// crossings of the row with its edges), filled in parallel over rows.
#include "morphology/convex_hull.hpp"

#include <algorithm>
#include <limits>

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

}  // namespace ndimg::morphology
