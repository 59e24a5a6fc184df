// The scan's entry: validate once, describe the lines, route to the engine.
#include <string>

#include "scan/cumsum.hpp"

namespace ndimg::scan {
namespace {

// The axes [a, b) of v as one axis: its length and stride; false when they do not step over each other
// contiguously (axes of length 1 are skipped).
bool merge_axes(const View& v, int a, int b, int64_t& count, int64_t& stride) {
  count = 1;
  stride = 0;
  for (int d = b - 1; d >= a; --d) {
    if (v.shape[d] == 1) continue;
    if (count == 1) stride = v.strides[d];
    else if (v.strides[d] != stride * count) return false;
    count *= v.shape[d];
  }
  return true;
}

}  // namespace

void cumsum(const View& in, const View& out, int axis, bool half, StreamHandle stream) {
  const char* op = "cumsum";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype == DType::Bool) throw TypeError("cumsum: bool output is not supported");
  if (in.ndim == 0) throw ValueError("cumsum: an array of at least one dimension expected");
  axis = normalize_axis(axis, in.ndim, op);
  if (in.data == out.data && (in.dtype != out.dtype || in.strides != out.strides))
    throw ValueError("cumsum: in place, input and output must be the same view");
  if (half && out.dtype != DType::F32) throw TypeError("cumsum: float16 sums are held in a float32 output");
  if (in.size() == 0) return;
  Lines l;
  l.half = half;
  l.n = in.shape[axis];
  l.in_s[1] = in.strides[axis];
  l.out_s[1] = out.strides[axis];
  int64_t outer, inner;
  const bool merged = merge_axes(in, 0, axis, l.outer, l.in_s[0]) && merge_axes(in, axis + 1, in.ndim, l.inner, l.in_s[2]) &&
                      merge_axes(out, 0, axis, outer, l.out_s[0]) && merge_axes(out, axis + 1, out.ndim, inner, l.out_s[2]);
  if (!merged)
    throw ValueError(std::string(op) + ": the axes before and after `axis` must each merge into one (reshape first)");
  NDIMG_ROUTE(in, op, cumsum_cpu(in, out, l), cumsum_cuda(in, out, l, stream));
}

}  // namespace ndimg::scan
