// CUDA schedule of grid_points_in_polygon: one thread per grid point, pnpoly's test (contours_polygon.hpp)
// over the vertices held in device memory.
#include "core/cuda.cuh"
#include "measure/contours_polygon.hpp"

namespace ndimg::measure {
namespace {

constexpr unsigned kThreads = 256;

__global__ void grid_kernel(const double* xp, const double* yp, int64_t nverts, int64_t rows, int64_t cols,
                            uint8_t* out) {
  NDIMG_GRID_STRIDE(i, rows * cols) out[i] = point_in_polygon(xp, yp, nverts, double(i / cols), double(i % cols));
}

}  // namespace

void grid_points_in_polygon_cuda(const double* xp, const double* yp, int64_t nverts, int64_t rows, int64_t cols,
                                 uint8_t* out, int device, StreamHandle stream) {
  const char* op = "grid_points_in_polygon";
  cuda::DeviceGuard guard(device, op);
  grid_kernel<<<cuda::blocks_for(rows * cols, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      xp, yp, nverts, rows, cols, out);
  cuda::check_launch(op);
}

}  // namespace ndimg::measure
