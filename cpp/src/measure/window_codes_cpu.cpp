// CPU schedule of the window configuration histogram: lines of windows along the last axis, the corner bits
// of the line's columns gathered row by row first (vector loops), each window then the OR of two columns; a
// fixed number of parts (by size), each counting into its own bins, summed at the end.
#include <algorithm>
#include <vector>

#include "core/parts.hpp"
#include "measure/window_codes.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::measure {

void window_codes_cpu(const View& in, int64_t* hist) {
  const int nd = in.ndim, bins = nd == 2 ? 16 : 256;
  const Axes3 a = axes3(in);
  const int64_t width = a.shape[2], y_lines = a.shape[1] + 1, lines = y_lines * (nd == 3 ? a.shape[0] + 1 : 1);
  const int64_t parts = std::max<int64_t>(1, std::min(lines, fixed_parts(lines * (width + 1))));
  std::vector<int64_t> counts(size_t(parts * bins * 4), 0);
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    const int64_t xs = a.strides[2];
    for_parts(lines, parts, [&](int64_t part, int64_t l0, int64_t l1) {
      int64_t* h = counts.data() + part * bins * 4;  // four interleaved tables: no chains of increments
      std::vector<uint8_t> col(static_cast<size_t>(width + 2), 0);  // col[x + 1]: column x's corners
      for (int64_t l = l0; l < l1; ++l) {
        const int64_t qz = l / y_lines, qy = l % y_lines;
        std::fill(col.begin(), col.end(), uint8_t(0));
        for (int r = 0; r < (nd == 2 ? 2 : 4); ++r) {
          const CornerRow k = corner_row(nd, r);
          const int64_t y = qy + k.oy - 1, z = qz + k.oz - 1;
          if (y < 0 || y >= a.shape[1] || z < 0 || z >= a.shape[0]) continue;
          const T* row = src + z * a.strides[0] + y * a.strides[1];
          uint8_t* c = col.data() + 1;
          if (xs == 1)
            for (int64_t x = 0; x < width; ++x) c[x] |= uint8_t((row[x] != T(0)) << k.bit);
          else
            for (int64_t x = 0; x < width; ++x) c[x] |= uint8_t((row[x * xs] != T(0)) << k.bit);
        }
        const uint8_t* c = col.data();
        for (int64_t x = 0; x <= width; ++x) ++h[(x & 3) * bins + (c[x + 1] | c[x] << 2)];
      }
    });
  });
  for (int b = 0; b < bins; ++b)
    for (int64_t p = 0; p < parts * 4; ++p) hist[b] += counts[p * bins + b];
}

// The perimeter codes: rows in a fixed number of parts, each keeping rolling rows at hand (vector loops): the
// nonzero flags of rows y..y + 2, the border of rows y - 1..y + 1 (perimeter_border's arithmetic by rows).
void perimeter_codes_cpu(const View& img, bool eight, int64_t* hist) {
  const int64_t h = img.shape[0], w = img.shape[1], sy = img.strides[0], sx = img.strides[1], W = w + 2;
  const uint8_t* src = img.ptr<uint8_t>();
  const int64_t parts = std::max<int64_t>(1, std::min(h, fixed_parts(h * w)));
  std::vector<int64_t> counts(size_t(parts * 256), 0);
  const int edge = perimeter_weight(0, 1), corner = perimeter_weight(1, 1), centre = perimeter_weight(0, 0);
  for_parts(h, parts, [&](int64_t part, int64_t r0, int64_t r1) {
    int64_t* hp = counts.data() + part * 256;
    // 3 rows of flags and 3 of border, one 0 each side; row y at slot (y + 3) % 3
    std::vector<uint8_t> nzs(static_cast<size_t>(3 * W), 0), bps(static_cast<size_t>(3 * W), 0);
    const auto nz = [&](int64_t y) { return nzs.data() + (y + 3) % 3 * W; };
    const auto bp = [&](int64_t y) { return bps.data() + (y + 3) % 3 * W; };
    const auto flags = [&](int64_t y) {
      uint8_t* o = nz(y);
      if (y < 0 || y >= h) return void(std::fill_n(o, W, uint8_t(0)));
      for (int64_t x = 0; x < w; ++x) o[x + 1] = src[y * sy + x * sx] != 0;
    };
    const auto border = [&](int64_t y) {  // needs the flags of y - 1..y + 1
      uint8_t* o = bp(y);
      if (y < 0 || y >= h) return void(std::fill_n(o, W, uint8_t(0)));
      const uint8_t *a = nz(y - 1), *c = nz(y), *b = nz(y + 1);
      for (int64_t x = 1; x <= w; ++x) {
        uint8_t e = c[x] & a[x] & b[x] & c[x - 1] & c[x + 1];
        if (eight) e &= a[x - 1] & a[x + 1] & b[x - 1] & b[x + 1];
        o[x] = uint8_t(src[y * sy + (x - 1) * sx] - e);
      }
    };
    flags(r0 - 2), flags(r0 - 1), flags(r0);
    border(r0 - 1);
    flags(r0 + 1);
    border(r0);
    for (int64_t y = r0; y < r1; ++y) {
      flags(y + 2);  // overwrites the flags of y - 1, which border(y) has read
      border(y + 1);
      const uint8_t *a = bp(y - 1), *c = bp(y), *b = bp(y + 1);
      for (int64_t x = 1; x <= w; ++x) {
        const int v = centre * c[x] + edge * (a[x] + b[x] + c[x - 1] + c[x + 1]) +
                      corner * (a[x - 1] + a[x + 1] + b[x - 1] + b[x + 1]);
        ++hp[v & 255];
      }
    }
  });
  for (int b = 0; b < 256; ++b)
    for (int64_t p = 0; p < parts; ++p) hist[b] += counts[p * 256 + b];
}

}  // namespace ndimg::measure
