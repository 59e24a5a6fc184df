// Marching squares (scikit-image's find_contours): the per-cell case table once, and the entry that classifies
// the cells on the thread pool and joins the segments into contours in scikit-image's order.
#pragma once
#include <cstdint>
#include <vector>

#include "ndimg/hd.hpp"

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

struct Contours {
  std::vector<double> points;    // (row, col) pairs of every contour, one after the other
  std::vector<int64_t> offsets;  // contour k is points[offsets[k] .. offsets[k + 1]) (in points)
};

// `image`: rows x cols float64, C order; `mask`: the same shape as uint8 (nullptr: none), cells with a zero
// corner or a NaN corner are skipped. Contours ordered as scikit-image's (by their first segment in C order
// of the cells), each from its first point to its last (low values on the left).
Contours find_contours(const double* image, int64_t rows, int64_t cols, const uint8_t* mask, double level,
                       bool vertex_connect_high);

}  // namespace ndimg::measure
