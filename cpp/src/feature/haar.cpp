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

}  // namespace ndimg::feature
