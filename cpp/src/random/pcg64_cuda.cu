// CUDA schedule of the PCG64 stream: each thread jumps to the first of kRun consecutive positions and steps
// through them; a warp's runs pass through shared memory so that its stores are of consecutive elements.
#include "core/cuda.cuh"
#include "random/pcg64.hpp"

namespace ndimg::random {
namespace {

constexpr int kRun = 32;
constexpr unsigned kThreads = 128;

__global__ void pcg64_kernel(U128 state, U128 inc, uint64_t offset, double* out, int64_t n) {
  __shared__ double tile[kThreads / 32][32][kRun + 1];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int64_t warp_first = (int64_t(blockIdx.x) * kThreads + w * 32) * kRun;  // the warp's 32 runs
  if (warp_first >= n) return;
  const int64_t first = warp_first + int64_t(lane) * kRun;
  if (first < n) {
    U128 s = pcg64_advance(state, inc, offset + uint64_t(first));
    for (int k = 0; k < kRun; ++k) tile[w][lane][k] = pcg64_next_double(s, inc);
  }
  __syncwarp();
  // element warp_first + r * 32 + lane: run (r * 32 + lane) / kRun, place (r * 32 + lane) % kRun
  for (int r = 0; r < kRun; ++r) {
    const int e = r * 32 + lane;
    const int64_t i = warp_first + e;
    if (i < n) out[i] = tile[w][e / kRun][e % kRun];
  }
}

}  // namespace

void pcg64_random_cuda(U128 state, U128 inc, uint64_t offset, double* out, int64_t n, int device, StreamHandle stream) {
  const char* op = "pcg64_random";
  cuda::DeviceGuard guard(device, op);
  const int64_t threads = (n + kRun - 1) / kRun;
  pcg64_kernel<<<cuda::blocks_for(threads, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      state, inc, offset, out, n);
  cuda::check_launch(op);
}

}  // namespace ndimg::random
