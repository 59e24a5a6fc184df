// The skeleton entries: validate once, route to an engine.
#include "morphology/skeleton.hpp"

#include "core/engine.hpp"

namespace ndimg::morphology {

void thin2d(const View& in, const View& out, Thinning m, int64_t max_iter, StreamHandle stream) {
  const char* op = "thin";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (in.ndim != 2) throw ValueError("thin: a 2-D image is expected");
  if (out.dtype != DType::Bool) throw TypeError("thin: output must be bool");
  if (m != Thinning::Zhang && m != Thinning::GuoHall) throw ValueError("thin: unknown method");
  if (in.size() == 0) return;
  NDIMG_ROUTE(in, op, thin2d_cpu(in, out, m, max_iter), thin2d_cuda(in, out, m, max_iter, stream));
}

void thin_lee(const View& img, StreamHandle stream) {
  const char* op = "skeletonize";
  if (img.ndim != 3 || img.dtype != DType::U8 || !img.c_contiguous())
    throw ValueError(std::string(op) + ": a C-contiguous 3-D uint8 volume is expected");
  if (img.shape[0] < 3 || img.shape[1] < 3 || img.shape[2] < 3) return;
  NDIMG_ROUTE(img, op, thin_lee_cpu(img), thin_lee_cuda(img, stream));
}

void medial_axis_thin(const View& result, const View& distance, const View& tiebreak, StreamHandle stream) {
  const char* op = "medial_axis";
  require_same_device(result, distance, op);
  require_same_device(result, tiebreak, op);
  auto contiguous = [](const View& v) { return v.size() == 0 || v.c_contiguous(); };  // (empty: any strides)
  if (result.ndim != 2 || result.dtype != DType::U8 || !contiguous(result) || distance.dtype != DType::F64 ||
      !contiguous(distance) || distance.size() != result.size() || tiebreak.dtype != DType::I64 ||
      tiebreak.ndim != 1 || !contiguous(tiebreak))
    throw ValueError("medial_axis: C-contiguous uint8 result, float64 distance and int64 tiebreak expected");
  if (result.size() == 0) {
    if (tiebreak.shape[0] != 0) throw ValueError("medial_axis: one tiebreak per foreground pixel");
    return;
  }
  NDIMG_ROUTE(result, op, medial_axis_thin_cpu(result, distance, tiebreak),
              medial_axis_thin_cuda(result, distance, tiebreak, stream));
}

}  // namespace ndimg::morphology
