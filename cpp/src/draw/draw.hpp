// skimage.draw's rasterisers: the fills' entries and engine schedules (the polygon's test is measure's
// pnpoly, on both engines; the ellipse's is below), and the host coordinate generators (scikit-image's
// Cython loops, step for step, so that the pixels and their order are scikit-image's).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::draw {

// Whether pixel (r, c) lies inside the (rotated) ellipse: NumPy's evaluation order in skimage's
// _ellipse_in_shape, ((r cos + c sin) / r_rad)**2 + ((r sin - c cos) / c_rad)**2 < 1, r and c relative
// to the centre (products rounded separately: the build contracts no FMA).
struct EllipseTest {
  double r_org, c_org, r_rad, c_rad, sin_a, cos_a;
  NDIMG_HD bool operator()(double row, double col) const {
    const double r = row - r_org, c = col - c_org;
    const double a = (r * cos_a + c * sin_a) / r_rad, b = (r * sin_a - c * cos_a) / c_rad;
    return a * a + b * b < 1.0;
  }
};

// ---- fills into a 2-D C-contiguous uint8/bool `out` (rows x cols) whose pixel [i, j] is (r0 + i, c0 + j) ----
// Pixels whose pnpoly code (measure::point_in_polygon of the columns vc and rows vr) is not 0: inside,
// on an edge or on a vertex, as skimage.draw.polygon.
void polygon_mask(std::span<const double> vr, std::span<const double> vc, int64_t r0, int64_t c0, const View& out,
                  StreamHandle stream = nullptr);
// Pixels that pass `test` (out's pixel [i, j] is (i, j): the test carries its own centre); CPU arrays only.
void ellipse_mask(const EllipseTest& test, const View& out);

void polygon_mask_cpu(std::span<const double> vr, std::span<const double> vc, int64_t r0, int64_t c0, const View& out);
void ellipse_mask_cpu(const EllipseTest& test, const View& out);
#ifdef NDIMG_WITH_CUDA
void polygon_mask_cuda(std::span<const double> vr, std::span<const double> vc, int64_t r0, int64_t c0,
                       const View& out, StreamHandle s);
#endif

// The coordinates (r0 + i, c0 + j) of the nonzero pixels of a C-contiguous (rows x cols) uint8 mask, in C
// order (numpy.nonzero plus offsets): nonzero_offsets counts them by row blocks (its last element is the
// total), mask_coords writes them into rr and cc of that many elements each.
std::vector<int64_t> nonzero_offsets(const uint8_t* mask, int64_t rows, int64_t cols);
void mask_coords(const uint8_t* mask, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                 const std::vector<int64_t>& offsets, int64_t* rr, int64_t* cc);

// ---- host coordinate generators: rows, columns (and line_aa/circle_perimeter_aa's values) ----
struct Coords {
  std::vector<int64_t> r, c;
  std::vector<double> val;
};
// Bresenham's line from (r0, c0) to (r1, c1), both ends included.
void line(int64_t r0, int64_t c0, int64_t r1, int64_t c1, Coords& out);
// The lines between successive vertices, concatenated (skimage.draw.polygon_perimeter's segments).
void polyline(std::span<const int64_t> r, std::span<const int64_t> c, Coords& out);
// Xiaolin Wu's anti-aliased line (val: 1 - the distance term, as skimage's _line_aa).
void line_aa(int64_t r0, int64_t c0, int64_t r1, int64_t c1, Coords& out);
// Bresenham's (andres = false) or Andres' circle about the origin.
void circle_perimeter(int64_t radius, bool andres, Coords& out);
void circle_perimeter_aa(int64_t radius, Coords& out);
void ellipse_perimeter(int64_t r_o, int64_t c_o, int64_t r_radius, int64_t c_radius, double orientation, Coords& out);
void bezier_curve(int64_t r0, int64_t c0, int64_t r1, int64_t c1, int64_t r2, int64_t c2, double weight, Coords& out);

}  // namespace ndimg::draw
