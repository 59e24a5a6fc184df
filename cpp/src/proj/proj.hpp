// Voting and projection transforms: the arithmetic of one vote, one sample and one ray, written once for
// both engines in scikit-image's order of operations and types (its Cython loops are the specification:
// the float32 instances mix float and double exactly as the C they compile to, where Cython writes an
// integer literal met with a float operand as a double literal: `1 - x` and `2 * x` are double). The entries are in proj.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <climits>
#include <span>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/proj.hpp"

namespace ndimg::proj {

// floor and ceil without a libm call where the value fits an integer (x86-64's baseline has no rounding
// instruction); exact: the truncation is corrected by one where it went the wrong way.
NDIMG_HD double floor_fast(double x) {
  if (!(x > -4e18 && x < 4e18)) return floor(x);
  const double t = double(int64_t(x));
  return t > x ? t - 1.0 : t;
}
NDIMG_HD double ceil_fast(double x) {
  if (!(x > -4e18 && x < 4e18)) return ceil(x);
  const double t = double(int64_t(x));
  return t < x ? t + 1.0 : t;
}

// scikit-image's round(): half away from zero, truncated to an integer.
NDIMG_HD int64_t round_away(double r) { return static_cast<int64_t>(r > 0.0 ? r + 0.5 : r - 0.5); }

// The accumulator row of point (y, x) at the angle of (c, s) in hough_line.
NDIMG_HD int64_t line_bin(int64_t y, int64_t x, double c, double s, int64_t offset) {
  return round_away(c * double(x) + s * double(y)) + offset;
}

// The offsets (row, column) of skimage.draw.circle_perimeter(0, 0, radius) (Bresenham), duplicates kept.
inline void circle_points(int64_t radius, std::vector<int64_t>& dr, std::vector<int64_t>& dc) {
  dr.clear();
  dc.clear();
  int64_t r = radius, c = 0, d = 3 - 2 * radius;
  while (r >= c) {
    const int64_t rr[8] = {r, -r, r, -r, c, -c, c, -c}, cc[8] = {c, c, -c, -c, r, r, -r, -r};
    dr.insert(dr.end(), rr, rr + 8);
    dc.insert(dc.end(), cc, cc + 8);
    if (d < 0) {
      d += 4 * c + 6;
    } else {
      d += 4 * (c - r) + 10;
      --r;
    }
    ++c;
  }
}

// value[k]: k votes of `incr` added one by one in float64 (what the reference's += leaves in a cell).
inline std::vector<double> vote_values(uint64_t max_count, double incr) {
  std::vector<double> v(max_count + 1);
  v[0] = 0.0;
  for (uint64_t k = 1; k <= max_count; ++k) v[k] = v[k - 1] + incr;
  return v;
}

// scikit-image's bilinear_interpolation of a C-contiguous (rows, cols) image at (r, c), constant 0 outside.
// Cython writes the literal of `1 - dc` as 1.0, a C double: those factors are double, `dc * right` is T.
template <class T>
NDIMG_HD T bilinear(const T* img, int64_t rows, int64_t cols, T r, T c) {
  const double fr = floor_fast(double(r)), fc = floor_fast(double(c));
  const long minr = long(fr), minc = long(fc);
  // ceil is floor, or floor + 1 where the coordinate is not whole (NaN: the checked path below)
  const long maxr = minr + long(fr != double(r)), maxc = minc + long(fc != double(c));
  const T dr = r - T(minr), dc = c - T(minc);
  T tl, tr, bl, br;
  if (minr >= 0 && minc >= 0 && maxr < rows && maxc < cols) {   // all four inside: no per-pixel checks
    const T* p = img + minr * cols + minc;
    tl = p[0];
    tr = p[maxc - minc];
    bl = p[(maxr - minr) * cols];
    br = p[(maxr - minr) * cols + (maxc - minc)];
  } else {
    if ((maxr < 0 || minr >= rows || maxc < 0 || minc >= cols) && r == r && c == c) return T(0);  // all outside
    auto px = [&](long i, long j) -> T { return i < 0 || i >= rows || j < 0 || j >= cols ? T(0) : img[i * cols + j]; };
    tl = px(minr, minc);
    tr = px(minr, maxc);
    bl = px(maxr, minc);
    br = px(maxr, maxc);
  }
  const double top = (1. - dc) * tl + T(dc * tr);
  const double bottom = (1. - dc) * bl + T(dc * br);
  return T((1. - dr) * top + dr * bottom);
}

// radon: the projection value of column `col` at the angle of the six coefficients h (in T), summed over
// the rows in order in T (NumPy's sum over axis 0).
template <class T>
NDIMG_HD T radon_sum(const T* img, int64_t n, const T* h, int64_t col) {
  T acc = T(0);
  const T x = T(col);
  for (int64_t row = 0; row < n; ++row) {
    const T y = T(row);
    const T cc = h[0] * x + h[1] * y + h[2];
    const T rr = h[3] * x + h[4] * y + h[5];
    acc += bilinear(img, n, n, rr, cc);
  }
  return acc;
}

// numpy.interp(t, k - h for k < n, fp, left=0, right=0) on the integer grid.
NDIMG_HD double interp_linear(const double* fp, int64_t n, int64_t h, double t) {
  const double first = double(-h), last = double(n - 1 - h);
  if (!(t >= first)) return t < first ? 0.0 : t;  // NaN propagates as NumPy's does
  if (t > last) return 0.0;
  if (t == last) return fp[n - 1];
  const double ft = floor_fast(t);
  const int64_t j = int64_t(ft) + h;
  if (ft == t) return fp[j];
  const double slope = (fp[j + 1] - fp[j]) / 1.0;
  double v = slope * (t - ft) + fp[j];
  if (v != v) {
    v = slope * (t - (ft + 1.0)) + fp[j + 1];
    if (v != v && fp[j] == fp[j + 1]) v = fp[j];
  }
  return v;
}

// scipy's interp1d(kind='nearest', bounds_error=False, fill_value=0) on the integer grid: ties go down.
NDIMG_HD double interp_nearest(const double* fp, int64_t n, int64_t h, double t) {
  const double first = double(-h), last = double(n - 1 - h);
  if (t < first || t > last) return 0.0;
  if (t != t) return t;
  const double ft = floor_fast(t);
  int64_t j = int64_t(ft) + h;
  if (j < n - 1 && t > (ft + (ft + 1.0)) / 2.0) ++j;
  return fp[j];
}

// scipy's cubic B-spline (k = 3) of coefficients c on `knots` (nk = n + 4) at t, 0 outside the data's
// grid: the knot interval found as scipy's find_interval finds it, the basis by its de Boor recursion.
NDIMG_HD double interp_cubic(const double* c, int64_t n, int64_t h, const double* knots, double t) {
  const double first = double(-h), last = double(n - 1 - h);
  if (t < first || t > last) return 0.0;
  if (t != t) return t;
  constexpr int k = 3;
  // the interval l in [k, n - 1] with knots[l] <= t < knots[l + 1] (the last one where t is the end)
  int64_t lo = k, hi = n - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (knots[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  const int64_t l = lo;
  double b[k + 1], prev[k + 1];
  b[0] = 1.0;
  for (int j = 1; j <= k; ++j) {
    for (int q = 0; q < j; ++q) prev[q] = b[q];
    b[0] = 0.0;
    for (int q = 1; q <= j; ++q) {
      const double xb = knots[l + q], xa = knots[l + q - j];
      if (xb == xa) {
        b[q] = 0.0;
        continue;
      }
      const double w = prev[q - 1] / (xb - xa);
      b[q - 1] += w * (xb - t);
      b[q] = w * (t - xa);
    }
  }
  double v = 0.0;
  for (int a = 0; a <= k; ++a) v += c[l + a - k] * b[a];
  return v;
}

// The interpolated projection of one angle at t.
NDIMG_HD double interp_at(Interp mode, const double* row, int64_t n, int64_t h, const double* knots, double t) {
  switch (mode) {
    case Interp::Nearest: return interp_nearest(row, n, h, t);
    case Interp::Cubic: return interp_cubic(row, n, h, knots, t);
    default: return interp_linear(row, n, h, t);
  }
}

// One SART ray through an (n, n) image at angle theta (degrees) and position ray_position: its geometry as
// scikit-image's bilinear_ray_sum / bilinear_ray_update compute it, in T and double as their C does.
template <class T>
struct Ray {
  int64_t n, steps;  // steps: Ns (no samples when 0)
  T ds, dx, dy, x0, y0, center;

  NDIMG_HD Ray(int64_t n_, T theta_deg, T ray_position) : n(n_) {
    const T theta = T(double(theta_deg) / 180. * M_PI);
    const T radius = T(n / 2 - 1);
    center = T(n / 2);
    const T t = ray_position - center;
    const T s0 = radius * radius >= t * t ? T(sqrt(double(radius * radius - t * t))) : T(0.);
    steps = 2 * int64_t(ceil(double(2 * s0)));
    ds = dx = dy = x0 = y0 = T(0);
    if (steps > 0) {
      ds = T(2. * s0 / double(steps));
      const double ct = cos(double(theta)), st = sin(double(theta));
      dx = T(-ds * ct);
      dy = T(-ds * st);
      x0 = T(s0 * ct - t * st);
      y0 = T(s0 * st + t * ct);
    }
  }
  // visit(k, i, j, di, dj) for each sample k in [k0, k1] (default: all, [0, steps])
  template <class Visit>
  NDIMG_HD void walk(Visit&& visit, int64_t k0 = 0, int64_t k1 = INT64_MAX) const {
    if (steps <= 0) return;
    for (int64_t k = k0 < 0 ? 0 : k0; k <= steps && k <= k1; ++k) {
      const T x = x0 + T(k) * dx, y = y0 + T(k) * dy;
      const T ii = x + center, jj = y + center;
      const double fi = floor_fast(double(ii)), fj = floor_fast(double(jj));
      visit(k, int64_t(fi), int64_t(fj), T(ii - fi), T(jj - fj));
    }
  }
};

// The ray sum and the norm of its weights (bilinear_ray_sum); the deviation the ray's update spreads.
template <class T>
NDIMG_HD T ray_deviation(const T* img, const Ray<T>& ray, T projected) {
  const int64_t n = ray.n;
  T sum = T(0), norm = T(0);
  const T ds = ray.ds;
  ray.walk([&](int64_t, int64_t i, int64_t j, T di, T dj) {
    T w;
    if (i > 0 && j > 0) {
      w = T((1. - di) * (1. - dj) * ds);
      sum += w * img[i * n + j];
      norm += w * w;
    }
    if (i > 0 && j < n - 1) {
      w = T((1. - di) * dj * ds);
      sum += w * img[i * n + j + 1];
      norm += w * w;
    }
    if (i < n - 1 && j > 0) {
      w = T(di * (1. - dj) * ds);
      sum += w * img[(i + 1) * n + j];
      norm += w * w;
    }
    if (i < n - 1 && j < n - 1) {
      w = di * dj * ds;
      sum += w * img[(i + 1) * n + j + 1];
      norm += w * w;
    }
  });
  return norm > T(0) ? T(-(sum - projected) / norm) : T(0);
}

// The ray's update: add(row, column, value) with each value in the type the reference's expression has
// (T for the last corner only), added as `update[...] += value` adds it; window(k) is hamming_window(k,
// ray.steps) (or a table of it). Only the samples [k0, k1] where given.
template <class T>
NDIMG_HD T hamming_window(int64_t k, int64_t steps) {
  const T beta = T(0.46164);
  return T((1. - beta) - beta * cos(2 * M_PI * double(k) / double(steps - 1)));
}
template <class T, class Window, class Add>
NDIMG_HD void ray_update(const Ray<T>& ray, T deviation, Window&& window_at, Add&& add, int64_t k0 = 0,
                         int64_t k1 = INT64_MAX) {
  const int64_t n = ray.n;
  const T ds = ray.ds;
  ray.walk([&](int64_t k, int64_t i, int64_t j, T di, T dj) {
    const T window = window_at(k);
    if (i > 0 && j > 0) add(i, j, deviation * (1. - di) * (1. - dj) * ds * window);
    if (i > 0 && j < n - 1) add(i, j + 1, deviation * (1. - di) * dj * ds * window);
    if (i < n - 1 && j > 0) add(i + 1, j, deviation * di * (1. - dj) * ds * window);
    if (i < n - 1 && j < n - 1) add(i + 1, j + 1, T(deviation * di * dj * ds * window));
  }, k0, k1);
}

// numpy.clip(v, lo, hi): minimum(maximum(v, lo), hi), NaN kept.
template <class T>
NDIMG_HD T sart_clip(T v, T lo, T hi) {
  if (v != v) return v;
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// ---- engine schedules (arguments validated by the entries) ----
void nonzero_cpu(const View& image, const View& ys, const View& xs);
void hough_line_cpu(const View& ys, const View& xs, std::span<const double> cos, std::span<const double> sin,
                    int64_t offset, const View& accum);
void hough_circle_cpu(const View& ys, const View& xs, std::span<const int64_t> radii, int64_t shift, bool normalize,
                      const View& out);
void radon_cpu(const View& image, std::span<const double> matrix, const View& out);
void backproject_cpu(const View& proj, std::span<const double> cos, std::span<const double> sin, int64_t radius,
                     Interp interp, std::span<const double> knots, const View& out);
void sart_cpu(const View& image, const View& projections, std::span<const double> theta, std::span<const double> shift,
              double relaxation, std::span<const double> clip);
#ifdef NDIMG_WITH_CUDA
void hough_line_cuda(const View& ys, const View& xs, std::span<const double> cos, std::span<const double> sin,
                     int64_t offset, const View& accum, StreamHandle s);
void hough_circle_cuda(const View& ys, const View& xs, std::span<const int64_t> radii, int64_t shift, bool normalize,
                       const View& out, StreamHandle s);
void radon_cuda(const View& image, std::span<const double> matrix, const View& out, StreamHandle s);
void backproject_cuda(const View& proj, std::span<const double> cos, std::span<const double> sin, int64_t radius,
                      Interp interp, std::span<const double> knots, const View& out, StreamHandle s);
void sart_cuda(const View& image, const View& projections, std::span<const double> theta, std::span<const double> shift,
               double relaxation, std::span<const double> clip, StreamHandle s);
#endif

}  // namespace ndimg::proj
