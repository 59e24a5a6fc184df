// The convex hull images of many 2-D regions at once (regionprops' image_convex, area_convex, solidity), in
// exact integer arithmetic: scikit-image's hull of the midpoints of the region's pixel faces, and the pixel
// centres on or inside it. Coordinates are doubled so that the face midpoints are integers. Only a row's
// first and last pixel can give hull points, and the hull's left boundary is the lower convex envelope of the
// smallest x at each (doubled) y, its right boundary the upper envelope of the largest x: two monotone
// chains, then one span of columns per row. The math is here, once, for both engines.
#pragma once
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::measure {

NDIMG_HD int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0

// The spans [lo, hi] (columns; lo > hi: none) of region s's hull on each row r0..r1-1 of its box into spans
// (2 per row). slots: the C-contiguous slot image of `width` columns. scratch: 4 * (2 * (r1 - r0) + 1).
NDIMG_HD void hull_spans(const int32_t* slots, int64_t width, int32_t s, int64_t r0, int64_t r1, int64_t c0,
                                int64_t c1, int64_t* scratch, int64_t* spans) {
  const int64_t h = r1 - r0, m = 2 * h + 1;   // doubled y = 2 * r0 - 1 + k, k < m
  constexpr int64_t kNone = INT64_MAX;
  int64_t *mn = scratch, *mx = scratch + m, *lower = scratch + 2 * m, *upper = scratch + 3 * m;
  for (int64_t k = 0; k < m; ++k) mn[k] = kNone, mx[k] = -kNone;
  for (int64_t r = r0; r < r1; ++r) {
    const int32_t* row = slots + r * width;
    int64_t L = -1, R = -1;
    for (int64_t c = c0; c < c1; ++c)
      if (row[c] == s) {
        if (L < 0) L = c;
        R = c;
      }
    if (L < 0) continue;
    const int64_t k = 2 * (r - r0);   // the face midpoints above (k), beside (k + 1) and below (k + 2)
    const int64_t lx[3] = {2 * L, 2 * L - 1, 2 * L}, rx[3] = {2 * R, 2 * R + 1, 2 * R};
    for (int j = 0; j < 3; ++j) {
      if (lx[j] < mn[k + j]) mn[k + j] = lx[j];
      if (rx[j] > mx[k + j]) mx[k + j] = rx[j];
    }
  }
  // monotone chains over k: lower envelope of (k, mn[k]), upper envelope of (k, mx[k])
  int64_t nl = 0, nu = 0;
  for (int64_t k = 0; k < m; ++k) {
    if (mn[k] == kNone) continue;
    while (nl >= 2) {
      const int64_t a = lower[nl - 2], b = lower[nl - 1];
      if ((b - a) * (mn[k] - mn[a]) - (mn[b] - mn[a]) * (k - a) > 0) break;
      --nl;
    }
    lower[nl++] = k;
    while (nu >= 2) {
      const int64_t a = upper[nu - 2], b = upper[nu - 1];
      if ((b - a) * (mx[k] - mx[a]) - (mx[b] - mx[a]) * (k - a) < 0) break;
      --nu;
    }
    upper[nu++] = k;
  }
  // the pixel centres of row r are at k = 2 (r - r0) + 1 and x = 2 c
  int64_t il = 0, iu = 0;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t k = 2 * (r - r0) + 1;
    int64_t lo = 1, hi = 0;
    if (nl && k >= lower[0] && k <= lower[nl - 1] && k >= upper[0] && k <= upper[nu - 1]) {
      while (il + 1 < nl && lower[il + 1] < k) ++il;
      while (iu + 1 < nu && upper[iu + 1] < k) ++iu;
      // x on a chain at k: (xa * d + (k - a) * (xb - xa)) / d, d = b - a > 0 (or xa where k == a)
      const auto at = [k](int64_t a, int64_t b, int64_t xa, int64_t xb, int64_t& num, int64_t& d) {
        if (k == a || b == a) num = xa, d = 1;
        else num = xa * (b - a) + (k - a) * (xb - xa), d = b - a;
      };
      int64_t num, d;
      const int64_t la = lower[il], lb = lower[il + 1 < nl ? il + 1 : il];
      at(la, lb, mn[la], mn[lb], num, d);
      lo = -floor_div(-num, 2 * d);   // ceil(x / 2)
      const int64_t ua = upper[iu], ub = upper[iu + 1 < nu ? iu + 1 : iu];
      at(ua, ub, mx[ua], mx[ub], num, d);
      hi = floor_div(num, 2 * d);
    }
    spans[2 * (r - r0)] = lo;
    spans[2 * (r - r0) + 1] = hi;
  }
}

// Entry: slots (int32, C-contiguous, 2-D), boxes (n, 4) int64 (r0, c0, r1, c1 per region, slot = region
// index), row_offsets (n) int64 (the first row of each region in spans), spans (sum of heights, 2) int64.
void hull_spans(const View& slots, const View& boxes, const View& row_offsets, const View& spans,
                StreamHandle stream = nullptr);
void hull_spans_cpu(const View& slots, const View& boxes, const View& row_offsets, const View& spans);
#ifdef NDIMG_WITH_CUDA
void hull_spans_cuda(const View& slots, const View& boxes, const View& row_offsets, const View& spans,
                     StreamHandle s);
#endif

}  // namespace ndimg::measure
