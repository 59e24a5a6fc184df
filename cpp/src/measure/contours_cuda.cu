// find_contours' CUDA schedule: a thread per cell counts its segments, a scan over the cells gives each cell
// its place in C order, a second pass writes them there; only the segments cross to the host, where
// join_segments assembles the contours.
#include <cub/device/device_scan.cuh>

#include "core/cuda.cuh"
#include "measure/contours.hpp"

namespace ndimg::measure {
namespace {

constexpr unsigned kThreads = 256;

// The segments of cell i (row-major over the (rows - 1) x (cols - 1) cells); none where the mask drops it.
__device__ __forceinline__ int segments_of(const double* image, int64_t cols, const uint8_t* mask, double level,
                                           bool high, int64_t i, Segment* seg) {
  const int64_t r0 = i / (cols - 1), c0 = i % (cols - 1), p = r0 * cols + c0;
  if (mask && !(mask[p] && mask[p + 1] && mask[p + cols] && mask[p + cols + 1])) return 0;
  return cell_segments(image[p], image[p + 1], image[p + cols], image[p + cols + 1], r0, c0, level, high, seg);
}

__global__ void __launch_bounds__(kThreads) count_kernel(const double* image, int64_t cols, const uint8_t* mask,
                                                         double level, bool high, int64_t cells, int64_t* count) {
  NDIMG_GRID_STRIDE(i, cells) {
    Segment seg[2];
    count[i] = segments_of(image, cols, mask, level, high, i, seg);
  }
}

// end[i]: the inclusive scan of the counts, so cell i's segments go to [end[i] - n, end[i]).
__global__ void __launch_bounds__(kThreads) write_kernel(const double* image, int64_t cols, const uint8_t* mask,
                                                         double level, bool high, int64_t cells, const int64_t* end,
                                                         Segment* out) {
  NDIMG_GRID_STRIDE(i, cells) {
    Segment seg[2];
    const int n = segments_of(image, cols, mask, level, high, i, seg);
    for (int k = 0; k < n; ++k) out[end[i] - n + k] = seg[k];
  }
}

}  // namespace

std::vector<Segment> contour_segments_cuda(const double* image, int64_t rows, int64_t cols, const uint8_t* mask,
                                           double level, bool vertex_connect_high, int device, StreamHandle stream) {
  const char* op = "find_contours";
  std::vector<Segment> host;
  const int64_t cells = (rows - 1) * (cols - 1);
  if (rows < 2 || cols < 2) return host;
  cuda::DeviceGuard guard(device, op);
  auto s = static_cast<cudaStream_t>(stream);
  cuda::Scratch end(cells * sizeof(int64_t), s, op);
  const unsigned blocks = cuda::blocks_for(cells, kThreads);
  count_kernel<<<blocks, kThreads, 0, s>>>(image, cols, mask, level, vertex_connect_high, cells, end.get<int64_t>());
  cuda::check_launch(op);
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, end.get<int64_t>(), end.get<int64_t>(), cells, s), op);
  {
    cuda::Scratch temp(temp_bytes, s, op);
    cuda::check(cub::DeviceScan::InclusiveSum(temp.get<void>(), temp_bytes, end.get<int64_t>(), end.get<int64_t>(),
                                              cells, s), op);
  }
  int64_t total = 0;
  cuda::check(cudaMemcpyAsync(&total, end.get<int64_t>() + cells - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  if (total == 0) return host;
  cuda::Scratch segs(total * sizeof(Segment), s, op);
  write_kernel<<<blocks, kThreads, 0, s>>>(image, cols, mask, level, vertex_connect_high, cells, end.get<int64_t>(),
                                           segs.get<Segment>());
  cuda::check_launch(op);
  host.resize(total);
  cuda::check(cudaMemcpyAsync(host.data(), segs.get<Segment>(), total * sizeof(Segment), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  return host;
}

}  // namespace ndimg::measure
