// Canny's entries: validate once, route to the engine.
#include <initializer_list>
#include <string>

#include "feature/canny.hpp"

namespace ndimg::feature {
namespace {

void require_planes(std::initializer_list<const View*> views, const char* op) {
  const View& first = **views.begin();
  if (first.ndim != 2) throw ValueError(std::string(op) + ": 2-D arrays expected");
  for (const View* v : views) {
    require_same_shape(first, *v, op);
    require_same_device(first, *v, op);
    if (!v->c_contiguous()) throw ValueError(std::string(op) + ": C-contiguous arrays expected");
  }
}

void require_gradients(const View& gi, const View& gj, const View& mag, const char* op) {
  if (!is_float(gi.dtype) || gj.dtype != gi.dtype || mag.dtype != gi.dtype)
    throw TypeError(std::string(op) + ": float32 or float64 gradients and magnitude of one dtype expected");
}

}  // namespace

void gradient_magnitude(const View& gi, const View& gj, const View& out, StreamHandle stream) {
  const char* op = "gradient_magnitude";
  require_planes({&gi, &gj, &out}, op);
  require_gradients(gi, gj, out, op);
  if (gi.size() == 0) return;
  NDIMG_ROUTE(gi, op, gradient_magnitude_cpu(gi, gj, out), gradient_magnitude_cuda(gi, gj, out, stream));
}

void canny_suppress(const View& gi, const View& gj, const View& mag, const View& mask, double low, double high,
                    const View& out, StreamHandle stream) {
  const char* op = "canny_suppress";
  require_planes({&gi, &gj, &mag, &mask, &out}, op);
  require_gradients(gi, gj, mag, op);
  if ((mask.dtype != DType::U8 && mask.dtype != DType::Bool) || out.dtype != DType::U8)
    throw TypeError("canny_suppress: a uint8/bool mask and a uint8 output expected");
  if (gi.size() == 0) return;
  NDIMG_ROUTE(gi, op, canny_suppress_cpu(gi, gj, mag, mask, low, high, out),
              canny_suppress_cuda(gi, gj, mag, mask, low, high, out, stream));
}

void canny_hysteresis(const View& classes, const View& out) {
  const char* op = "canny_hysteresis";
  require_planes({&classes, &out}, op);
  if (classes.dtype != DType::U8 || out.dtype != DType::Bool)
    throw TypeError("canny_hysteresis: uint8 classes and a bool output expected");
  if (classes.device != Device::CPU) throw ValueError("canny_hysteresis: host arrays expected");
  if (classes.size() == 0) return;
  canny_hysteresis_cpu(classes, out);
}

}  // namespace ndimg::feature
