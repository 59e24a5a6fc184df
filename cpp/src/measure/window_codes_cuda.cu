// CUDA schedules of the window code histograms: a thread per window or pixel (adjacent threads, adjacent
// columns), counted in per-warp shared bins, a block's bins added to the global ones (integer counts: any
// order gives the same bits).
#include <algorithm>

#include "core/cuda.cuh"
#include "measure/window_codes.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::measure {
namespace {

constexpr unsigned kThreads = 256, kWarps = kThreads / 32;
constexpr unsigned kMaxBlocks = 4096;

template <class T>
__global__ void __launch_bounds__(kThreads) window_codes_kernel(const T* in, Axes3 a, int nd, int64_t windows,
                                                                unsigned long long* hist) {
  __shared__ unsigned bins[kWarps][256];
  for (unsigned i = threadIdx.x; i < kWarps * 256; i += kThreads) bins[i / 256][i % 256] = 0;
  __syncthreads();
  unsigned* mine = bins[threadIdx.x / 32];
  const int64_t wx = a.shape[2] + 1, wy = a.shape[1] + 1;
  NDIMG_GRID_STRIDE(w, windows) {
    const int64_t x = w % wx, qy = w / wx % wy, qz = w / wx / wy;
    atomicAdd(mine + (column_bits(in, a, nd, qz, qy, x) | column_bits(in, a, nd, qz, qy, x - 1) << 2), 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < (nd == 2 ? 16u : 256u); b += kThreads) {
    unsigned long long v = 0;
    for (unsigned k = 0; k < kWarps; ++k) v += bins[k][b];
    if (v) atomicAdd(hist + b, v);
  }
}

__global__ void __launch_bounds__(kThreads) perimeter_codes_kernel(const uint8_t* img, int64_t h, int64_t w,
                                                                   int64_t sy, int64_t sx, bool eight,
                                                                   unsigned long long* hist) {
  __shared__ unsigned bins[kWarps][256];
  for (unsigned i = threadIdx.x; i < kWarps * 256; i += kThreads) bins[i / 256][i % 256] = 0;
  __syncthreads();
  unsigned* mine = bins[threadIdx.x / 32];
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t y = i / w, x = i % w;
    int v = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) v += perimeter_weight(dy, dx) * perimeter_border(img, h, w, sy, sx, y + dy, x + dx, eight);
    atomicAdd(mine + (v & 255), 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += kThreads) {
    unsigned long long v = 0;
    for (unsigned k = 0; k < kWarps; ++k) v += bins[k][b];
    if (v) atomicAdd(hist + b, v);
  }
}

}  // namespace

void window_codes_cuda(const View& in, int64_t* hist, StreamHandle stream) {
  const char* op = "measure_window_codes";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const Axes3 a = axes3(in);
  const int64_t windows = (a.shape[2] + 1) * (a.shape[1] + 1) * (in.ndim == 3 ? a.shape[0] + 1 : 1);
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(windows, kThreads), kMaxBlocks);
  dispatch_dtype(in.dtype, [&]<class T>() {
    window_codes_kernel<T><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), a, in.ndim, windows,
                                                       reinterpret_cast<unsigned long long*>(hist));
  });
  cuda::check_launch(op);
}

void perimeter_codes_cuda(const View& img, bool eight, int64_t* hist, StreamHandle stream) {
  const char* op = "measure_perimeter_codes";
  cuda::DeviceGuard guard(img.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = img.size();
  if (n == 0) return;
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n, kThreads), kMaxBlocks);
  perimeter_codes_kernel<<<blocks, kThreads, 0, s>>>(img.ptr<uint8_t>(), img.shape[0], img.shape[1], img.strides[0],
                                                      img.strides[1], eight, reinterpret_cast<unsigned long long*>(hist));
  cuda::check_launch(op);
}

}  // namespace ndimg::measure
