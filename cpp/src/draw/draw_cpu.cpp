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

// Beyond this magnitude a crossing's rounding error could reach the 2-pixel margin below: every pixel is
// tested.
constexpr double kScanlineLimit = 1e12;

}  // namespace

// Along one row, pnpoly's code changes only near the columns where an edge crosses the row (each edge's
// crossing test is monotone in the column) and on a vertex; between those, one test decides a whole run.
// The pixels within 2 columns of a crossing or a vertex are tested one by one, so the mask is pnpoly's.
void polygon_mask_cpu(std::span<const double> vr, std::span<const double> vc, int64_t r0, int64_t c0,
                      const View& out) {
  const int64_t n = int64_t(vr.size()), rows = out.shape[0], cols = out.shape[1];
  uint8_t* mask = out.ptr<uint8_t>();
  double extent = std::abs(double(r0)) + std::abs(double(c0)) + double(rows) + double(cols);
  for (int64_t i = 0; i < n; ++i) extent = std::max({extent, std::abs(vr[i]), std::abs(vc[i])});
  const bool scanline = extent < kScanlineLimit;
  const double* xp = vc.data();
  const double* yp = vr.data();
  auto code = [&](int64_t r, int64_t c) -> uint8_t {
    return measure::point_in_polygon(xp, yp, n, double(c), double(r)) != 0;
  };
  const int64_t grain = std::max<int64_t>(1, (1 << 14) / (cols + n + 1));
  parallel_for(rows, grain, [&](int64_t i0, int64_t i1) {
    std::vector<std::pair<int64_t, int64_t>> marks;  // column intervals [a, b) to test pixel by pixel
    for (int64_t i = i0; i < i1; ++i) {
      uint8_t* row = mask + i * cols;
      const int64_t r = r0 + i;
      if (!scanline) {
        for (int64_t j = 0; j < cols; ++j) row[j] = code(r, c0 + j);
        continue;
      }
      const double y = double(r);
      marks.clear();
      auto mark = [&](double x) {
        const double f = std::floor(x) - double(c0);
        const int64_t a = int64_t(std::max(-2.0, std::min(f, double(cols)))) - 2;
        marks.emplace_back(std::clamp<int64_t>(a, 0, cols), std::clamp<int64_t>(a + 6, 0, cols));
      };
      for (int64_t k = 0, prev = n - 1; k < n; prev = k++) {
        const double y0 = yp[k] - y, y1 = yp[prev] - y;
        if (((y0 > 0) != (y1 > 0)) || ((y0 < 0) != (y1 < 0))) mark(xp[prev] + (xp[k] - xp[prev]) * (y1 / (y1 - y0)));
        if (std::abs(y0) < 1e-9) mark(xp[k]);
      }
      std::sort(marks.begin(), marks.end());
      int64_t at = 0;
      auto run = [&](int64_t end) {  // an untested run [at, end): one code for all of it
        if (at < end) std::fill(row + at, row + end, code(r, c0 + at));
      };
      for (auto [a, b] : marks) {
        if (b <= at) continue;
        run(a);
        for (int64_t j = std::max(a, at); j < b; ++j) row[j] = code(r, c0 + j);
        at = b;
      }
      run(cols);
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
