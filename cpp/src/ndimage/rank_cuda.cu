#include <algorithm>
#include <cmath>

#include "core/index.hpp"
#include "ndimage/correlate1d.hpp"
#include "ndimage/footprint.cuh"
#include "ndimage/rank.hpp"

namespace ndimg::ndimage {
namespace {

// Footprints up to this many taps gather into a per-thread array; larger ones into global scratch.
constexpr int64_t kLocalTaps = 64;

// Generic schedule: one thread per output element of any strided layout and footprint.
template <class TI, class TO, class C>
__global__ void rank_kernel(const TI* in, TO* out, Geometry g, const int64_t* offsets, const int64_t* linear,
                            int64_t count, int64_t rank, Mode mode, C cval, int64_t total, C* work) {
  C local[kLocalTaps];
  const int64_t tid = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  C* v = work ? work + tid * count : local;
  for (int64_t idx = tid; idx < total; idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[kMaxDim];
    const int64_t o = unravel(g, idx, c);
    for_each_tap<C>(g, c, in, offsets, linear, count, mode, cval, [&](int64_t k, C x) { v[k] = x; });
    out[o] = cast_to<TO>(rank_value(v, count, rank));
  }
}

// Fast path: median of a K x K box on a 2-D image. A block of 32 x 8 threads produces a 32 x 32 tile of
// outputs (four rows per thread) from a shared-memory tile with its halo, already boundary-extended; each
// output's K*K values go from shared memory straight into the registers of forgetful_median.
constexpr int kBX = 32, kBY = 8, kRows = 4, kTileY = kBY * kRows;

template <class TI, int K>
__global__ void __launch_bounds__(kBX* kBY) median_box_kernel(const TI* in, TI* out, int64_t H, int64_t W,
                                                              int64_t isy, int64_t isx, int64_t osy, int64_t osx,
                                                              int64_t oy, int64_t ox, Mode mode,
                                                              compute_t<TI> cval, int64_t tiles_y,
                                                              int64_t tiles_x) {
  using C = compute_t<TI>;
  constexpr int TH = kTileY + K - 1, TW = kBX + K - 1;
  __shared__ C tile[TH][TW];
  for (int64_t ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
    for (int64_t tx = blockIdx.x; tx < tiles_x; tx += gridDim.x) {
      const int64_t y0 = ty * kTileY, x0 = tx * kBX;
      __syncthreads();  // the previous tile is no longer read
      int nan = 0;
      for (int e = threadIdx.y * kBX + threadIdx.x; e < TH * TW; e += kBX * kBY) {
        const int r = e / TW, q = e % TW;
        const int64_t gy = extend_index(y0 + oy + r, H, mode), gx = extend_index(x0 + ox + q, W, mode);
        tile[r][q] = (gy < 0 || gx < 0) ? cval : C(in[gy * isy + gx * isx]);
        nan |= !(tile[r][q] == tile[r][q]);
      }
      // a tile holding NaN takes scipy's selection (rank_value), which decides where NaN goes
      const bool tile_nan = __syncthreads_or(nan);
      const int64_t x = x0 + threadIdx.x;
      if (x >= W) continue;
#pragma unroll 1
      for (int p = 0; p < kRows; ++p) {
        const int ry = threadIdx.y + p * kBY;
        const int64_t y = y0 + ry;
        if (y >= H) break;
        auto at = [&](int j) { return tile[ry + j / K][threadIdx.x + j % K]; };
        C m;
        if (tile_nan) {
          C v[K * K];
          for (int j = 0; j < K * K; ++j) v[j] = at(j);
          m = rank_value(v, K * K, K * K / 2);
        } else {
          m = forgetful_median<K * K, C>(at);
        }
        out[y * osy + x * osx] = cast_to<TI>(m);
      }
    }
  }
}

template <class TI, int K>
void launch_median_box(const View& in, const View& out, const Taps& t, Mode mode, double cval, cudaStream_t s,
                       const char* op) {
  const int64_t H = in.shape[0], W = in.shape[1];
  const int64_t tiles_y = (H + kTileY - 1) / kTileY, tiles_x = (W + kBX - 1) / kBX;
  const dim3 grid(unsigned(std::min<int64_t>(tiles_x, 65535)), unsigned(std::min<int64_t>(tiles_y, 65535)));
  median_box_kernel<TI, K><<<grid, dim3(kBX, kBY), 0, s>>>(
      in.ptr<TI>(), out.ptr<TI>(), H, W, in.strides[0], in.strides[1], out.strides[0], out.strides[1],
      t.offsets[0], t.offsets[1], mode, compute_t<TI>(cval), tiles_y, tiles_x);
  cuda::check_launch(op);
}

}  // namespace

void rank_filter_cuda(const View& in, const View& out, const Taps& t, int64_t rank, Mode mode, double cval,
                      StreamHandle stream) {
  const char* op = "rank_filter";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int box = box_median_size(t, rank);
  const int64_t total = out.size();
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using C = compute_t<TI>;
    if (box && out.dtype == in.dtype) {
      if (box == 3) launch_median_box<TI, 3>(in, out, t, mode, cval, s, op);
      else launch_median_box<TI, 5>(in, out, t, mode, cval, s, op);
      return;
    }
    const DeviceTaps dt(t, s, op);
    with_kernel_output<TI>(out, s, op, [&]<class TO>(const View& o) {
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = o.strides[d];
      unsigned blocks = cuda::blocks_for(total, 256);
      size_t scratch = 0;
      if (t.count > kLocalTaps) {  // bound the gather scratch to about 128 MiB
        const int64_t cap = std::max<int64_t>(1, (int64_t(128) << 20) / (t.count * int64_t(sizeof(C)) * 256));
        blocks = unsigned(std::min<int64_t>(blocks, cap));
        scratch = size_t(blocks) * 256 * size_t(t.count) * sizeof(C);
      }
      cuda::Scratch work(scratch, s, op);
      rank_kernel<TI, TO, C><<<blocks, 256, 0, s>>>(in.ptr<TI>(), o.ptr<TO>(), g, dt.offsets, dt.linear, t.count,
                                                    rank, mode, C(cval), total, work.get<C>());
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
