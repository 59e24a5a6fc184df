// The window code histograms' entries: validate once, route to the engine.
#include "measure/window_codes.hpp"

namespace ndimg::measure {

void window_codes(const View& in, const View& hist, StreamHandle stream) {
  const char* op = "measure_window_codes";
  if (in.ndim != 2 && in.ndim != 3) throw ValueError("measure_window_codes: 2 or 3 axes");
  if (hist.dtype != DType::I64 || !hist.c_contiguous() || hist.size() != (in.ndim == 2 ? 16 : 256))
    throw ValueError("measure_window_codes: hist must be a C-contiguous int64 array of 2**(2**ndim) bins");
  require_same_device(in, hist, op);
  NDIMG_ROUTE(in, op, window_codes_cpu(in, hist.ptr<int64_t>()), window_codes_cuda(in, hist.ptr<int64_t>(), stream));
}

void perimeter_codes(const View& img, bool eight, const View& hist, StreamHandle stream) {
  const char* op = "measure_perimeter_codes";
  if (img.ndim != 2 || img.dtype != DType::U8) throw ValueError("measure_perimeter_codes: a 2-D uint8 image");
  if (hist.dtype != DType::I64 || !hist.c_contiguous() || hist.size() != 256)
    throw ValueError("measure_perimeter_codes: hist must be a C-contiguous int64 array of 256 bins");
  require_same_device(img, hist, op);
  NDIMG_ROUTE(img, op, perimeter_codes_cpu(img, eight, hist.ptr<int64_t>()),
              perimeter_codes_cuda(img, eight, hist.ptr<int64_t>(), stream));
}

}  // namespace ndimg::measure
