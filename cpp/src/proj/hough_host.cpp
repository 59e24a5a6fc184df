// The Hough transforms that are searches rather than votes, on the host: the ellipse transform (a
// histogram per pair of points, pairs in parallel) and the progressive probabilistic line transform (one
// random walk over the points, sequential by definition). Both follow scikit-image 0.26's Cython loops
// operation by operation, so that their results are its results.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ndimg/parallel.hpp"
#include "proj/proj.hpp"

namespace ndimg::proj {
namespace {

void require_host_points(const View& ys, const View& xs, const char* op) {
  if (ys.dtype != DType::I64 || xs.dtype != DType::I64 || ys.ndim != 1 || xs.ndim != 1 ||
      ys.shape[0] != xs.shape[0] || !ys.c_contiguous() || !xs.c_contiguous())
    throw ValueError(std::string(op) + ": points must be two contiguous 1-D int64 arrays of one length");
  if (ys.device != Device::CPU || xs.device != Device::CPU)
    throw TypeError(std::string(op) + ": the CUDA engine is not built yet; pass NumPy arrays");
}

// The histogram of hough_ellipse's minor-axis candidates: numpy.histogram(acc, np.arange(0, max + bin,
// bin)); returns (the highest count, the left edge of the first bin holding it).
std::pair<int64_t, double> ellipse_histogram(const std::vector<double>& acc, double bin, std::vector<int64_t>& hist) {
  const double top = *std::max_element(acc.begin(), acc.end());
  const int64_t edges = std::max<int64_t>(0, int64_t(std::ceil((top + bin - 0.0) / bin)));
  if (edges < 2) throw ValueError("hough_ellipse: zero-size array to reduction operation maximum which has no identity");
  const int64_t nbins = edges - 1;
  const double last = double(edges - 1) * bin;
  hist.assign(nbins, 0);
  for (double v : acc) {
    if (!(v >= 0.0) || v > last) continue;
    // the last edge <= v (edges are k * bin), the last bin closed on the right
    int64_t k = std::min<int64_t>(int64_t(v / bin), edges - 1);
    while (k + 1 < edges && double(k + 1) * bin <= v) ++k;
    while (k > 0 && double(k) * bin > v) --k;
    hist[std::min(k, nbins - 1)] += 1;
  }
  const auto best = std::max_element(hist.begin(), hist.end());
  return {*best, double(best - hist.begin()) * bin};
}

}  // namespace

std::vector<double> hough_ellipse(const View& ys, const View& xs, int64_t threshold, double accuracy,
                                  int64_t min_size, double max_b_squared) {
  const char* op = "hough_ellipse";
  require_host_points(ys, xs, op);
  const int64_t n = ys.size();
  const int64_t* py = ys.ptr<int64_t>();
  const int64_t* px = xs.ptr<int64_t>();
  const double bin = accuracy * accuracy;
  std::vector<std::vector<double>> found(n);  // per first point, in the reference's order
  // the work of point p1 grows with p1: units take every units-th point, so each gets a fair share
  const int64_t units = std::min<int64_t>(n, 16 * std::max<int64_t>(1, num_threads()));
  parallel_for(units, 1, [&](int64_t u0, int64_t u1) {
    std::vector<double> acc;
    std::vector<int64_t> hist;
    for (int64_t u = u0; u < u1; ++u)
      for (int64_t p1 = u; p1 < n; p1 += units) {
        const int64_t p1x = px[p1], p1y = py[p1];
        for (int64_t p2 = 0; p2 < p1; ++p2) {
          const int64_t p2x = px[p2], p2y = py[p2];
          double dx = double(p1x - p2x), dy = double(p1y - p2y);
          double a = 0.5 * std::sqrt(dx * dx + dy * dy);
          if (!(a > 0.5 * double(min_size))) continue;
          const double xc = 0.5 * double(p1x + p2x), yc = 0.5 * double(p1y + p2y);
          acc.clear();
          for (int64_t p3 = 0; p3 < n; ++p3) {
            const int64_t p3x = px[p3], p3y = py[p3];
            dx = double(p3x) - xc;
            dy = double(p3y) - yc;
            const double d = std::sqrt(dx * dx + dy * dy);
            if (!(d > double(min_size))) continue;
            dx = double(p3x - p1x);
            dy = double(p3y - p1y);
            double cos2 = (a * a + d * d - dx * dx - dy * dy) / (2 * a * d);
            cos2 *= cos2;
            const double k = a * a - d * d * cos2;
            if (k > 0 && cos2 < 1) {
              const double b2 = a * a * d * d * (1 - cos2) / k;
              if (b2 <= max_b_squared) acc.push_back(b2);
            }
          }
          if (acc.empty()) continue;
          const auto [hmax, edge] = ellipse_histogram(acc, bin, hist);
          if (hmax <= threshold) continue;
          double orientation = std::atan2(double(p1x - p2x), double(p1y - p2y));
          double b = std::sqrt(edge);
          if (orientation != 0) {
            orientation = M_PI - orientation;
            if (orientation > M_PI) {
              orientation = orientation - M_PI / 2.;
              std::swap(a, b);
            }
          }
          found[p1].insert(found[p1].end(), {double(hmax), yc, xc, a, b, orientation});
        }
      }
  });
  std::vector<double> out;
  for (auto& f : found) out.insert(out.end(), f.begin(), f.end());
  return out;
}

std::vector<int64_t> probabilistic_hough_line(const View& ys, const View& xs, const View& order, int64_t height,
                                              int64_t width, int64_t threshold, int64_t line_length,
                                              int64_t line_gap, std::span<const double> cos,
                                              std::span<const double> sin) {
  const char* op = "probabilistic_hough_line";
  require_host_points(ys, xs, op);
  if (order.dtype != DType::I64 || order.ndim != 1 || !order.c_contiguous() || order.shape[0] != ys.shape[0] ||
      order.device != Device::CPU || cos.size() != sin.size())
    throw ValueError(std::string(op) + ": a contiguous int64 order of the points and one sine per cosine expected");
  const int64_t* y_idx = ys.ptr<int64_t>();
  const int64_t* x_idx = xs.ptr<int64_t>();
  const int64_t* random = order.ptr<int64_t>();
  const int64_t nthetas = int64_t(cos.size());
  const int64_t max_distance = 2 * int64_t(std::ceil(std::sqrt(double(height * height + width * width))));
  const int64_t offset = max_distance / 2;
  std::vector<uint8_t> mask(height * width, 0);
  std::vector<int64_t> accum(max_distance * nthetas, 0);
  int64_t count = ys.size();
  for (int64_t q = 0; q < count; ++q) {
    const int64_t o = random[q];
    if (o < 0 || o >= count) throw ValueError(std::string(op) + ": the order must index the points");
    mask[y_idx[o] * width + x_idx[o]] = 1;
  }
  constexpr int shift = 16;
  constexpr int64_t lines_max = int64_t(1) << 15;
  std::vector<int64_t> lines;
  int64_t line_end[4] = {0, 0, 0, 0};
  auto bin = [&](int64_t x, int64_t y, int64_t j) { return line_bin(y, x, cos[j], sin[j], offset) * nthetas + j; };
  while (count > 0) {
    --count;
    const int64_t index = random[count];
    const int64_t x = x_idx[index], y = y_idx[index];
    if (!mask[y * width + x]) continue;
    int64_t max_value = threshold - 1, max_theta = -1;
    for (int64_t j = 0; j < nthetas; ++j) {
      const int64_t value = ++accum[bin(x, y, j)];
      if (value > max_value) {
        max_value = value;
        max_theta = j;
      }
    }
    if (max_value < threshold) continue;
    // walk both ways from the point along the line of the peak, in 16.16 fixed point
    const double a = -sin[max_theta], b = cos[max_theta];
    int64_t x0 = x, y0 = y, dx0, dy0;
    const bool xflag = std::fabs(a) > std::fabs(b);
    if (xflag) {
      dx0 = a > 0 ? 1 : -1;
      dy0 = round_away(b * double(1 << shift) / std::fabs(a));
      y0 = (y0 << shift) + (1 << (shift - 1));
    } else {
      dy0 = b > 0 ? 1 : -1;
      dx0 = round_away(a * double(1 << shift) / std::fabs(b));
      x0 = (x0 << shift) + (1 << (shift - 1));
    }
    auto at = [&](int64_t px, int64_t py, int64_t& x1, int64_t& y1) {
      x1 = xflag ? px : px >> shift;
      y1 = xflag ? py >> shift : py;
    };
    for (int k = 0; k < 2; ++k) {
      int64_t gap = 0, px = x0, py = y0, dx = k ? -dx0 : dx0, dy = k ? -dy0 : dy0, x1, y1;
      while (true) {
        at(px, py, x1, y1);
        if (x1 < 0 || x1 >= width || y1 < 0 || y1 >= height) break;
        ++gap;
        if (mask[y1 * width + x1]) {
          gap = 0;
          line_end[2 * k] = x1;
          line_end[2 * k + 1] = y1;
        } else if (gap > line_gap) {
          break;
        }
        px += dx;
        py += dy;
      }
    }
    const bool good = std::llabs(line_end[3] - line_end[1]) >= line_length ||
                      std::llabs(line_end[2] - line_end[0]) >= line_length;
    if (!good) continue;
    // walk again: remove the segment's points and their votes
    for (int k = 0; k < 2; ++k) {
      int64_t px = x0, py = y0, dx = k ? -dx0 : dx0, dy = k ? -dy0 : dy0, x1, y1;
      while (true) {
        at(px, py, x1, y1);
        if (x1 < 0 || x1 >= width || y1 < 0 || y1 >= height) break;  // never reached: the end is inside
        if (mask[y1 * width + x1]) {
          mask[y1 * width + x1] = 0;
          for (int64_t j = 0; j < nthetas; ++j) --accum[bin(x1, y1, j)];
        }
        if (x1 == line_end[2 * k] && y1 == line_end[2 * k + 1]) break;
        px += dx;
        py += dy;
      }
    }
    lines.insert(lines.end(), {line_end[0], line_end[1], line_end[2], line_end[3]});
    if (int64_t(lines.size()) / 4 >= lines_max) break;
  }
  return lines;
}

}  // namespace ndimg::proj
