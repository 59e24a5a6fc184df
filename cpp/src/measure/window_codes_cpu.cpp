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

}  // namespace ndimg::measure
