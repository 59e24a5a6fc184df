// The cascade classifier's CUDA schedule: one thread per window.
#include "core/cuda.cuh"
#include "feature/cascade.hpp"

namespace ndimg::feature {
namespace {

__global__ void cascade_kernel(const float* ii, int64_t rows, int64_t cols, CascadeTables t, int64_t step,
                               int64_t n, int64_t nc, uint8_t* out) {
  NDIMG_GRID_STRIDE(i, n) { out[i] = cascade_window(ii, rows, cols, (i / nc) * step, (i % nc) * step, t); }
}

}  // namespace

void cascade_windows_cuda(const View& ii, const CascadeTables& t, int64_t step, const View& out, StreamHandle stream) {
  const char* op = "cascade_windows";
  cuda::DeviceGuard guard(ii.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = out.size();
  cascade_kernel<<<cuda::blocks_for(n, 128), 128, 0, s>>>(ii.ptr<float>(), ii.shape[0], ii.shape[1], t, step, n,
                                                          out.shape[1], out.ptr<uint8_t>());
  cuda::check_launch(op);
}

}  // namespace ndimg::feature
