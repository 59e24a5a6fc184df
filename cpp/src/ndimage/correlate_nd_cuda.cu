#include <vector>

#include "ndimage/correlate_nd.hpp"
#include "ndimage/footprint.cuh"

namespace ndimg::ndimage {
namespace {

// Generic schedule: one thread per output element of any strided layout and footprint.
template <class TI, class TO, class C>
__global__ void correlate_kernel(const TI* in, TO* out, Geometry g, const int64_t* offsets, const int64_t* linear,
                                 const C* w, int64_t count, Mode mode, C cval, int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[kMaxDim];
    const int64_t o = unravel(g, idx, c);
    out[o] = cast_to<TO>(correlate_taps<C>(g, c, in, offsets, linear, w, count, mode, cval));
  }
}

// Tiled schedule (footprint.cuh): the tap table (weight, offset in the tile) is copied to shared memory
// once per block; each thread sums its outputs over the taps in correlate_taps' order with its add_mul,
// so both schedules and the CPU engine round alike.
template <class TI, class TO, class C, class S>
__global__ void __launch_bounds__(kTileThreads) correlate_tile_kernel(const TI* in, TO* out, Tiling g, const C* w,
                                                                      const int* toff, int count, Mode mode, C cval) {
  extern __shared__ __align__(16) unsigned char smem[];
  C* tile = reinterpret_cast<C*>(smem);
  C* sw = tile + g.elems();
  int* so = reinterpret_cast<int*>(sw + count);
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < count; k += kTileThreads) {
    sw[k] = w[k];
    so[k] = toff[k];
  }  // visible after for_each_tile's first barrier
  constexpr int P = S::PZ * S::PY;
  for_each_tile<S>(tile, in, g, mode, cval, [&](const int64_t* t0, bool) {
    C acc[P];
    int base[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      acc[p] = 0;
      base[p] = tile_base<S>(g, p);
    }
    for (int k = 0; k < count; ++k) {
      const C wk = sw[k];
      const int ok = so[k];
#pragma unroll
      for (int p = 0; p < P; ++p) acc[p] = add_mul(acc[p], wk, tile[base[p] + ok]);
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      int z, y;
      if (tile_output<S>(g, t0, p, z, y)) out[tile_out_offset(g, t0, z, y)] = cast_to<TO>(acc[p]);
    }
  });
}

// Launches the tiled schedule with tile shape S where the tile and tap table fit the shared-memory budget.
template <class S, class TI, class TO, class C>
bool correlate_tiled(const View& in, const View& o, const Taps& t, const std::vector<C>& wc, Mode mode, C cval,
                     cudaStream_t s, const char* op) {
  Tiling g;
  if (!make_tiling<S>(t, o, g)) return false;
  const size_t bytes = size_t(g.elems()) * sizeof(C) + size_t(t.count) * (sizeof(C) + sizeof(int));
  if (tile_launch_bytes(bytes) > kTileBytes) return false;
  const std::vector<int> toff = tile_tap_offsets(t, g);
  cuda::Scratch table(wc.size() * sizeof(C) + toff.size() * sizeof(int), s, op);
  C* dw = table.get<C>();
  int* doff = reinterpret_cast<int*>(dw + wc.size());
  // pageable sources: each copy is staged before cudaMemcpyAsync returns
  cuda::check(cudaMemcpyAsync(dw, wc.data(), wc.size() * sizeof(C), cudaMemcpyHostToDevice, s), op);
  cuda::check(cudaMemcpyAsync(doff, toff.data(), toff.size() * sizeof(int), cudaMemcpyHostToDevice, s), op);
  correlate_tile_kernel<TI, TO, C, S><<<tile_blocks(g), dim3(kTileX, kTileY), tile_launch_bytes(bytes), s>>>(
      in.ptr<TI>(), o.ptr<TO>(), g, dw, doff, int(t.count), mode, cval);
  cuda::check_launch(op);
  return true;
}

}  // namespace

void correlate_cuda(const View& in, const View& out, const Taps& t, std::span<const double> w, Mode mode,
                    double cval, StreamHandle stream) {
  const char* op = "correlate";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int64_t total = out.size();
  dispatch_dtype(in.dtype, [&]<class TI>() {
    with_kernel_output<TI>(out, s, op, [&]<class TO>(const View& o) {
      using C = correlate_t<TI, TO>;
      const std::vector<C> wc(w.begin(), w.end());
      // footprints of one z plane (2-D ones included) take flat tiles, others volume tiles
      Tiling probe;
      const bool flat = make_tiling<FlatTile>(t, o, probe) && probe.box[0] == 1;
      if (flat ? correlate_tiled<FlatTile, TI, TO>(in, o, t, wc, mode, C(cval), s, op)
               : correlate_tiled<VolumeTile, TI, TO>(in, o, t, wc, mode, C(cval), s, op))
        return;
      const DeviceTaps dt(t, s, op);
      cuda::Scratch dw(wc.size() * sizeof(C), s, op);
      if (!wc.empty())
        cuda::check(cudaMemcpyAsync(dw.get<C>(), wc.data(), wc.size() * sizeof(C), cudaMemcpyHostToDevice, s), op);
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = o.strides[d];
      correlate_kernel<TI, TO, C><<<cuda::blocks_for(total, 256), 256, 0, s>>>(
          in.ptr<TI>(), o.ptr<TO>(), g, dt.offsets, dt.linear, dw.get<C>(), t.count, mode, C(cval), total);
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
