// CPU schedules of the voting and projection transforms. Hough votes are owned, never shared: each task
// counts into its own columns (lines) or rows (circles), so integer accumulators need no atomics and float
// cells get their votes' sequential sum; projections are independent sums per (angle, column) or pixel.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "ndimg/parallel.hpp"
#include "proj/proj.hpp"

namespace ndimg::proj {

void nonzero_cpu(const View& image, const View& ys, const View& xs) {
  const int64_t rows = image.shape[0], cols = image.shape[1], s0 = image.strides[0], s1 = image.strides[1];
  const int64_t total = ys.shape[0];
  int64_t* oy = ys.ptr<int64_t>();
  int64_t* ox = xs.ptr<int64_t>();
  dispatch_dtype(image.dtype, [&]<class T>() {
    const T* src = image.ptr<T>();
    // bands of rows counted, then filled from their offsets (numpy.nonzero's C order)
    const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(rows, 4 * num_threads()));
    std::vector<int64_t> start(parts + 1, 0);
    auto band = [&](int64_t p, auto&& hit) {
      for (int64_t r = rows * p / parts; r < rows * (p + 1) / parts; ++r)
        for (int64_t c = 0; c < cols; ++c)
          if (src[r * s0 + c * s1] != T(0)) hit(r, c);
    };
    parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int64_t n = 0;
        band(p, [&](int64_t, int64_t) { ++n; });
        start[p + 1] = n;
      }
    });
    for (int64_t p = 0; p < parts; ++p) start[p + 1] += start[p];
    if (start[parts] != total) throw ValueError("nonzero: ys and xs must hold every nonzero element");
    parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int64_t k = start[p];
        band(p, [&](int64_t r, int64_t c) {
          oy[k] = r;
          ox[k++] = c;
        });
      }
    });
  });
}

void hough_line_cpu(const View& ys, const View& xs, std::span<const double> cos, std::span<const double> sin,
                    int64_t offset, const View& accum) {
  const int64_t np = ys.size(), nt = int64_t(cos.size()), nd = accum.shape[0];
  const int64_t* y = ys.ptr<int64_t>();
  const int64_t* x = xs.ptr<int64_t>();
  uint64_t* acc = accum.ptr<uint64_t>();
  // a task owns a tile of angles and counts them in columns of its own (contiguous along the distance,
  // small enough to stay in cache), streaming the points once per tile; the columns then go to accum
  // (up to 8 angles a tile; fewer where that leaves under 4 tiles per thread)
  const int64_t kTile = std::clamp<int64_t>(nt / (4 * std::max<int64_t>(1, num_threads())), 1, 8);
  const int64_t tiles = (nt + kTile - 1) / kTile;
  parallel_for(tiles, 1, [&](int64_t t0, int64_t t1) {
    std::vector<uint32_t> col(kTile * nd);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t j0 = t * kTile, nj = std::min(kTile, nt - j0);
      std::fill(col.begin(), col.end(), 0u);
      for (int64_t p = 0; p < np; ++p)
        for (int64_t q = 0; q < nj; ++q) ++col[q * nd + line_bin(y[p], x[p], cos[j0 + q], sin[j0 + q], offset)];
      for (int64_t q = 0; q < nj; ++q)
        for (int64_t d = 0; d < nd; ++d) acc[d * nt + j0 + q] += col[q * nd + d];
    }
  });
}

