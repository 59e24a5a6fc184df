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

// Tiled path: a full KZ x KY x KX box (3x3, 5x5, 3x3x3; any rank) from the shared-memory tile, each
// output's values going straight into the registers of select_rank. A tile holding NaN takes scipy's
// selection (rank_value_scipy), which decides where NaN goes.
template <class TI, class S, int KZ, int KY, int KX>
__global__ void __launch_bounds__(kTileThreads) rank_box_kernel(const TI* in, TI* out, Tiling g, int rank, Mode mode,
                                                                compute_t<TI> cval) {
  using C = compute_t<TI>;
  constexpr int N = KZ * KY * KX, EY = S::OY + KY - 1, EX = S::OX + KX - 1;
  extern __shared__ __align__(16) unsigned char smem[];
  C* tile = reinterpret_cast<C*>(smem);
  for_each_tile<S>(tile, in, g, mode, cval, [&](const int64_t* t0, bool nan) {
#pragma unroll 1
    for (int p = 0; p < S::PZ * S::PY; ++p) {
      int z, y;
      if (!tile_output<S>(g, t0, p, z, y)) continue;
      const C* base = tile + (z * EY + y) * EX + threadIdx.x;
      auto at = [&](int j) { return base[(j / (KY * KX) * EY + j / KX % KY) * EX + j % KX]; };
      C m;
      if (nan) {
        C v[N];
        for (int j = 0; j < N; ++j) v[j] = at(j);
        m = rank_value_scipy(v, N, rank);
      } else {
        m = select_rank<N, C>(at, rank);
      }
      out[tile_out_offset(g, t0, z, y)] = cast_to<TI>(m);
    }
  });
}

template <class TI, class S, int KZ, int KY, int KX>
void launch_rank_box(const View& in, const View& out, const Tiling& g, int64_t rank, Mode mode, double cval,
                     cudaStream_t s, const char* op) {
  const size_t bytes = size_t(g.elems()) * sizeof(compute_t<TI>);
  rank_box_kernel<TI, S, KZ, KY, KX><<<tile_blocks(g), dim3(kTileX, kTileY), bytes, s>>>(
      in.ptr<TI>(), out.ptr<TI>(), g, int(rank), mode, compute_t<TI>(cval));
  cuda::check_launch(op);
}

// The taps are the full box of their bounding box, in C order (the order rank_value's NaN path sees).
bool full_box(const Taps& t, const Tiling& g) {
  if (t.count != int64_t(g.box[0]) * g.box[1] * g.box[2]) return false;
  const int nd = t.geom.ndim, pad = 3 - nd;
  for (int64_t k = 0; k < t.count; ++k) {
    const int64_t c[3] = {k / (g.box[1] * g.box[2]), k / g.box[2] % g.box[1], k % g.box[2]};
    for (int d = 0; d < nd; ++d)
      if (t.offsets[size_t(k * nd + d)] != g.lo[d + pad] + c[d + pad]) return false;
  }
  return true;
}

// Launches the tiled path where it applies (a 3x3, 5x5 or 3x3x3 box, output of the input's dtype).
template <class TI>
bool rank_box(const View& in, const View& out, const Taps& t, int64_t rank, Mode mode, double cval,
              cudaStream_t s, const char* op) {
  if (out.dtype != in.dtype) return false;
  Tiling g{};
  auto is_box = [&](int kz, int ky, int kx) {
    return g.box[0] == kz && g.box[1] == ky && g.box[2] == kx && full_box(t, g);
  };
  if (make_tiling<FlatTile>(t, out, g)) {
    if (is_box(1, 3, 3)) launch_rank_box<TI, FlatTile, 1, 3, 3>(in, out, g, rank, mode, cval, s, op);
    else if (is_box(1, 5, 5)) launch_rank_box<TI, FlatTile, 1, 5, 5>(in, out, g, rank, mode, cval, s, op);
    else if (make_tiling<VolumeTile>(t, out, g) && is_box(3, 3, 3))
      launch_rank_box<TI, VolumeTile, 3, 3, 3>(in, out, g, rank, mode, cval, s, op);
    else return false;
    return true;
  }
  return false;
}

}  // namespace

void rank_filter_cuda(const View& in, const View& out, const Taps& t, int64_t rank, Mode mode, double cval,
                      StreamHandle stream) {
  const char* op = "rank_filter";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int64_t total = out.size();
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using C = compute_t<TI>;
    const double cv = double(cast_to<TI>(cval));  // scipy reads cval as the input's type
    if (rank_box<TI>(in, out, t, rank, mode, cv, s, op)) return;
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
                                                    rank, mode, C(cv), total, work.get<C>());
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
