// stencils' CUDA schedules: the tiled footprint schedule (footprint.cuh) with the stencils' tap tables in
// shared memory, and one thread per output for what it does not cover (1-D, over 3-D, tiles past the budget).
#include <vector>

#include "ndimage/footprint.cuh"
#include "ndimage/stencils.hpp"

namespace ndimg::ndimage {
namespace {

template <class T>
__global__ void stencils_kernel(const T* in, T* out, Geometry g, const int64_t* offsets, const int64_t* linear,
                                const double* w, const int64_t* counts, StencilCombine sc, Mode mode, double cval,
                                int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[kMaxDim];
    const int64_t o = unravel(g, idx, c);
    out[o] = stencils_value<T>(g, c, in, offsets, linear, w, counts, sc, mode, cval);
  }
}

// The tile holds the input as double (cval exactly as given); each thread sums its outputs over each
// stencil's taps in their order with correlate_taps' add_mul and combines them as stencils_value does.
template <class T, class S>
__global__ void __launch_bounds__(kTileThreads) stencils_tile_kernel(const T* in, T* out, Tiling g, const double* w,
                                                                     const int* toff, const int* counts, int taps,
                                                                     StencilCombine sc, Mode mode, double cval) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* tile = reinterpret_cast<double*>(smem);
  double* sw = tile + g.elems();
  int* so = reinterpret_cast<int*>(sw + taps);
  int* sn = so + taps;
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < taps; k += kTileThreads) {
    sw[k] = w[k];
    so[k] = toff[k];
  }
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < sc.count; k += kTileThreads) sn[k] = counts[k];
  // visible after for_each_tile's first barrier
  constexpr int P = S::PZ * S::PY;
  for_each_tile<S>(tile, in, g, mode, cval, [&](const int64_t* t0, bool) {
    int base[P];
    T r[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      base[p] = tile_base<S>(g, p);
      r[p] = 0;
    }
    for (int k = 0, first = 0; k < int(sc.count); first += sn[k++]) {
      double acc[P];
#pragma unroll
      for (int p = 0; p < P; ++p) acc[p] = 0;
      for (int j = first; j < first + sn[k]; ++j) {
        const double wj = sw[j];
        const int oj = so[j];
#pragma unroll
        for (int p = 0; p < P; ++p) acc[p] = add_mul(acc[p], wj, tile[base[p] + oj]);
      }
#pragma unroll
      for (int p = 0; p < P; ++p) r[p] = stencil_add(r[p], k, sc, acc[p]);
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      int z, y;
      if (tile_output<S>(g, t0, p, z, y)) out[tile_out_offset(g, t0, z, y)] = stencil_finish(r[p], sc);
    }
  });
}

// Launches the tiled schedule with tile shape S where the tile and the tap tables fit the shared-memory budget.
template <class S, class T>
bool stencils_tiled(const View& in, const View& out, const Taps& t, std::span<const double> w,
                    std::span<const int64_t> counts, const StencilCombine& sc, Mode mode, double cval, cudaStream_t s,
                    const char* op) {
  Tiling g;
  if (!make_tiling<S>(t, out, g)) return false;
  const size_t bytes = size_t(g.elems()) * sizeof(double) + size_t(t.count) * (sizeof(double) + sizeof(int)) +
                       counts.size() * sizeof(int);
  if (tile_launch_bytes(bytes) > kTileBytes) return false;
  std::vector<int> ints = tile_tap_offsets(t, g);  // tile offsets, then counts
  for (int64_t c : counts) ints.push_back(int(c));
  cuda::Scratch table(w.size() * sizeof(double) + ints.size() * sizeof(int), s, op);
  double* dw = table.get<double>();
  int* dints = reinterpret_cast<int*>(dw + w.size());
  // pageable sources: each copy is staged before cudaMemcpyAsync returns
  if (!w.empty()) cuda::check(cudaMemcpyAsync(dw, w.data(), w.size() * sizeof(double), cudaMemcpyHostToDevice, s), op);
  cuda::check(cudaMemcpyAsync(dints, ints.data(), ints.size() * sizeof(int), cudaMemcpyHostToDevice, s), op);
  stencils_tile_kernel<T, S><<<tile_blocks(g), dim3(kTileX, kTileY), tile_launch_bytes(bytes), s>>>(
      in.ptr<T>(), out.ptr<T>(), g, dw, dints, dints + t.count, int(t.count), sc, mode, cval);
  cuda::check_launch(op);
  return true;
}

}  // namespace

void stencils_cuda(const View& in, const View& out, const Taps& t, std::span<const double> w,
                   std::span<const int64_t> counts, const StencilCombine& sc, Mode mode, double cval,
                   StreamHandle stream) {
  const char* op = "stencils";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  auto run = [&]<class T>() {
    // footprints of one z plane (2-D ones included) take flat tiles, others volume tiles
    Tiling probe;
    const bool flat = make_tiling<FlatTile>(t, out, probe) && probe.box[0] == 1;
    if (flat ? stencils_tiled<FlatTile, T>(in, out, t, w, counts, sc, mode, cval, s, op)
             : stencils_tiled<VolumeTile, T>(in, out, t, w, counts, sc, mode, cval, s, op))
      return;
    const DeviceTaps dt(t, s, op);
    cuda::Scratch table(w.size() * sizeof(double) + counts.size() * sizeof(int64_t), s, op);
    double* dw = table.get<double>();
    int64_t* dcounts = reinterpret_cast<int64_t*>(dw + w.size());
    if (!w.empty())
      cuda::check(cudaMemcpyAsync(dw, w.data(), w.size() * sizeof(double), cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaMemcpyAsync(dcounts, counts.data(), counts.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s),
                op);
    const int64_t total = out.size();
    stencils_kernel<T><<<cuda::blocks_for(total, 256), 256, 0, s>>>(in.ptr<T>(), out.ptr<T>(), t.geom, dt.offsets,
                                                                   dt.linear, dw, dcounts, sc, mode, cval, total);
    cuda::check_launch(op);
  };
  if (in.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace ndimg::ndimage
