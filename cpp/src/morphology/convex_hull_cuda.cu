// Convex hull rasterisation on CUDA: the hull's few vertices or facets are copied to the device, a thread per
// line finds the line's interval (convex_hull.hpp), then a thread per pixel (or a warp per line of one of
// several polygons, which only sets pixels) writes it.
#include <algorithm>
#include <array>
#include <vector>

#include "core/cuda.cuh"
#include "morphology/convex_hull.hpp"

namespace ndimg::morphology {
namespace {

constexpr unsigned kThreads = 256;

// host values into device scratch of their size
template <class T>
void upload(const cuda::Scratch& buf, std::span<const T> values, cudaStream_t s, const char* op) {
  if (!values.empty())
    cuda::check(cudaMemcpyAsync(buf.get<T>(), values.data(), values.size_bytes(), cudaMemcpyHostToDevice, s), op);
}

// task t: row rows[t] of the polygon whose vertices start at vertex starts[poly[t]] (all rows of polygon 0
// when poly is null)
__global__ void polygon_rows_kernel(const int64_t* twice, const int64_t* starts, const int32_t* poly,
                                    const int64_t* rows, int64_t tasks, bool strict, int64_t* bounds) {
  NDIMG_GRID_STRIDE(t, tasks) {
    const int64_t p = poly ? poly[t] : 0;
    polygon_row(twice + 2 * starts[p], starts[p + 1] - starts[p], rows ? rows[t] : t, strict, bounds[2 * t],
                bounds[2 * t + 1]);
  }
}

// every pixel of a 2-D output from its row's interval
__global__ void fill_rows_kernel(bool* out, int64_t s0, int64_t s1, int64_t h, int64_t w, const int64_t* bounds) {
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t r = i / w, c = i % w;
    out[r * s0 + c * s1] = c >= bounds[2 * r] && c <= bounds[2 * r + 1];
  }
}

// a warp per task sets the pixels of its row's interval
__global__ void set_rows_kernel(bool* out, int64_t s0, int64_t s1, int64_t w, const int64_t* rows, int64_t tasks,
                                const int64_t* bounds) {
  const int64_t warps = int64_t(gridDim.x) * blockDim.x / 32;
  for (int64_t t = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32; t < tasks; t += warps) {
    const int64_t lo = max(bounds[2 * t], int64_t(0)), hi = min(bounds[2 * t + 1], w - 1);
    for (int64_t c = lo + threadIdx.x % 32; c <= hi; c += 32) out[rows[t] * s0 + c * s1] = true;
  }
}

__global__ void hull_lines_kernel(const double* equations, int64_t f, int nd, std::array<int64_t, kMaxDim> shape, int64_t lines,
                                  double tolerance, int64_t* bounds) {
  NDIMG_GRID_STRIDE(l, lines) {
    int64_t x[kMaxDim];
    for (int64_t d = nd - 2, r = l; d >= 0; --d) {
      x[d] = r % shape[d];
      r /= shape[d];
    }
    hull_line(equations, f, nd, x, shape[nd - 1], tolerance, bounds[2 * l], bounds[2 * l + 1]);
  }
}

__global__ void fill_lines_kernel(bool* out, int64_t n, int64_t w, const int64_t* bounds) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t l = i / w, c = i % w;
    out[i] = c >= bounds[2 * l] && c <= bounds[2 * l + 1];
  }
}

}  // namespace

void fill_convex_polygons_cuda(const View& out, std::span<const int64_t> twice, std::span<const int64_t> starts,
                               bool strict, bool whole, StreamHandle stream) {
  const char* op = whole ? "convex_hull_image" : "convex_hull_object";
  cuda::DeviceGuard guard(out.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t h = out.shape[0], w = out.shape[1];
  // the rows each polygon reaches, as tasks (polygon, row) (all rows of the one polygon when whole)
  std::vector<int32_t> poly;
  std::vector<int64_t> rows;
  if (!whole)
    for (size_t p = 0; p + 1 < starts.size(); ++p) {
      int64_t x0 = twice[2 * starts[p]], x1 = x0;
      for (int64_t e = starts[p] + 1; e < starts[p + 1]; ++e) x0 = std::min(x0, twice[2 * e]), x1 = std::max(x1, twice[2 * e]);
      for (int64_t r = std::max<int64_t>(ceil_div(x0, 2), 0); r <= std::min<int64_t>(floor_div(x1, 2), h - 1); ++r) {
        poly.push_back(int32_t(p));
        rows.push_back(r);
      }
    }
  const int64_t tasks = whole ? h : int64_t(rows.size());
  if (tasks == 0) return;
  cuda::Scratch v(twice.size_bytes(), s, op), st(starts.size_bytes(), s, op);
  cuda::Scratch tp(poly.size() * sizeof(int32_t), s, op), tr(rows.size() * sizeof(int64_t), s, op);
  upload(v, twice, s, op);
  upload(st, starts, s, op);
  upload(tp, std::span<const int32_t>(poly), s, op);
  upload(tr, std::span<const int64_t>(rows), s, op);
  cuda::Scratch bounds(size_t(2 * tasks) * sizeof(int64_t), s, op);
  polygon_rows_kernel<<<cuda::blocks_for(tasks, kThreads), kThreads, 0, s>>>(
      v.get<int64_t>(), st.get<int64_t>(), whole ? nullptr : tp.get<int32_t>(), whole ? nullptr : tr.get<int64_t>(),
      tasks, strict, bounds.get<int64_t>());
  cuda::check_launch(op);
  if (whole)
    fill_rows_kernel<<<cuda::blocks_for(h * w, kThreads), kThreads, 0, s>>>(out.ptr<bool>(), out.strides[0],
                                                                            out.strides[1], h, w, bounds.get<int64_t>());
  else
    set_rows_kernel<<<cuda::blocks_for(32 * tasks, kThreads), kThreads, 0, s>>>(
        out.ptr<bool>(), out.strides[0], out.strides[1], w, tr.get<int64_t>(), tasks, bounds.get<int64_t>());
  cuda::check_launch(op);
  // the host vectors go when this returns: the copies from them must be done
  cuda::check(cudaStreamSynchronize(s), op);
}

void fill_convex_hull_nd_cuda(const View& out, std::span<const double> equations, double tolerance,
                              StreamHandle stream) {
  const char* op = "convex_hull_image";
  cuda::DeviceGuard guard(out.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int nd = out.ndim;
  const int64_t n = out.size(), w = out.shape[nd - 1], lines = n / w, f = int64_t(equations.size()) / (nd + 1);
  cuda::Scratch eq(equations.size_bytes(), s, op);
  upload(eq, equations, s, op);
  cuda::Scratch bounds(size_t(2 * lines) * sizeof(int64_t), s, op);
  hull_lines_kernel<<<cuda::blocks_for(lines, kThreads), kThreads, 0, s>>>(eq.get<double>(), f, nd, out.shape, lines,
                                                                          tolerance, bounds.get<int64_t>());
  cuda::check_launch(op);
  fill_lines_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(out.ptr<bool>(), n, w, bounds.get<int64_t>());
  cuda::check_launch(op);
  cuda::check(cudaStreamSynchronize(s), op);
}

}  // namespace ndimg::morphology
