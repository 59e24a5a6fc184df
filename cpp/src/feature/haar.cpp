// The Haar-like features' entry: validate once, route to the engine.
#include <string>

#include "feature/haar.hpp"

namespace ndimg::feature {

void haar_features(const View& ii, const View& rects, const View& out, StreamHandle stream) {
  const char* op = "haar_features";
  if (ii.ndim != 2) throw ValueError("haar_features: a 2-D integral image expected");
  if (rects.dtype != DType::I64 || rects.ndim != 3 || rects.shape[2] != 4 || rects.shape[1] < 2 ||
      !rects.c_contiguous())
    throw ValueError("haar_features: rects must be a C-contiguous int64 (n_features, n_rects >= 2, 4) array");
  const DType want = is_float(ii.dtype) ? ii.dtype : DType::I64;
  if (out.dtype != want || out.ndim != 1 || out.shape[0] != rects.shape[0] || (out.shape[0] > 1 && out.strides[0] != 1))
    throw ValueError(std::string("haar_features: out must be a contiguous 1-D ") + dtype_name(want) +
                     " array of one value per feature");
  require_same_device(ii, rects, op);
  require_same_device(ii, out, op);
  if (out.size() == 0) return;
  if (rects.device == Device::CPU) {  // device rectangles are checked by the caller, which made them on the host
    const int64_t* q = rects.ptr<int64_t>();
    for (int64_t i = 0; i < rects.size(); i += 4)
      if (q[i] < 0 || q[i + 1] < 0 || q[i + 2] < 0 || q[i + 3] < 0 || q[i + 2] >= ii.shape[0] ||
          q[i + 3] >= ii.shape[1] || q[i] > ii.shape[0] || q[i + 1] > ii.shape[1])
        throw ValueError("haar_features: a rectangle lies outside the integral image");
  }
  NDIMG_ROUTE(ii, op, haar_features_cpu(ii, rects, out), haar_features_cuda(ii, rects, out, stream));
}

namespace {
HaarWindow haar_window(int64_t type, int64_t height, int64_t width, const char* op) {
  if (type < 0 || type > 4) throw ValueError(std::string(op) + ": feature type must be 0 to 4");
  if (height < 0 || width < 0) throw ValueError(std::string(op) + ": the window size must not be negative");
  return HaarWindow::of(type, height, width);
}
}  // namespace

int64_t haar_feature_count(int64_t type, int64_t height, int64_t width) {
  return haar_window(type, height, width, "haar_feature_count").count();
}

void haar_rects(int64_t type, int64_t height, int64_t width, const View& out) {
  const HaarWindow w = haar_window(type, height, width, "haar_rects");
  if (out.dtype != DType::I64 || out.ndim != 3 || out.shape[0] != w.count() || out.shape[1] != w.k ||
      out.shape[2] != 4 || (out.size() && !out.c_contiguous()))
    throw ValueError("haar_rects: out must be a C-contiguous int64 (n_features, n_rects, 4) array");
  if (out.size() == 0) return;
  if (out.device != Device::CPU) throw ValueError("haar_rects: out must be a host array");
  haar_rects_cpu(w, out);
}

void haar_window_features(const View& window, int64_t type, const View& out, StreamHandle stream) {
  const char* op = "haar_window_features";
  if (window.ndim != 2) throw ValueError("haar_window_features: a 2-D integral image window expected");
  const HaarWindow w = haar_window(type, window.shape[0], window.shape[1], op);
  const DType want = is_float(window.dtype) ? window.dtype : DType::I64;
  if (out.dtype != want || out.ndim != 1 || out.shape[0] != w.count() || (out.shape[0] > 1 && out.strides[0] != 1))
    throw ValueError(std::string("haar_window_features: out must be a contiguous 1-D ") + dtype_name(want) +
                     " array of one value per feature");
  require_same_device(window, out, op);
  if (out.size() == 0) return;
  NDIMG_ROUTE(window, op, haar_window_features_cpu(window, w, out),
              haar_window_features_cuda(window, w, out, stream));
}

}  // namespace ndimg::feature
