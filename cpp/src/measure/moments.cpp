// The moments per label's entry: validate once, route to the engine.
#include "measure/moments.hpp"

#include <string>

namespace ndimg::measure {

void label_moments(const View& in, const View& slots, const View& origin, const View& center, const View& spacing,
                   int order, const View& out, StreamHandle stream) {
  const char* op = "measure_label_moments";
  const auto fail = [op](const std::string& what) { throw ValueError(std::string(op) + ": " + what); };
  const int nd = slots.ndim;
  if (slots.dtype != DType::I32 || !slots.c_contiguous()) fail("slots must be a C-contiguous int32 array");
  if (in.size() != 0) {
    if (in.ndim != nd) fail("input and slots must have the same shape");
    for (int d = 0; d < nd; ++d)
      if (in.shape[d] != slots.shape[d]) fail("input and slots must have the same shape");
    require_same_device(in, slots, op);
  }
  if (nd < 1 || nd > kMaxMomentDim || order < 0 || order > kMaxMomentOrder) fail("1 to 6 axes, order 0 to 7");
  int64_t terms = 1;
  for (int d = 0; d < nd; ++d) terms *= order + 1;
  if (terms > kMaxMomentTerms) fail("(order + 1)^ndim must be at most 64");
  const int64_t ns = out.ndim == 2 ? out.shape[0] : -1;
  if (out.dtype != DType::F64 || out.ndim != 2 || out.shape[1] != terms || !out.c_contiguous())
    fail("out must be a C-contiguous float64 array (nslots, (order + 1)^ndim)");
  if (origin.dtype != DType::I64 || origin.ndim != 2 || origin.shape[0] != ns || origin.shape[1] != nd ||
      !origin.c_contiguous())
    fail("origin must be a C-contiguous int64 array (nslots, ndim)");
  if (center.dtype != DType::F64 || center.ndim != 2 || center.shape[0] != ns || center.shape[1] != nd ||
      !center.c_contiguous())
    fail("center must be a C-contiguous float64 array (nslots, ndim)");
  if (spacing.dtype != DType::F64 || spacing.size() != nd || !spacing.c_contiguous())
    fail("spacing must be a contiguous float64 array of ndim elements");
  for (const View* v : {&origin, &center, &spacing, &out}) require_same_device(slots, *v, op);
  if (slots.size() == 0 || ns == 0) return;
  NDIMG_ROUTE(slots, op, label_moments_cpu(in, slots, origin, center, spacing, order, out),
              label_moments_cuda(in, slots, origin, center, spacing, order, out, stream));
}

void image_moments(const View& in, std::span<const double> center, std::span<const double> spacing, int order,
                   const View& out, StreamHandle stream) {
  const char* op = "measure_image_moments";
  const auto fail = [op](const std::string& what) { throw ValueError(std::string(op) + ": " + what); };
  const int nd = in.ndim;
  if (nd < 1 || nd > kMaxMomentDim || order < 0 || order > kMaxMomentOrder) fail("1 to 6 axes, order 0 to 7");
  int64_t terms = 1;
  for (int d = 0; d < nd; ++d) terms *= order + 1;
  if (terms > kMaxMomentTerms) fail("(order + 1)^ndim must be at most 64");
  if (int64_t(center.size()) != nd || int64_t(spacing.size()) != nd) fail("one center and spacing per axis");
  if (out.dtype != DType::F64 || out.size() != terms || !out.c_contiguous())
    fail("out must be a C-contiguous float64 array of (order + 1)^ndim elements");
  require_same_device(in, out, op);
  NDIMG_ROUTE(in, op, image_moments_cpu(in, center.data(), spacing.data(), order, out.ptr<double>()),
              image_moments_cuda(in, center.data(), spacing.data(), order, out.ptr<double>(), stream));
}

}  // namespace ndimg::measure
