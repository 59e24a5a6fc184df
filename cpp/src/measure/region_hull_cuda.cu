// CUDA schedule of the region hulls: one thread per region, its scratch at 4 * (2 * row_offset + index).
#include "core/cuda.cuh"
#include "measure/region_hull.hpp"

namespace ndimg::measure {
namespace {

__global__ void hull_spans_kernel(const int32_t* slots, int64_t cols, const int64_t* boxes, const int64_t* off,
                                  int64_t n, int64_t* scratch, int64_t* spans) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t* q = boxes + 4 * i;
    hull_spans(slots, cols, int32_t(i), q[0], q[2], q[1], q[3], scratch + 4 * (2 * off[i] + i), spans + 2 * off[i]);
  }
}

}  // namespace

void hull_spans_cuda(const View& slots, const View& boxes, const View& row_offsets, const View& spans,
                     StreamHandle stream) {
  const char* op = "measure_hull_spans";
  cuda::DeviceGuard guard(slots.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = boxes.shape[0];
  // the caller's boxes and offsets (from find_objects) fit the image and spans; scratch for all rows
  cuda::Scratch scratch(size_t(4 * (2 * spans.shape[0] + n)) * sizeof(int64_t), s, op);
  hull_spans_kernel<<<cuda::blocks_for(n, 128), 128, 0, s>>>(slots.ptr<int32_t>(), slots.shape[1],
                                                             boxes.ptr<int64_t>(), row_offsets.ptr<int64_t>(), n,
                                                             scratch.get<int64_t>(), spans.ptr<int64_t>());
  cuda::check_launch(op);
}

}  // namespace ndimg::measure