void hough_circle_cpu(const View& ys, const View& xs, std::span<const int64_t> radii, int64_t shift, bool normalize,
                      const View& out) {
  const int64_t np = ys.size(), nr = int64_t(radii.size());
  const int64_t rows = out.shape[1], cols = out.shape[2];
  const int64_t* y = ys.ptr<int64_t>();
  const int64_t* x = xs.ptr<int64_t>();
  // counts first, as integers in the output's own memory, then each replaced by its votes' float sum
  uint64_t* count = static_cast<uint64_t*>(out.data);
  double* value = out.ptr<double>();
  // the perimeter of each radius sorted by row offset, with where each row offset starts
  std::vector<std::vector<int64_t>> pr(nr), pc(nr), start(nr);
  std::vector<double> incr(nr);
  for (int64_t i = 0; i < nr; ++i) {
    std::vector<int64_t> dr, dc;
    circle_points(radii[i], dr, dc);
    incr[i] = normalize ? 1.0 / double(dr.size()) : 1.0;
    std::vector<int64_t> idx(dr.size());
    for (size_t q = 0; q < idx.size(); ++q) idx[q] = int64_t(q);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return dr[a] < dr[b]; });
    for (int64_t q : idx) {
      pr[i].push_back(dr[q]);
      pc[i].push_back(dc[q]);
    }
    // start[d + r]: the first point of row offset >= d, for d in [-r, r + 1]
    const int64_t r = std::max<int64_t>(radii[i], 0);
    start[i].resize(2 * r + 2);
    for (int64_t d = -r; d <= r + 1; ++d)
      start[i][d + r] = std::lower_bound(pr[i].begin(), pr[i].end(), d) - pr[i].begin();
  }
  // tasks: (radius, band of output rows), a band small enough to stay in cache while its cells are counted
  // and then turned into their float sums; points are sorted by row, so a band's voters are one range
  const int64_t band = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(cols, 1));
  const int64_t nbands = (rows + band - 1) / band;
  std::vector<std::vector<double>> values(nr);
  for (int64_t i = 0; i < nr; ++i) values[i] = vote_values(1024, incr[i]);
  parallel_for(nr * nbands, 1, [&](int64_t t0, int64_t t1) {
    std::vector<double> more;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t i = t / nbands, b0 = (t % nbands) * band, b1 = std::min(rows, b0 + band);
      const int64_t r = std::max<int64_t>(radii[i], 0);
      uint64_t* plane = count + i * rows * cols;
      // voters: rows y with y + shift + dr in [b0, b1) for some |dr| <= r
      const int64_t* lo = std::lower_bound(y, y + np, b0 - shift - r);
      const int64_t* hi = std::lower_bound(y, y + np, b1 - shift + r);
      uint64_t m = 0;
      for (const int64_t* p = lo; p < hi; ++p) {
        const int64_t q = p - y, cy = y[q] + shift, cx = x[q] + shift;
        const int64_t d0 = std::max(-r, b0 - cy), d1 = std::min(r, b1 - 1 - cy);
        if (d0 > d1) continue;
        for (int64_t k = start[i][d0 + r]; k < start[i][d1 + r + 1]; ++k) {
          const int64_t tx = cy + pr[i][k], ty = cx + pc[i][k];
          if (ty >= 0 && ty < cols) ++plane[tx * cols + ty];
        }
      }
      if (hi == lo) continue;   // no votes: the cells stay 0.0
      for (int64_t o = b0 * cols; o < b1 * cols; ++o) m = std::max(m, plane[o]);
      const double* v = values[i].data();
      if (m >= values[i].size()) {
        more = vote_values(m, incr[i]);
        v = more.data();
      }
      for (int64_t o = b0 * cols; o < b1 * cols; ++o) value[i * rows * cols + o] = v[plane[o]];
    }
  });
}

void radon_cpu(const View& image, std::span<const double> matrix, const View& out) {
  const int64_t n = image.shape[0], na = out.shape[1];
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* img = image.ptr<T>();
      T* o = out.ptr<T>();
      const std::vector<T> h(matrix.begin(), matrix.end());
      // tasks: (angle, block of columns); a block's samples advance row by row together
      constexpr int64_t kCols = 64;
      const int64_t nb = (n + kCols - 1) / kCols;
      parallel_for(na * nb, 1, [&](int64_t t0, int64_t t1) {
        T acc[kCols];
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t a = t / nb, c0 = (t % nb) * kCols, c1 = std::min(n, c0 + kCols);
          const T* ha = h.data() + 6 * a;
          for (int64_t c = c0; c < c1; ++c) acc[c - c0] = T(0);
          for (int64_t row = 0; row < n; ++row) {
            const T yv = T(row);
            for (int64_t c = c0; c < c1; ++c) {
              const T xv = T(c);
              const T cc = ha[0] * xv + ha[1] * yv + ha[2];
              const T rr = ha[3] * xv + ha[4] * yv + ha[5];
              acc[c - c0] += bilinear(img, n, n, rr, cc);
            }
          }
          for (int64_t c = c0; c < c1; ++c) o[c * na + a] = acc[c - c0];
        }
      });
    } else {
      throw TypeError("radon: float32 or float64 image expected");
    }
  });
}

