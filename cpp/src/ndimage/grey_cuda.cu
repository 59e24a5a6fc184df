#include <vector>

#include "ndimage/footprint.cuh"
#include "ndimage/grey.hpp"

namespace ndimg::ndimage {
namespace {

// Generic schedule: one thread per output element of any strided layout and footprint (grey_taps).
template <bool Minimum, class TI, class TO, class A>
__global__ void grey_kernel(const TI* in, TO* out, Geometry g, const int64_t* offsets, const int64_t* linear,
                            const double* s, const A* sa, int64_t count, Mode mode, A cval, int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[kMaxDim];
    const int64_t o = unravel(g, idx, c);
    out[o] = cast_to<TO>(grey_taps<Minimum, A>(g, c, in, offsets, linear, s, sa, count, mode, cval));
  }
}

NDIMG_HD constexpr size_t round16(size_t b) { return (b + 15) / 16 * 16; }

// Shared memory of the tiled schedule: the tile (A), the taps' tile offsets (int), the structure cast to A.
struct GreyShared {
  size_t tile, offsets, total;
  template <class A>
  NDIMG_HD static GreyShared of(const Tiling& g, int count) {
    const size_t tile = round16(size_t(g.elems()) * sizeof(A)), offsets = round16(size_t(count) * sizeof(int));
    return {tile, offsets, tile + offsets + size_t(count) * sizeof(A)};
  }
};

// Tiled schedule (footprint.cuh): the tap table is copied to shared memory once per block; each thread folds
// its outputs over the taps in order with grey_first / grey_later / grey_fold, as the CPU engine. Flat: no
// structure (s0 and sa unused).
template <bool Minimum, bool Flat, class S, class TI, class TO, class A>
__global__ void __launch_bounds__(kTileThreads) grey_tile_kernel(const TI* in, TO* out, Tiling g, double s0,
                                                                 const A* sa, const int* toff, int count, Mode mode,
                                                                 A cval) {
  extern __shared__ __align__(16) unsigned char smem[];
  const GreyShared sh = GreyShared::of<A>(g, count);
  A* tile = reinterpret_cast<A*>(smem);
  int* so = reinterpret_cast<int*>(smem + sh.tile);
  A* ssa = reinterpret_cast<A*>(smem + sh.tile + sh.offsets);
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < count; k += kTileThreads) {
    so[k] = toff[k];
    if constexpr (!Flat) ssa[k] = sa[k];
  }  // visible after for_each_tile's first barrier
  const double* s = Flat ? nullptr : &s0;
  const A* sk = Flat ? nullptr : ssa;
  constexpr int P = S::PZ * S::PY;
  for_each_tile<S>(tile, in, g, mode, cval, [&](const int64_t* t0, bool) {
    double acc[P];
    int base[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      base[p] = tile_base<S>(g, p);
      acc[p] = grey_first(tile[base[p] + so[0]], s);
    }
    for (int k = 1; k < count; ++k) {
      const int ok = so[k];
#pragma unroll
      for (int p = 0; p < P; ++p) acc[p] = grey_fold<Minimum>(acc[p], grey_later(tile[base[p] + ok], sk, k));
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      int z, y;
      if (tile_output<S>(g, t0, p, z, y)) out[tile_out_offset(g, t0, z, y)] = cast_to<TO>(acc[p]);
    }
  });
}

