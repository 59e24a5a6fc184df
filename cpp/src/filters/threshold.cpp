// The local thresholds' entry: validate once, route to the engine.
#include "filters/threshold.hpp"

namespace ndimg::threshold {

void local_threshold(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind, double k,
                     double r, StreamHandle stream) {
  const char* op = "local_threshold";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (!is_float(out.dtype)) throw TypeError("local_threshold: output must be float32 or float64");
  if (int64_t(window.size()) != in.ndim) throw ValueError("local_threshold: one window size per axis expected");
  for (int64_t w : window)
    if (w < 1 || w % 2 == 0) throw ValueError("local_threshold: window sizes must be odd and positive");
  if (kind != LocalKind::Niblack && kind != LocalKind::Sauvola) throw ValueError("local_threshold: unknown kind");
  if (in.size() == 0) return;
  NDIMG_ROUTE(in, op, local_threshold_cpu(in, out, window, kind, k, r),
              local_threshold_cuda(in, out, window, kind, k, r, stream));
}

}  // namespace ndimg::threshold