void backproject_cpu(const View& proj, std::span<const double> cos, std::span<const double> sin, int64_t radius,
                     Interp interp, std::span<const double> knots, const View& out) {
  const int64_t na = proj.shape[0], n = proj.shape[1], h = n / 2, size = out.shape[0];
  const double* pj = proj.ptr<double>();
  auto run = [&]<class T>(T* o, auto at) {
    // a task owns rows of the output; each pixel adds the angles in order
    parallel_for(size, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        T* row = o + i * size;
        const double xi = double(i - radius);
        for (int64_t a = 0; a < na; ++a) {
          const double c = cos[a], s = sin[a];
          const double* col = pj + a * n;
          // t runs linearly along the row: outside [-h, n - 1 - h] a term is 0 and adding it changes nothing,
          // so only the columns around that interval (a margin of 2, then the exact test) are visited
          int64_t j0 = 0, j1 = size;
          if (std::abs(c) > 1e-9) {
            const double ja = (double(-h) + xi * s) / c + double(radius), jb = (double(n - 1 - h) + xi * s) / c + double(radius);
            const double lo = std::min(ja, jb), hi = std::max(ja, jb);
            if (!(hi >= -2.0 && lo <= double(size) + 2.0)) continue;
            j0 = std::clamp<int64_t>(int64_t(std::floor(lo)) - 2, 0, size);
            j1 = std::clamp<int64_t>(int64_t(std::ceil(hi)) + 3, 0, size);
          }
          for (int64_t j = j0; j < j1; ++j) row[j] += at(col, double(j - radius) * c - xi * s);
        }
      }
    });
  };
  dispatch_dtype(out.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      T* o = out.ptr<T>();
      const double* kn = knots.data();
      switch (interp) {
        case Interp::Nearest: run(o, [&](const double* c, double t) { return interp_nearest(c, n, h, t); }); break;
        case Interp::Cubic: run(o, [&](const double* c, double t) { return interp_cubic(c, n, h, kn, t); }); break;
        default: run(o, [&](const double* c, double t) { return interp_linear(c, n, h, t); });
      }
    } else {
      throw TypeError("iradon: float32 or float64 output expected");
    }
  });
}

void sart_cpu(const View& image, const View& projections, std::span<const double> theta, std::span<const double> shift,
              double relaxation, std::span<const double> clip) {
  const int64_t n = image.shape[0], na = projections.shape[0], nrays = projections.shape[1];
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      T* img = image.ptr<T>();
      std::vector<T> u(n * n), dev(nrays);
      // the Hamming windows of each ray length, computed once for every projection (a ray's length
      // depends on its position only, not on the angle)
      std::unordered_map<int64_t, std::vector<T>> windows;
      const int64_t band = std::max<int64_t>(4, n / (4 * std::max<int64_t>(1, num_threads())));
      const int64_t nbands = (n + band - 1) / band;
      const T rel = T(relaxation);
      for (int64_t a = 0; a < na; ++a) {
        const T* pj = projections.ptr<T>() + a * nrays;
        auto ray = [&](int64_t i) { return Ray<T>(n, T(theta[a]), T(i) + T(shift[a])); };
        parallel_for(nrays, 1, [&](int64_t r0, int64_t r1) {
          for (int64_t i = r0; i < r1; ++i) dev[i] = ray_deviation(img, ray(i), pj[i]);
        });
        std::vector<const T*> win(nrays, nullptr);
        for (int64_t i = 0; i < nrays; ++i) {
          const int64_t steps = ray(i).steps;
          if (steps <= 0) continue;
          auto [it, fresh] = windows.try_emplace(steps);
          if (fresh) {
            it->second.resize(steps + 1);
            for (int64_t k = 0; k <= steps; ++k) it->second[k] = hamming_window<T>(k, steps);
          }
          win[i] = it->second.data();
        }
        // a task owns a band of the update's rows and adds, ray after ray, the samples reaching them: every
        // pixel gets its terms in the reference's order (ray, sample, corner). A sample at row
        // x0 + k dx + center touches that row and the next, so the band's samples are a range of k, found
        // with a margin and then filtered exactly by row.
        parallel_for(nbands, 1, [&](int64_t b0, int64_t b1) {
          for (int64_t b = b0; b < b1; ++b) {
            const int64_t lo = b * band, hi = std::min(n, lo + band);
            std::fill(u.begin() + lo * n, u.begin() + hi * n, T(0));
            for (int64_t i = 0; i < nrays; ++i) {
              const Ray<T> r = ray(i);
              if (r.steps <= 0) continue;
              const double start = double(r.x0) + double(r.center), step = double(r.dx);
              int64_t k0 = 0, k1 = r.steps;
              if (std::abs(step) > 1e-12) {
                const double ka = (double(lo - 1) - start) / step, kb = (double(hi) - start) / step;
                k0 = std::max<int64_t>(0, int64_t(std::floor(std::min(ka, kb))) - 2);
                k1 = std::min<int64_t>(r.steps, int64_t(std::ceil(std::max(ka, kb))) + 2);
              } else if (start < double(lo - 2) || start > double(hi + 1)) {
                continue;
              }
              const T* w = win[i];
              ray_update(r, dev[i], [w](int64_t k) { return w[k]; },
                         [&](int64_t row, int64_t col, auto v) {
                           if (row >= lo && row < hi) u[row * n + col] += v;
                         },
                         k0, k1);
            }
            // the band's rows are final: image += relaxation * update there, then the clip
            for (int64_t o = lo * n; o < hi * n; ++o) {
              T v = img[o] + rel * u[o];
              if (!clip.empty()) v = sart_clip(v, T(clip[0]), T(clip[1]));
              img[o] = v;
            }
          }
        });
      }
    } else {
      throw TypeError("iradon_sart: float32 or float64 arrays expected");
    }
  });
}

}  // namespace ndimg::proj
