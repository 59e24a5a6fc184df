// CPU schedules of the fills (rows over the thread pool) and the mask -> coordinates pass.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "draw/draw.hpp"
#include "measure/contours_polygon.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::draw {
namespace {

// Below this magnitude of coordinates the rows' scanline holds (columns exact, the crossing test's
// products finite, each edge's crossing estimated within a few columns); beyond it every pixel is tested.
constexpr double kScanlineLimit = 1e12;

}  // namespace

// pnpoly by rows. On one row the edges that straddle it are fixed, and each one's crossing test
// (measure::edge_crossing, evaluated as pnpoly evaluates it) is monotone in the column: its count of
// crossings right of the pixel drops, and its count left of it rises, at one column, found by evaluating
// the test about the edge's crossing. The pixels between those columns share pnpoly's parities, so a row is
// a few runs; pixels on a vertex (pnpoly's 1e-12 tolerance) are set. Beyond kScanlineLimit, where rounding
// could break the monotonicity, every pixel is tested with measure::point_in_polygon.
void polygon_mask_cpu(std::span<const double> vr, std::span<const double> vc, int64_t r0, int64_t c0,
                      const View& out) {
  constexpr double eps = 1e-12;   // pnpoly's vertex tolerance
  const int64_t n = int64_t(vr.size()), rows = out.shape[0], cols = out.shape[1], c1 = c0 + cols;
  uint8_t* mask = out.ptr<uint8_t>();
  double extent = std::abs(double(r0)) + std::abs(double(c0)) + double(rows) + double(cols);
  for (int64_t i = 0; i < n; ++i) extent = std::max({extent, std::abs(vr[i]), std::abs(vc[i])});
  const double* xp = vc.data();
  const double* yp = vr.data();
  const int64_t grain = std::max<int64_t>(1, (1 << 14) / (cols + n + 1));
  if (!(extent < kScanlineLimit)) {
    parallel_for(rows, std::max<int64_t>(1, grain / 4), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = 0; j < cols; ++j)
          mask[i * cols + j] = measure::point_in_polygon(xp, yp, n, double(c0 + j), double(r0 + i)) != 0;
    });
    return;
  }
  parallel_for(rows, grain, [&](int64_t i0, int64_t i1) {
    std::vector<std::pair<int64_t, uint8_t>> events;  // (column, parity bits toggled there)
    std::vector<int64_t> vertices;
    for (int64_t i = i0; i < i1; ++i) {
      uint8_t* row = mask + i * cols;
      const double y = double(r0 + i);
      events.clear();
      vertices.clear();
      uint8_t state = 0;  // bit 0: parity of crossings right of the pixel, bit 1: left of it
      for (int64_t k = 0, prev = n - 1; k < n; prev = k++) {
        const double y0 = yp[k] - y, y1 = yp[prev] - y;
        if (-eps < y0 && y0 < eps)
          for (double x : {std::floor(xp[k]), std::ceil(xp[k])})
            if (x >= double(c0) && x < double(c1) && -eps < xp[k] - x && xp[k] - x < eps) vertices.push_back(int64_t(x));
        const bool right = (y0 > 0) != (y1 > 0), left = (y0 < 0) != (y1 < 0);
        if (!right && !left) continue;
        auto test = [&](int64_t c) { const double x = double(c); return measure::edge_crossing(xp[k] - x, y0, xp[prev] - x, y1); };
        const double across = xp[prev] + (xp[k] - xp[prev]) * (y1 / (y1 - y0));
        const int64_t guess = int64_t(std::clamp(std::floor(across), double(c0), double(c1)));
        // the first column of [c0, c1] where pred(test(c)) holds; pred turns true once as c grows
        auto first = [&](auto pred) {
          int64_t c = guess;
          while (c > c0 && pred(test(c - 1))) --c;
          while (c < c1 && !pred(test(c))) ++c;
          return c;
        };
        if (right) {  // counts right of the pixel while the crossing is > 0: up to the first column <= 0
          state ^= 1;
          const int64_t t = first([](double v) { return v <= 0; });
          if (t < c1) events.emplace_back(t, uint8_t(1));
        }
        if (left) {  // counts left of the pixel from the first column where the crossing is < 0
          const int64_t t = first([](double v) { return v < 0; });
          if (t < c1) events.emplace_back(t, uint8_t(2));
        }
      }
      std::sort(events.begin(), events.end());
      int64_t at = c0;
      for (auto [c, bits] : events) {
        std::fill(row + (at - c0), row + (c - c0), uint8_t(state != 0));
        state ^= bits;
        at = c;
      }
      std::fill(row + (at - c0), row + cols, uint8_t(state != 0));
      for (int64_t c : vertices) row[c - c0] = 1;
    }
  });
}

