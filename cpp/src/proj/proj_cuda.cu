// CUDA schedules of the voting and projection transforms: a thread per vote with integer atomics for the
// Hough accumulators (counts, so the order of the atomics does not matter; circle cells then take their
// votes' sequential float sum from a table), a thread per (angle, column) for Radon sums and per pixel for
// back projection (each sums in the reference's order), a thread per ray for SART (float atomics: the
// update's terms may add in another order than the CPU engine's).
#include <algorithm>
#include <vector>

#include "core/cuda.cuh"
#include "proj/proj.hpp"

namespace ndimg::proj {
namespace {

constexpr unsigned kThreads = 256;

template <class T>
T* upload(cuda::Scratch& scratch, const std::vector<T>& v, cudaStream_t s, const char* op) {
  // pageable source: staged before cudaMemcpyAsync returns
  if (!v.empty())
    cuda::check(cudaMemcpyAsync(scratch.get<T>(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s), op);
  return scratch.get<T>();
}

__global__ void hough_line_kernel(const int64_t* ys, const int64_t* xs, int64_t np, const double* cs,
                                  const double* sn, int64_t nt, int64_t offset, unsigned long long* acc) {
  NDIMG_GRID_STRIDE(i, np * nt) {
    const int64_t p = i / nt, j = i % nt;
    atomicAdd(&acc[line_bin(ys[p], xs[p], cs[j], sn[j], offset) * nt + j], 1ull);
  }
}

// Counts of one radius' votes, as integers in the plane's memory; the plane's largest count in *top.
__global__ void hough_circle_kernel(const int64_t* ys, const int64_t* xs, int64_t np, const int64_t* dr,
                                    const int64_t* dc, int64_t npts, int64_t shift, int64_t rows, int64_t cols,
                                    unsigned long long* plane, unsigned long long* top) {
  NDIMG_GRID_STRIDE(i, np * npts) {
    const int64_t p = i / npts, k = i % npts;
    const int64_t tx = ys[p] + shift + dr[k], ty = xs[p] + shift + dc[k];
    if (tx < 0 || tx >= rows || ty < 0 || ty >= cols) continue;
    const unsigned long long c = atomicAdd(&plane[tx * cols + ty], 1ull) + 1;
    atomicMax(top, c);
  }
}

// Each count replaced by its votes' float sum (table of the cell's radius, at table_start[radius]).
__global__ void vote_value_kernel(unsigned long long* cells, int64_t n, int64_t plane, const double* table,
                                  const int64_t* table_start) {
  NDIMG_GRID_STRIDE(i, n) {
    const unsigned long long c = cells[i];
    reinterpret_cast<double*>(cells)[i] = table[table_start[i / plane] + int64_t(c)];
  }
}

template <class T>
__global__ void radon_kernel(const T* img, int64_t n, const T* h, int64_t na, T* out) {
  NDIMG_GRID_STRIDE(i, na * n) {
    const int64_t a = i / n, c = i % n;
    out[c * na + a] = radon_sum(img, n, h + 6 * a, c);
  }
}

template <class T>
__global__ void backproject_kernel(const double* proj, int64_t na, int64_t n, const double* cs, const double* sn,
                                   int64_t radius, Interp interp, const double* knots, int64_t size, T* out) {
  NDIMG_GRID_STRIDE(p, size * size) {
    const int64_t i = p / size, j = p % size;
    const double xi = double(i - radius), yj = double(j - radius);
    T acc = out[p];
    for (int64_t a = 0; a < na; ++a)
      acc += interp_at(interp, proj + a * n, n, n / 2, knots, yj * cs[a] - xi * sn[a]);
    out[p] = acc;
  }
}

template <class T>
__global__ void sart_kernel(const T* img, int64_t n, T theta, const T* projection, int64_t nrays, T shift, T* update) {
  NDIMG_GRID_STRIDE(i, nrays) {
    const Ray<T> ray(n, theta, T(i) + shift);
    const T dev = ray_deviation(img, ray, projection[i]);
    const int64_t steps = ray.steps;
    ray_update(ray, dev, [steps](int64_t k) { return hamming_window<T>(k, steps); },
               [&](int64_t row, int64_t col, auto v) { atomicAdd(&update[row * n + col], T(v)); });
  }
}

// image += relaxation * update, then clipped where clip is set.
template <class T>
__global__ void sart_apply_kernel(T* img, const T* update, int64_t size, T rel, bool clip, T lo, T hi) {
  NDIMG_GRID_STRIDE(o, size) {
    T v = img[o] + rel * update[o];
    if (clip) v = sart_clip(v, lo, hi);
    img[o] = v;
  }
}

}  // namespace

void hough_line_cuda(const View& ys, const View& xs, std::span<const double> cos, std::span<const double> sin,
                     int64_t offset, const View& accum, StreamHandle stream) {
  const char* op = "hough_line";
  cuda::DeviceGuard guard(accum.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t nt = int64_t(cos.size()), np = ys.size();
  std::vector<double> cs(cos.begin(), cos.end());
  cs.insert(cs.end(), sin.begin(), sin.end());
  cuda::Scratch table(cs.size() * sizeof(double), s, op);
  const double* d = upload(table, cs, s, op);
  hough_line_kernel<<<cuda::blocks_for(np * nt, kThreads), kThreads, 0, s>>>(
      ys.ptr<int64_t>(), xs.ptr<int64_t>(), np, d, d + nt, nt, offset,
      reinterpret_cast<unsigned long long*>(accum.data));
  cuda::check_launch(op);
}

void hough_circle_cuda(const View& ys, const View& xs, std::span<const int64_t> radii, int64_t shift, bool normalize,
                       const View& out, StreamHandle stream) {
  const char* op = "hough_circle";
  cuda::DeviceGuard guard(out.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t nr = int64_t(radii.size()), rows = out.shape[1], cols = out.shape[2], np = ys.size();
  auto* cells = reinterpret_cast<unsigned long long*>(out.data);
  cuda::Scratch top_s(nr * sizeof(unsigned long long), s, op);
  cuda::check(cudaMemsetAsync(top_s.get<unsigned long long>(), 0, nr * sizeof(unsigned long long), s), op);
  std::vector<double> incr(nr);
  for (int64_t i = 0; i < nr; ++i) {
    std::vector<int64_t> dr, dc;
    circle_points(radii[i], dr, dc);
    incr[i] = normalize ? 1.0 / double(dr.size()) : 1.0;
    const int64_t npts = int64_t(dr.size());
    if (npts == 0 || np == 0) continue;
    dr.insert(dr.end(), dc.begin(), dc.end());
    cuda::Scratch pts(dr.size() * sizeof(int64_t), s, op);
    const int64_t* d = upload(pts, dr, s, op);
    hough_circle_kernel<<<cuda::blocks_for(np * npts, kThreads), kThreads, 0, s>>>(
        ys.ptr<int64_t>(), xs.ptr<int64_t>(), np, d, d + npts, npts, shift, rows, cols, cells + i * rows * cols,
        top_s.get<unsigned long long>() + i);
    cuda::check_launch(op);
  }
  // the tables need the largest counts on the host
  std::vector<unsigned long long> top(nr);
  cuda::check(cudaMemcpyAsync(top.data(), top_s.get<unsigned long long>(), nr * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  std::vector<double> table;
  std::vector<int64_t> start(nr);
  for (int64_t i = 0; i < nr; ++i) {
    start[i] = int64_t(table.size());
    const std::vector<double> v = vote_values(top[i], incr[i]);
    table.insert(table.end(), v.begin(), v.end());
  }
  cuda::Scratch table_s(table.size() * sizeof(double), s, op), start_s(nr * sizeof(int64_t), s, op);
  const double* t = upload(table_s, table, s, op);
  const int64_t* st = upload(start_s, start, s, op);
  vote_value_kernel<<<cuda::blocks_for(out.size(), kThreads), kThreads, 0, s>>>(cells, out.size(), rows * cols, t, st);
  cuda::check_launch(op);
}

void radon_cuda(const View& image, std::span<const double> matrix, const View& out, StreamHandle stream) {
  const char* op = "radon";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = image.shape[0], na = out.shape[1];
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const std::vector<T> h(matrix.begin(), matrix.end());
      cuda::Scratch hs(h.size() * sizeof(T), s, op);
      const T* d = upload(hs, h, s, op);
      radon_kernel<T><<<cuda::blocks_for(na * n, kThreads), kThreads, 0, s>>>(image.ptr<T>(), n, d, na, out.ptr<T>());
      cuda::check_launch(op);
    } else {
      throw TypeError("radon: float32 or float64 image expected");
    }
  });
}

void backproject_cuda(const View& proj, std::span<const double> cos, std::span<const double> sin, int64_t radius,
                      Interp interp, std::span<const double> knots, const View& out, StreamHandle stream) {
  const char* op = "iradon";
  cuda::DeviceGuard guard(out.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t na = proj.shape[0], n = proj.shape[1], size = out.shape[0];
  std::vector<double> v(cos.begin(), cos.end());
  v.insert(v.end(), sin.begin(), sin.end());
  v.insert(v.end(), knots.begin(), knots.end());
  cuda::Scratch vs(v.size() * sizeof(double), s, op);
  const double* d = upload(vs, v, s, op);
  dispatch_dtype(out.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      backproject_kernel<T><<<cuda::blocks_for(size * size, kThreads), kThreads, 0, s>>>(
          proj.ptr<double>(), na, n, d, d + na, radius, interp, d + 2 * na, size, out.ptr<T>());
      cuda::check_launch(op);
    } else {
      throw TypeError("iradon: float32 or float64 output expected");
    }
  });
}

void sart_cuda(const View& image, const View& projections, std::span<const double> theta, std::span<const double> shift,
               double relaxation, std::span<const double> clip, StreamHandle stream) {
  const char* op = "iradon_sart";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = image.shape[0], na = projections.shape[0], nrays = projections.shape[1];
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      cuda::Scratch us(n * n * sizeof(T), s, op);
      T* u = us.get<T>();
      const bool has_clip = !clip.empty();
      const T lo = has_clip ? T(clip[0]) : T(0), hi = has_clip ? T(clip[1]) : T(0);
      for (int64_t a = 0; a < na; ++a) {
        cuda::check(cudaMemsetAsync(u, 0, n * n * sizeof(T), s), op);
        sart_kernel<T><<<cuda::blocks_for(nrays, 64), 64, 0, s>>>(image.ptr<T>(), n, T(theta[a]),
                                                                  projections.ptr<T>() + a * nrays, nrays,
                                                                  T(shift[a]), u);
        cuda::check_launch(op);
        sart_apply_kernel<T><<<cuda::blocks_for(n * n, kThreads), kThreads, 0, s>>>(image.ptr<T>(), u, n * n,
                                                                                   T(relaxation), has_clip, lo, hi);
        cuda::check_launch(op);
      }
    } else {
      throw TypeError("iradon_sart: float32 or float64 arrays expected");
    }
  });
}

}  // namespace ndimg::proj
