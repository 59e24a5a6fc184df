// CLAHE's CUDA schedules: one block per tile counts its histogram in shared memory (global atomics for more
// bins than fit), one thread per tile clips it and writes its map; one thread per element interpolates.
#include <algorithm>

#include "core/cuda.cuh"
#include "histogram/clahe.hpp"

namespace ndimg::histogram {
namespace {

using namespace clahe_math;

constexpr unsigned kThreads = 256;
constexpr int64_t kSharedBins = 12288;  // 48 KiB of 32-bit counters

// blockIdx.x: the tile; blockIdx.y of gridDim.y: the part of the tile's elements this block counts (a few
// tiles would leave most of the GPU idle), added to the tile's zeroed histogram.
template <class T>
__global__ void tile_histograms(const T* src, const int32_t* bins, Geometry g, unsigned long long* hist) {
  extern __shared__ unsigned int local[];
  const int64_t t = blockIdx.x;
  const int64_t first = g.tile_size * blockIdx.y / gridDim.y, end = g.tile_size * (blockIdx.y + 1) / gridDim.y;
  const bool shared = g.nbins <= kSharedBins;
  unsigned long long* h = hist + t * g.nbins;
  if (shared) {
    for (int64_t b = threadIdx.x; b < g.nbins; b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  int64_t tile[kMaxClaheDim];
  int64_t r = t;
  for (int d = g.ndim - 1; d >= 0; r /= g.tiles[d], --d) tile[d] = r % g.tiles[d];
  for (int64_t i = first + threadIdx.x; i < end; i += blockDim.x) {
    int64_t offset = 0, stride = 1, q = i;
    for (int d = g.ndim - 1; d >= 0; --d) {
      offset += reflect(tile[d] * g.kernel[d] + q % g.kernel[d], g.shape[d]) * stride;
      q /= g.kernel[d];
      stride *= g.shape[d];
    }
    const int64_t b = bin_of(bins, src[offset], g.nbins);
    if (shared) atomicAdd(&local[b], 1u);
    else atomicAdd(&h[b], 1ull);
  }
  if (shared) {
    __syncthreads();
    for (int64_t b = threadIdx.x; b < g.nbins; b += blockDim.x)
      if (local[b]) atomicAdd(&h[b], (unsigned long long)local[b]);
  }
}

__global__ void tile_maps(Geometry g, unsigned long long* hist, uint16_t* maps) {
  const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= g.ntiles) return;
  int64_t* h = reinterpret_cast<int64_t*>(hist + t * g.nbins);
  clip_histogram(h, g.nbins, g.clip_limit);
  map_histogram(h, g.nbins, g.tile_size, maps + t * g.nbins);
}

template <class T, int ND>
__global__ void interpolate_elements(const T* src, const int32_t* bins, Geometry g, const uint16_t* maps,
                                     uint16_t* dst, int64_t n) {
  NDIMG_GRID_STRIDE(i, n) {
    AxisPos pos[kMaxClaheDim];
    int64_t tile_stride[kMaxClaheDim];
    int64_t q = i, s = 1;
    for (int d = g.ndim - 1; d >= 0; --d) {
      pos[d] = axis_pos(g.origin[d] + q % g.shape[d], g.kernel[d], g.tiles[d]);
      q /= g.shape[d];
      tile_stride[d] = s;
      s *= g.tiles[d];
    }
    const int64_t bin = bin_of(bins, src[i], g.nbins);
    dst[i] = static_cast<uint16_t>(interpolate<ND>(g.ndim, pos, tile_stride, maps, g.nbins, bin));
  }
}

template <class T>
void maps_run(const View& in, const View& bins, const Geometry& g, const View& maps, cudaStream_t s, const char* op) {
  cuda::Scratch hist(size_t(g.ntiles * g.nbins) * sizeof(unsigned long long), s, op);
  cuda::check(cudaMemsetAsync(hist.get<void>(), 0, size_t(g.ntiles * g.nbins) * sizeof(unsigned long long), s), op);
  const size_t shmem = g.nbins <= kSharedBins ? size_t(g.nbins) * sizeof(unsigned int) : 0;
  // about 2048 blocks in all, each counting at least 4096 elements of its tile
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>({(2048 + g.ntiles - 1) / g.ntiles,
                                                                 g.tile_size / 4096, 65535}));
  tile_histograms<T><<<dim3(unsigned(g.ntiles), unsigned(parts)), kThreads, shmem, s>>>(
      in.ptr<T>(), bins.ptr<int32_t>(), g, hist.get<unsigned long long>());
  cuda::check_launch(op);
  tile_maps<<<cuda::blocks_for(g.ntiles, 64), 64, 0, s>>>(g, hist.get<unsigned long long>(), maps.ptr<uint16_t>());
  cuda::check_launch(op);
}

template <class T>
void apply_run(const View& in, const View& bins, const Geometry& g, const View& maps, const View& out, cudaStream_t s,
               const char* op) {
  const int64_t n = in.size();
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n, kThreads), 65535u * 4);
  auto launch = [&](auto kernel) {
    kernel<<<blocks, kThreads, 0, s>>>(in.ptr<T>(), bins.ptr<int32_t>(), g, maps.ptr<uint16_t>(),
                                       out.ptr<uint16_t>(), n);
  };
  if (g.ndim == 2) launch(interpolate_elements<T, 2>);
  else if (g.ndim == 3) launch(interpolate_elements<T, 3>);
  else launch(interpolate_elements<T, 0>);
  cuda::check_launch(op);
}

}  // namespace

void clahe_maps_cuda(const View& in, const View& bins, const Geometry& g, const View& maps, StreamHandle stream) {
  const char* op = "clahe_maps";
  if (g.ntiles > int64_t(INT32_MAX)) throw ValueError("clahe_maps: too many tiles for the CUDA engine");
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (in.dtype == DType::U8) maps_run<uint8_t>(in, bins, g, maps, s, op);
  else maps_run<uint16_t>(in, bins, g, maps, s, op);
}

void clahe_apply_cuda(const View& in, const View& bins, const Geometry& g, const View& maps, const View& out,
                      StreamHandle stream) {
  const char* op = "clahe_apply";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (in.dtype == DType::U8) apply_run<uint8_t>(in, bins, g, maps, out, s, op);
  else apply_run<uint16_t>(in, bins, g, maps, out, s, op);
}

}  // namespace ndimg::histogram
