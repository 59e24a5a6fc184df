// CUDA schedule of the 2-D thinning subiterations: one thread per pixel per subiteration over two framed
// uint8 buffers, a device flag raised by the blocks that deleted a pixel, read back after each iteration.
#include "core/cuda.cuh"
#include "morphology/skeleton.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::morphology {
namespace {

constexpr unsigned kThreads = 256;

template <class T>
__global__ void load_kernel(const T* in, int64_t s0, int64_t s1, int64_t h, int64_t w, uint8_t* dst) {
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t r = i / w, c = i % w;
    dst[(r + 1) * (w + 2) + c + 1] = in[r * s0 + c * s1] != T(0);
  }
}

__global__ void store_kernel(const uint8_t* src, int64_t h, int64_t w, bool* out, int64_t s0, int64_t s1) {
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t r = i / w, c = i % w;
    out[r * s0 + c * s1] = src[(r + 1) * (w + 2) + c + 1] != 0;
  }
}

__global__ void pass_kernel(const uint8_t* cur, uint8_t* nxt, int64_t h, int64_t w, Thinning m, int sub,
                            unsigned* changed) {
  bool del = false;
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t k = (i / w + 1) * (w + 2) + i % w + 1;
    const bool d = cur[k] && thinning_deletes(m, neighbour_code(cur + k, w + 2), sub);
    nxt[k] = cur[k] && !d;
    del |= d;
  }
  if (__syncthreads_or(del) && threadIdx.x == 0) atomicOr(changed, 1u);
}

}  // namespace

void thin2d_cuda(const View& in, const View& out, Thinning m, int64_t max_iter, StreamHandle stream) {
  const char* op = "thin";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t h = in.shape[0], w = in.shape[1], n = h * w;
  const size_t bytes = size_t((h + 2) * (w + 2));
  cuda::Scratch a(bytes, s, op), b(bytes, s, op), flag(sizeof(unsigned), s, op);
  cuda::check(cudaMemsetAsync(a.get<uint8_t>(), 0, bytes, s), op);
  cuda::check(cudaMemsetAsync(b.get<uint8_t>(), 0, bytes, s), op);
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  dispatch_dtype(in.dtype, [&]<class T>() {
    load_kernel<T><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), in.strides[0], in.strides[1], h, w, a.get<uint8_t>());
  });
  cuda::check_launch(op);
  uint8_t* cur = a.get<uint8_t>();
  uint8_t* nxt = b.get<uint8_t>();
  unsigned* changed = flag.get<unsigned>();
  for (int64_t it = 0; max_iter < 0 || it < max_iter; ++it) {
    cuda::check(cudaMemsetAsync(changed, 0, sizeof(unsigned), s), op);
    for (int sub = 0; sub < 2; ++sub) {
      pass_kernel<<<blocks, kThreads, 0, s>>>(cur, nxt, h, w, m, sub, changed);
      cuda::check_launch(op);
      std::swap(cur, nxt);
    }
    unsigned host = 0;
    cuda::check(cudaMemcpyAsync(&host, changed, sizeof(unsigned), cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    if (!host) break;
  }
  store_kernel<<<blocks, kThreads, 0, s>>>(cur, h, w, out.ptr<bool>(), out.strides[0], out.strides[1]);
  cuda::check_launch(op);
}

}  // namespace ndimg::morphology
