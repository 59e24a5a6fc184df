// Felzenszwalb on CUDA: the edge weights a thread per edge (felzenszwalb.hpp's math, built without FMA
// contraction, so they equal the CPU engine's and NumPy's bit for bit), then a stable radix sort of the edges
// by weight (CUB; the edge index breaks ties). The merge runs on the host (felzenszwalb_cpu.cpp).
#include <cub/device/device_radix_sort.cuh>

#include "core/cuda.cuh"
#include "segmentation/felzenszwalb.hpp"

namespace ndimg::segmentation {
namespace {

constexpr unsigned kThreads = 256;

template <class I>
__global__ void costs_kernel(const double* im, int64_t C, fz_math::Grid<I> grid, int64_t E, double* costs) {
  NDIMG_GRID_STRIDE(e, E) {
    I later, earlier;
    grid.ends(I(e), later, earlier);
    costs[e] = fz_math::weight(im, C, later, earlier);
  }
}

__global__ void iota_kernel(int64_t* out, int64_t n) {
  NDIMG_GRID_STRIDE(i, n) out[i] = i;
}

template <class I>
void costs_for(const View& image, const View& costs, int64_t E, cudaStream_t s, const char* op) {
  const auto grid = fz_math::Grid<I>::of(I(image.shape[0]), I(image.shape[1]));
  costs_kernel<I><<<cuda::blocks_for(E, kThreads), kThreads, 0, s>>>(image.ptr<double>(), image.shape[2], grid, E,
                                                                       costs.ptr<double>());
  cuda::check_launch(op);
}

}  // namespace

void felzenszwalb_costs_cuda(const View& image, const View& costs, StreamHandle stream) {
  const char* op = "felzenszwalb";
  cuda::DeviceGuard guard(image.device_id, op);
  const auto s = static_cast<cudaStream_t>(stream);
  const int64_t E = costs.shape[0];
  // 32-bit index arithmetic (the divisions) where every edge index fits
  if (E < (int64_t(1) << 31)) costs_for<int32_t>(image, costs, E, s, op);
  else costs_for<int64_t>(image, costs, E, s, op);
}

void felzenszwalb_sort_cuda(const View& costs, const View& sorted, const View& order, StreamHandle stream) {
  const char* op = "felzenszwalb";
  cuda::DeviceGuard guard(costs.device_id, op);
  const auto s = static_cast<cudaStream_t>(stream);
  const int64_t E = costs.shape[0];
  cuda::Scratch index(size_t(E) * sizeof(int64_t), s, op);
  iota_kernel<<<cuda::blocks_for(E, kThreads), kThreads, 0, s>>>(index.get<int64_t>(), E);
  cuda::check_launch(op);
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, costs.ptr<double>(), sorted.ptr<double>(),
                                              index.get<int64_t>(), order.ptr<int64_t>(), E, 0, 64, s),
              op);
  cuda::Scratch temp(temp_bytes, s, op);
  cuda::check(cub::DeviceRadixSort::SortPairs(temp.get<void>(), temp_bytes, costs.ptr<double>(), sorted.ptr<double>(),
                                              index.get<int64_t>(), order.ptr<int64_t>(), E, 0, 64, s),
              op);
}

}  // namespace ndimg::segmentation
