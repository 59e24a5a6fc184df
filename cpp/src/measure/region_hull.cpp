// The region hulls' entry (validate, route) and CPU schedule: regions in parallel, scratch per thread.
#include "measure/region_hull.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "ndimg/parallel.hpp"

namespace ndimg::measure {

void hull_spans(const View& slots, const View& boxes, const View& row_offsets, const View& spans,
                StreamHandle stream) {
  const char* op = "measure_hull_spans";
  const auto fail = [op](const char* what) { throw ValueError(std::string(op) + ": " + what); };
  if (slots.dtype != DType::I32 || slots.ndim != 2 || !slots.c_contiguous())
    fail("slots must be a C-contiguous 2-D int32 array");
  const int64_t n = boxes.ndim == 2 ? boxes.shape[0] : -1;
  if (boxes.dtype != DType::I64 || n < 0 || boxes.shape[1] != 4 || !boxes.c_contiguous())
    fail("boxes must be a C-contiguous int64 array (n, 4)");
  if (row_offsets.dtype != DType::I64 || row_offsets.size() != n || !row_offsets.c_contiguous())
    fail("row_offsets must be a contiguous int64 array of n elements");
  if (spans.dtype != DType::I64 || spans.ndim != 2 || spans.shape[1] != 2 || !spans.c_contiguous())
    fail("spans must be a C-contiguous int64 array (rows, 2)");
  for (const View* v : {&boxes, &row_offsets, &spans}) require_same_device(slots, *v, op);
  if (n == 0) return;
  NDIMG_ROUTE(slots, op, hull_spans_cpu(slots, boxes, row_offsets, spans),
              hull_spans_cuda(slots, boxes, row_offsets, spans, stream));
}

void hull_spans_cpu(const View& slots, const View& boxes, const View& row_offsets, const View& spans) {
  const int64_t n = boxes.shape[0], rows = slots.shape[0], cols = slots.shape[1], total = spans.shape[0];
  const int64_t* b = boxes.ptr<int64_t>();
  const int64_t* off = row_offsets.ptr<int64_t>();
  // boxes inside the image and spans inside the output, checked before any thread reads them
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* q = b + 4 * i;
    if (q[0] < 0 || q[1] < 0 || q[2] > rows || q[3] > cols || q[0] > q[2] || q[1] > q[3] || off[i] < 0 ||
        off[i] + (q[2] - q[0]) > total)
      throw ValueError("measure_hull_spans: a box lies outside the image or its rows outside spans");
  }
  parallel_for(n, 16, [&](int64_t i0, int64_t i1) {
    std::vector<int64_t> scratch;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t* q = b + 4 * i;
      scratch.resize(size_t(4 * (2 * (q[2] - q[0]) + 1)));
      hull_spans(slots.ptr<int32_t>(), cols, int32_t(i), q[0], q[2], q[1], q[3], scratch.data(),
                 spans.ptr<int64_t>() + 2 * off[i]);
    }
  });
}

}  // namespace ndimg::measure
