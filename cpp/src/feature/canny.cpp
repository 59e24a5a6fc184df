// Canny's non-maximum suppression entry: validate once, route to the engine.
#include <string>

#include "feature/canny.hpp"

namespace ndimg::feature {

void canny_suppress(const View& gi, const View& gj, const View& mask, double low, double high, const View& out,
                    StreamHandle stream) {
  const char* op = "canny_suppress";
  require_same_shape(gi, gj, op);
  require_same_shape(gi, mask, op);
  require_same_shape(gi, out, op);
  require_same_device(gi, gj, op);
  require_same_device(gi, mask, op);
  require_same_device(gi, out, op);
  if (gi.ndim != 2) throw ValueError("canny_suppress: 2-D gradients expected");
  if (!is_float(gi.dtype) || gj.dtype != gi.dtype) throw TypeError("canny_suppress: float32 or float64 gradients of one dtype expected");
  if ((mask.dtype != DType::U8 && mask.dtype != DType::Bool) || out.dtype != DType::U8)
    throw TypeError("canny_suppress: a uint8/bool mask and a uint8 output expected");
  if (!gi.c_contiguous() || !gj.c_contiguous() || !mask.c_contiguous() || !out.c_contiguous())
    throw ValueError("canny_suppress: C-contiguous arrays expected");
  if (gi.size() == 0) return;
  NDIMG_ROUTE(gi, op, canny_suppress_cpu(gi, gj, mask, low, high, out),
              canny_suppress_cuda(gi, gj, mask, low, high, out, stream));
}

}  // namespace ndimg::feature