// Launches the tiled schedule with tile shape S where the tile and tap table fit the shared-memory budget.
template <class S, class TI, class TO, class A>
bool grey_tiled(const View& in, const View& o, const Taps& t, std::span<const double> s, const std::vector<A>& sa,
                bool minimum, Mode mode, A cval, cudaStream_t st, const char* op) {
  Tiling g;
  if (!make_tiling<S>(t, o, g)) return false;
  const GreyShared sh = GreyShared::of<A>(g, int(t.count));
  if (tile_launch_bytes(sh.total) > kTileBytes) return false;
  const std::vector<int> toff = tile_tap_offsets(t, g);
  cuda::Scratch table(round16(toff.size() * sizeof(int)) + sa.size() * sizeof(A), st, op);
  int* doff = table.get<int>();
  A* dsa = reinterpret_cast<A*>(reinterpret_cast<unsigned char*>(doff) + round16(toff.size() * sizeof(int)));
  // pageable sources: each copy is staged before cudaMemcpyAsync returns
  cuda::check(cudaMemcpyAsync(doff, toff.data(), toff.size() * sizeof(int), cudaMemcpyHostToDevice, st), op);
  if (!sa.empty())
    cuda::check(cudaMemcpyAsync(dsa, sa.data(), sa.size() * sizeof(A), cudaMemcpyHostToDevice, st), op);
  const double s0 = s.empty() ? 0.0 : s[0];
  auto launch = [&](auto kernel) {
    kernel<<<tile_blocks(g), dim3(kTileX, kTileY), tile_launch_bytes(sh.total), st>>>(
        in.ptr<TI>(), o.ptr<TO>(), g, s0, dsa, doff, int(t.count), mode, cval);
  };
  const bool flat = s.empty();
  if (minimum) {
    if (flat) launch(grey_tile_kernel<true, true, S, TI, TO, A>);
    else launch(grey_tile_kernel<true, false, S, TI, TO, A>);
  } else {
    if (flat) launch(grey_tile_kernel<false, true, S, TI, TO, A>);
    else launch(grey_tile_kernel<false, false, S, TI, TO, A>);
  }
  cuda::check_launch(op);
  return true;
}

}  // namespace

void grey_filter_cuda(const View& in, const View& out, const Taps& t, std::span<const double> s, bool minimum,
                      Mode mode, double cval, StreamHandle stream) {
  const char* op = minimum ? "grey_erosion" : "grey_dilation";
  auto st = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int64_t total = out.size();
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using A = grey_t<TI>;
    std::vector<A> sa;
    for (double x : s) sa.push_back(cast_to<A>(x));
    const A cv = cast_to<A>(cval);
    with_kernel_output<TI>(out, st, op, [&]<class TO>(const View& o) {
      // footprints of one z plane (2-D ones included) take flat tiles, others volume tiles
      Tiling probe;
      const bool plane = make_tiling<FlatTile>(t, o, probe) && probe.box[0] == 1;
      if (plane ? grey_tiled<FlatTile, TI, TO>(in, o, t, s, sa, minimum, mode, cv, st, op)
                : grey_tiled<VolumeTile, TI, TO>(in, o, t, s, sa, minimum, mode, cv, st, op))
        return;
      const DeviceTaps dt(t, st, op);
      // the structure in double, then cast to A (doubles first keeps A's entries aligned); none when flat
      cuda::Scratch table(s.size() * (sizeof(double) + sizeof(A)), st, op);
      double* ds = s.empty() ? nullptr : table.get<double>();
      A* dsa = s.empty() ? nullptr : reinterpret_cast<A*>(ds + s.size());
      if (!s.empty()) {
        // pageable sources: each copy is staged before cudaMemcpyAsync returns
        cuda::check(cudaMemcpyAsync(ds, s.data(), s.size() * sizeof(double), cudaMemcpyHostToDevice, st), op);
        cuda::check(cudaMemcpyAsync(dsa, sa.data(), sa.size() * sizeof(A), cudaMemcpyHostToDevice, st), op);
      }
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = o.strides[d];
      const unsigned blocks = cuda::blocks_for(total, 256);
      if (minimum)
        grey_kernel<true, TI, TO, A><<<blocks, 256, 0, st>>>(in.ptr<TI>(), o.ptr<TO>(), g, dt.offsets, dt.linear, ds,
                                                           dsa, t.count, mode, cv, total);
      else
        grey_kernel<false, TI, TO, A><<<blocks, 256, 0, st>>>(in.ptr<TI>(), o.ptr<TO>(), g, dt.offsets, dt.linear,
                                                            ds, dsa, t.count, mode, cv, total);
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
