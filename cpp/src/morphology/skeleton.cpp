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

}  // namespace ndimg::morphology
