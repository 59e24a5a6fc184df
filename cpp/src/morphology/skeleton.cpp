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
    throw ValueError("skeletonize: a C-contiguous 3-D uint8 volume is expected");
  if (img.shape[0] < 3 || img.shape[1] < 3 || img.shape[2] < 3) return;
  NDIMG_ROUTE(img, op, thin_lee_cpu(img), thin_lee_cuda(img, stream));
}

}  // namespace ndimg::morphology
