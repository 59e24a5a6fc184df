// The plateau extrema entries: validate once, route to an engine.
#include "morphology/extrema.hpp"

#include <string>

namespace ndimg::morphology {
namespace {

void require_plateaus(const View& labels, const View& flags, const View& other, const char* op) {
  require_same_shape(labels, other, op);
  require_same_device(labels, other, op);
  require_same_device(labels, flags, op);
  if ((labels.dtype != DType::I32 && labels.dtype != DType::I64) || !labels.c_contiguous() || !other.c_contiguous())
    throw TypeError(std::string(op) + ": C-contiguous arrays and int32 or int64 labels are expected");
  if (flags.dtype != DType::U8 || flags.ndim != 1 || !flags.c_contiguous())
    throw TypeError(std::string(op) + ": flags must be a contiguous 1-D uint8 array");
  if (labels.ndim < 1) throw ValueError(std::string(op) + ": 0-d input");
}

}  // namespace

void plateau_flags(const View& image, const View& labels, std::span<const int64_t> offsets, const View& flags,
                   StreamHandle stream) {
  const char* op = "local_maxima";
  require_plateaus(labels, flags, image, op);
  // a step of at most one element per axis stays inside the array from any element off its border
  int64_t reach = 0;
  for (int d = 0; d < image.ndim; ++d) reach += image.strides[d];
  for (int64_t o : offsets)
    if (o > reach || o < -reach) throw ValueError("local_maxima: a neighbour offset reaches beyond one step per axis");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, plateau_flags_cpu(image, labels, offsets, flags),
              plateau_flags_cuda(image, labels, offsets, flags, stream));
}

void plateau_top(const View& labels, const View& flags, const View& out, StreamHandle stream) {
  const char* op = "local_maxima";
  require_plateaus(labels, flags, out, op);
  if (out.dtype != DType::Bool) throw TypeError("local_maxima: out must be bool");
  if (out.size() == 0) return;
  NDIMG_ROUTE(out, op, plateau_top_cpu(labels, flags, out), plateau_top_cuda(labels, flags, out, stream));
}

}  // namespace ndimg::morphology
