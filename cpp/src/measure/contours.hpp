// Marching squares (scikit-image's find_contours): a cell's case and segments once, for both engines; the
// entries classify the cells (on the thread pool or the GPU) and join the segments into contours on the host
// in scikit-image's order.
#pragma once
#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::measure {

// The level crossing along an edge, as a fraction from `a` towards `b` (0 for a flat edge).
NDIMG_HD double crossing(double a, double b, double level) { return b == a ? 0.0 : (level - a) / (b - a); }

// A cell's corner values (upper-left, upper-right, lower-left, lower-right) -> its case: bit 0..3 set where the
// corner is above the level.
NDIMG_HD int square_case(double ul, double ur, double ll, double lr, double level) {
  return (ul > level) | (ur > level) << 1 | (ll > level) << 2 | (lr > level) << 3;
}

// The oriented segments of each case, as pairs of edges (0 top, 1 bottom, 2 left, 3 right; from, to), lower
// values on the left of each segment; -1 ends the list. Cases 6 and 9 (opposite corners above) join the
// diagonal of the fully connected side: row 16/17 give them for high values fully connected.
NDIMG_HD const int8_t* square_segments(int c, bool vertex_connect_high) {
  static constexpr int8_t table[18][5] = {
      {-1}, {0, 2, -1}, {3, 0, -1}, {3, 2, -1}, {2, 1, -1}, {0, 1, -1}, {3, 0, 2, 1, -1}, {3, 1, -1},
      {1, 3, -1}, {0, 2, 1, 3, -1}, {1, 0, -1}, {1, 2, -1}, {2, 3, -1}, {0, 3, -1}, {2, 0, -1}, {-1},
      {2, 0, 3, 1, -1}, {0, 3, 1, 2, -1}};
  if (vertex_connect_high && (c == 6 || c == 9)) return table[c == 6 ? 16 : 17];
  return table[c];
}

struct Point {
  double r, c;
};
struct Segment {
  Point from, to;
};

// The segments (0, 1 or 2, written to out) of the cell whose upper-left corner is (r0, c0), with corner values
// ul, ur, ll, lr; none where a corner is NaN.
NDIMG_HD int cell_segments(double ul, double ur, double ll, double lr, int64_t r0, int64_t c0, double level,
                           bool vertex_connect_high, Segment* out) {
  if (ul != ul || ur != ur || ll != ll || lr != lr) return 0;
  const int sc = square_case(ul, ur, ll, lr, level);
  if (sc == 0 || sc == 15) return 0;
  const double r = double(r0), r1 = double(r0 + 1), c = double(c0);
  const Point edge[4] = {{r, c + crossing(ul, ur, level)},
                         {r1, c + crossing(ll, lr, level)},
                         {r + crossing(ul, ll, level), c},
                         {r + crossing(ur, lr, level), double(c0 + 1)}};
  int n = 0;
  for (const int8_t* s = square_segments(sc, vertex_connect_high); *s >= 0; s += 2) out[n++] = {edge[s[0]], edge[s[1]]};
  return n;
}

struct Contours {
  std::vector<double> points;    // (row, col) pairs of every contour, one after the other
  std::vector<int64_t> offsets;  // contour k is points[offsets[k] .. offsets[k + 1]) (in points)
};

// `image`: rows x cols float64, C order; `mask`: the same shape as uint8 (nullptr: none), cells with a zero
// corner or a NaN corner are skipped. Contours ordered as scikit-image's (by their first segment in C order
// of the cells), each from its first point to its last (low values on the left).
Contours find_contours(const double* image, int64_t rows, int64_t cols, const uint8_t* mask, double level,
                       bool vertex_connect_high);
// The same on the image's device: image float64, 2-D, C-contiguous; mask (nullptr: none) uint8 of its shape on
// the same device. A CUDA image's cells are classified on the GPU, on `stream`; the contours come back to the host.
Contours find_contours(const View& image, const View* mask, double level, bool vertex_connect_high,
                       StreamHandle stream);

// scikit-image's assembly of the cells' segments, given in C order of the cells (lists one after the other;
// each is freed once used).
Contours join_segments(std::vector<std::vector<Segment>>& lists);
// The GPU's classification: the segments of the cells in C order (device pointers, C order).
std::vector<Segment> contour_segments_cuda(const double* image, int64_t rows, int64_t cols, const uint8_t* mask,
                                           double level, bool vertex_connect_high, int device, StreamHandle stream);

}  // namespace ndimg::measure
