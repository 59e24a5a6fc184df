// CUDA schedule of the polygon fill: one thread per pixel, pnpoly against every edge (the GPU has the
// threads to spare that the CPU's scanline saves; both give pnpoly's codes). The ellipse fill takes scalars
// only (disk, ellipse): it has no GPU caller and no CUDA schedule.
#include "core/cuda.cuh"
#include "draw/draw.hpp"
#include "measure/contours_polygon.hpp"

namespace ndimg::draw {
namespace {

constexpr unsigned kThreads = 256;

__global__ void polygon_kernel(const double* xp, const double* yp, int64_t n, int64_t r0, int64_t c0, int64_t cols,
                               int64_t size, uint8_t* out) {
  NDIMG_GRID_STRIDE(k, size) {
    const int64_t i = k / cols, j = k - i * cols;
    out[k] = measure::point_in_polygon(xp, yp, n, double(c0 + j), double(r0 + i)) != 0;
  }
}

}  // namespace

void polygon_mask_cuda(std::span<const double> vr, std::span<const double> vc, int64_t r0, int64_t c0,
                       const View& out, StreamHandle stream) {
  const char* op = "polygon_mask";
  cuda::DeviceGuard guard(out.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = int64_t(vr.size());
  cuda::Scratch verts(2 * n * sizeof(double), s, op);
  double* xp = verts.get<double>();
  // pageable sources: staged before cudaMemcpyAsync returns
  cuda::check(cudaMemcpyAsync(xp, vc.data(), n * sizeof(double), cudaMemcpyHostToDevice, s), op);
  cuda::check(cudaMemcpyAsync(xp + n, vr.data(), n * sizeof(double), cudaMemcpyHostToDevice, s), op);
  const int64_t size = out.size();
  polygon_kernel<<<cuda::blocks_for(size, kThreads), kThreads, 0, s>>>(xp, xp + n, n, r0, c0, out.shape[1], size,
                                                                       out.ptr<uint8_t>());
  cuda::check_launch(op);
}

}  // namespace ndimg::draw