// Along a row the ellipse's test is a convex quadratic in the column, so the pixels inside form one run
// about the quadratic's minimum. The run's ends are solved for once per row; only the pixels within 3
// columns of an end are tested, and the test is the same expression as the per-pixel one. Outside those
// windows the quadratic is at least 9 / max_radius**2 away from 1, while the test rounds by at most about
// 8 eps * extent / min_radius near 1: where that margin is under 1000x the rounding (or a value is 0, NaN
// or infinite), every pixel is tested.
void ellipse_mask_cpu(const EllipseTest& test, const View& out) {
  const int64_t rows = out.shape[0], cols = out.shape[1];
  uint8_t* mask = out.ptr<uint8_t>();
  const double ir2 = 1.0 / (test.r_rad * test.r_rad), ic2 = 1.0 / (test.c_rad * test.c_rad);
  const double s = test.sin_a, c = test.cos_a;
  const double qa = c * c * ir2 + s * s * ic2, qb = 2 * c * s * (ir2 - ic2), qc = s * s * ir2 + c * c * ic2;
  const double rmax = std::max(std::abs(test.r_rad), std::abs(test.c_rad));
  const double rmin = std::min(std::abs(test.r_rad), std::abs(test.c_rad));
  const double extent = std::max({std::abs(test.r_org), std::abs(double(rows) - test.r_org), std::abs(test.c_org),
                                  std::abs(double(cols) - test.c_org), 1.0});
  const bool runs = rmin > 0 && rmax * rmax * extent / rmin < 1e12 && std::isfinite(s) && std::isfinite(c) &&
                    std::isfinite(qa) && std::isfinite(qb) && std::isfinite(qc);
  parallel_for(rows, std::max<int64_t>(1, (1 << 15) / (cols + 1)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      uint8_t* row = mask + i * cols;
      if (!runs) {
        for (int64_t j = 0; j < cols; ++j) row[j] = test(double(i), double(j));
        continue;
      }
      // d(x) = qc x^2 + qb r x + qa r^2 with x = col - c_org, r = row - r_org: least at x = -qb r / (2 qc)
      const double r = double(i) - test.r_org, mid = test.c_org - qb * r / (2 * qc);
      const double least = qa * r * r - qb * qb * r * r / (4 * qc);
      const double half = least < 1 ? std::sqrt((1 - least) / qc) : 0.0;
      auto col = [&](double x) { return int64_t(std::clamp(std::floor(x), -1.0, double(cols))); };
      const int64_t a0 = std::max<int64_t>(col(mid - half) - 3, 0), a1 = std::min(col(mid - half) + 4, cols);
      const int64_t b0 = std::max<int64_t>(col(mid + half) - 3, 0), b1 = std::min(col(mid + half) + 4, cols);
      std::fill(row, row + a0, uint8_t(0));
      for (int64_t j = a0; j < a1; ++j) row[j] = test(double(i), double(j));
      const int64_t inner0 = std::max(a1, int64_t(0)), inner1 = std::max(b0, inner0);
      std::fill(row + inner0, row + inner1, uint8_t(1));
      for (int64_t j = std::max(b0, a1); j < b1; ++j) row[j] = test(double(i), double(j));
      std::fill(row + std::max(b1, a1), row + cols, uint8_t(0));
    }
  });
}

namespace {

// Row blocks of the mask: each counts its nonzero pixels, then writes its coordinates from its offset.
int64_t row_block(int64_t cols) { return std::max<int64_t>(1, (1 << 16) / (cols + 1)); }

}  // namespace

std::vector<int64_t> nonzero_offsets(const uint8_t* mask, int64_t rows, int64_t cols) {
  const int64_t block = row_block(cols), nblocks = (rows + block - 1) / block;
  std::vector<int64_t> start(nblocks + 1, 0);
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t k = 0;
      const uint8_t* p = mask + b * block * cols;
      const int64_t len = (std::min(rows, (b + 1) * block) - b * block) * cols;
      for (int64_t j = 0; j < len; ++j) k += p[j] != 0;
      start[b + 1] = k;
    }
  });
  for (int64_t b = 0; b < nblocks; ++b) start[b + 1] += start[b];
  return start;
}

void mask_coords(const uint8_t* mask, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                 const std::vector<int64_t>& offsets, int64_t* rr, int64_t* cc) {
  const int64_t block = row_block(cols), nblocks = int64_t(offsets.size()) - 1;
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t k = offsets[b];
      for (int64_t i = b * block; i < std::min(rows, (b + 1) * block); ++i) {
        const uint8_t* p = mask + i * cols;
        for (int64_t j = 0; j < cols; ++j)
          if (p[j]) {
            rr[k] = r0 + i;
            cc[k] = c0 + j;
            ++k;
          }
      }
    }
  });
}

}  // namespace ndimg::draw
