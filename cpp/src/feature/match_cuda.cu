// The Hamming distances' CUDA schedule: one thread per pair, consecutive threads along the second set (their
// distances are written side by side).
#include "core/cuda.cuh"
#include "feature/match.hpp"

namespace ndimg::feature {
namespace {

__global__ void hamming_kernel(const uint64_t* a, const uint64_t* b, int64_t n2, int64_t words, double nbits,
                               int64_t n, double* out) {
  NDIMG_GRID_STRIDE(i, n) { out[i] = hamming_pair(a + (i / n2) * words, b + (i % n2) * words, words, nbits); }
}

}  // namespace

void hamming_distances_cuda(const View& a, const View& b, int64_t nbits, const View& out, StreamHandle stream) {
  const char* op = "hamming_distances";
  cuda::DeviceGuard guard(a.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = out.size();
  hamming_kernel<<<cuda::blocks_for(n, 256), 256, 0, s>>>(a.ptr<uint64_t>(), b.ptr<uint64_t>(), b.shape[0],
                                                          a.shape[1], double(nbits), n, out.ptr<double>());
  cuda::check_launch(op);
}

}  // namespace ndimg::feature
