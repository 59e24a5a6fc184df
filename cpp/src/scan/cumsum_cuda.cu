// CUDA schedule of the scan: every line summed one element after the other, as on the CPU engine, so float
// results equal np.cumsum's bit for bit here too (no tree scan: its reordered sums would round differently).
// Across an outer axis (inner > 1) one thread per line, neighbouring threads on neighbouring elements of
// `inner` (coalesced), each loading kAhead elements before summing them; few lines (an image's columns) go
// in blocks of one warp, spread over as many multiprocessors as there are warps. Along the last merged axis
// (inner == 1) a block of one warp takes 32 lines through a 32 x 32 shared tile: loads and stores of 32
// consecutive elements of one line at a time (coalesced), then each lane sums its own line's 32 elements.
#include "core/cuda.cuh"
#include "scan/cumsum.hpp"

namespace ndimg::scan {
namespace {

constexpr int kAhead = 16;

template <class W, class R, bool Half>
__global__ void scan_across(const void* in, DType dt, Lines l, R* out) {
  NDIMG_GRID_STRIDE(t, l.outer * l.inner) {
    const int64_t o = t / l.inner, j = t % l.inner;
    const int64_t ib = o * l.in_s[0] + j * l.in_s[2], ob = o * l.out_s[0] + j * l.out_s[2];
    R acc{};
    for (int64_t i0 = 0; i0 < l.n; i0 += kAhead) {
      R v[kAhead];
#pragma unroll
      for (int k = 0; k < kAhead; ++k)
        if (i0 + k < l.n) v[k] = element<R, Half>(load_wide<W>(in, dt, ib + (i0 + k) * l.in_s[1]));
#pragma unroll
      for (int k = 0; k < kAhead; ++k)
        if (i0 + k < l.n) {
          acc = i0 + k == 0 ? v[k] : step<Half>(acc, v[k]);  // the first element as is (0 + -0.0 would be 0.0)
          out[ob + (i0 + k) * l.out_s[1]] = acc;
        }
    }
  }
}

template <class W, class R, bool Half>
__global__ void scan_along(const void* in, DType dt, Lines l, R* out) {
  __shared__ R tile[32][33];
  const int lane = threadIdx.x;
  const int64_t line0 = int64_t(blockIdx.x) * 32;
  R acc{};
  for (int64_t c0 = 0; c0 < l.n; c0 += 32) {
    const int64_t c = c0 + lane;
    for (int t = 0; t < 32; ++t)
      if (line0 + t < l.outer && c < l.n)
        tile[t][lane] = element<R, Half>(load_wide<W>(in, dt, (line0 + t) * l.in_s[0] + c * l.in_s[1]));
    __syncwarp();
    if (line0 + lane < l.outer) {
      const int m = int(l.n - c0 < 32 ? l.n - c0 : 32);
      for (int k = 0; k < m; ++k) {
        acc = c0 + k == 0 ? tile[lane][k] : step<Half>(acc, tile[lane][k]);
        tile[lane][k] = acc;
      }
    }
    __syncwarp();
    for (int t = 0; t < 32; ++t)
      if (line0 + t < l.outer && c < l.n) out[(line0 + t) * l.out_s[0] + c * l.out_s[1]] = tile[t][lane];
    __syncwarp();
  }
}

template <class W, class R, bool Half>
void launch(const View& in, const View& out, const Lines& l, cudaStream_t s) {
  if (l.inner == 1) {
    scan_along<W, R, Half><<<cuda::blocks_for(l.outer, 32), 32, 0, s>>>(in.data, in.dtype, l, out.ptr<R>());
  } else {
    const int64_t lines = l.outer * l.inner;
    const unsigned threads = lines < (1 << 16) ? 32 : 128;
    scan_across<W, R, Half><<<cuda::blocks_for(lines, threads), threads, 0, s>>>(in.data, in.dtype, l, out.ptr<R>());
  }
}

template <class W>
void scan_to_out(const View& in, const View& out, const Lines& l, cudaStream_t s, const char* op) {
  dispatch_dtype(out.dtype, [&]<class R>() {
    if constexpr (std::is_same_v<R, bool>) throw TypeError("cumsum: bool output is not supported");
    else if constexpr (std::is_same_v<R, float>) l.half ? launch<W, R, true>(in, out, l, s) : launch<W, R, false>(in, out, l, s);
    else launch<W, R, false>(in, out, l, s);
  });
  cuda::check_launch(op);
}

}  // namespace

void cumsum_cuda(const View& in, const View& out, const Lines& l, StreamHandle stream) {
  const char* op = "cumsum";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class T>() { scan_to_out<wide_t<T>>(in, out, l, s, op); });
}

}  // namespace ndimg::scan
