// Entries of the local binary patterns and the FAST and Moravec responses: validate once, route to the engine.
#include <string>

#include "feature/texture.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::feature {
namespace {

void require_image(const View& image, const View& out, const char* op) {
  require_same_shape(image, out, op);
  require_same_device(image, out, op);
  if (image.ndim != 2) throw ValueError(std::string(op) + ": a 2-D image expected");
  if (!image.c_contiguous() || !out.c_contiguous()) throw ValueError(std::string(op) + ": C-contiguous arrays expected");
}

}  // namespace

void local_binary_pattern(const View& image, std::span<const double> rp, std::span<const double> cp,
                          LbpMethod method, const View& out, StreamHandle stream) {
  const char* op = "local_binary_pattern";
  require_image(image, out, op);
  if (image.dtype != DType::F64 || out.dtype != DType::F64) throw TypeError("local_binary_pattern: float64 arrays expected");
  if (rp.size() != cp.size()) throw ValueError("local_binary_pattern: one row and one column offset per point expected");
  if (int(method) < 0 || int(method) > 4) throw ValueError("local_binary_pattern: unknown method");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, local_binary_pattern_cpu(image, rp, cp, method, out),
              local_binary_pattern_cuda(image, rp, cp, method, out, stream));
}

void corner_fast(const View& image, int n, double threshold, const View& out, StreamHandle stream) {
  const char* op = "corner_fast";
  require_image(image, out, op);
  if (!is_float(image.dtype) || out.dtype != image.dtype) throw TypeError("corner_fast: float32 or float64 arrays of one dtype expected");
  if (n < -128 || n > 127) throw ValueError("corner_fast: n must fit a signed char");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, corner_fast_cpu(image, n, threshold, out), corner_fast_cuda(image, n, threshold, out, stream));
}

void corner_moravec(const View& image, int64_t window_size, const View& out, StreamHandle stream) {
  const char* op = "corner_moravec";
  require_image(image, out, op);
  if (!is_float(image.dtype) || out.dtype != image.dtype) throw TypeError("corner_moravec: float32 or float64 arrays of one dtype expected");
  if (window_size < 0) throw ValueError("corner_moravec: window_size must be non-negative");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, corner_moravec_cpu(image, window_size, out),
              corner_moravec_cuda(image, window_size, out, stream));
}

void glcm_props(const View& P, GlcmProp prop, const View& out) {
  if (P.ndim != 3 || P.shape[0] != P.shape[1] || !P.c_contiguous() || P.device != Device::CPU || P.dtype == DType::Bool)
    throw ValueError("glcm_props: a C-contiguous host (levels, levels, n) array of numbers expected");
  if (out.dtype != DType::F64 || out.ndim != 1 || out.shape[0] != P.shape[2] || !out.c_contiguous() ||
      out.device != Device::CPU)
    throw ValueError("glcm_props: out must be a contiguous host float64 array of one value per matrix");
  if (out.size()) glcm_props_cpu(P, prop, out);
}

int64_t multiblock_lbp(const View& ii, int64_t r, int64_t c, int64_t width, int64_t height) {
  if (ii.ndim != 2 || ii.device != Device::CPU) throw TypeError("multiblock_lbp: a 2-D host integral image expected");
  // the central rectangle, then its 8 neighbours clockwise from the top left, in (height, width) steps
  constexpr int64_t dr[9] = {1, 0, 0, 0, 1, 2, 2, 2, 1}, dc[9] = {1, 0, 1, 2, 2, 2, 1, 0, 0};
  return dispatch_dtype(ii.dtype, [&]<class T>() -> int64_t {
    const T* p = ii.ptr<T>();
    bool inside = true;
    auto at = [&](int64_t y, int64_t x) {  // float32, as scikit-image converts the integral image
      inside = inside && y >= 0 && y < ii.shape[0] && x >= 0 && x < ii.shape[1];
      return inside ? float(p[y * ii.strides[0] + x * ii.strides[1]]) : 0.0f;
    };
    float sums[9];
    for (int k = 0; k < 9; ++k) {  // the rectangle's sum from its integral image corners, in float32
      const int64_t r0 = r + dr[k] * height, c0 = c + dc[k] * width, r1 = r0 + height - 1, c1 = c0 + width - 1;
      float v = at(r1, c1);
      if (r0 >= 1 && c0 >= 1) v += at(r0 - 1, c0 - 1);
      if (r0 >= 1) v -= at(r0 - 1, c1);
      if (c0 >= 1) v -= at(r1, c0 - 1);
      sums[k] = v;
    }
    if (!inside) return -1;
    int64_t code = 0;
    for (int k = 1; k < 9; ++k) code |= int64_t(sums[k] >= sums[0]) << (8 - k);
    return code;
  });
}

void corner_orientations(const View& image, const View& corners, const View& mask, const View& out,
                         StreamHandle stream) {
  const char* op = "corner_orientations";
  require_same_device(image, corners, op);
  require_same_device(image, mask, op);
  require_same_device(image, out, op);
  if (image.ndim != 2 || !image.c_contiguous() || !is_float(image.dtype))
    throw TypeError("corner_orientations: a C-contiguous 2-D float32 or float64 image expected");
  if (corners.dtype != DType::I64 || corners.ndim != 2 || corners.shape[1] != 2 || !corners.c_contiguous())
    throw TypeError("corner_orientations: C-contiguous int64 (n, 2) corners expected");
  if (mask.ndim != 2 || (mask.dtype != DType::U8 && mask.dtype != DType::Bool) || !mask.c_contiguous() ||
      mask.shape[0] % 2 != 1 || mask.shape[1] % 2 != 1)
    throw ValueError("corner_orientations: a C-contiguous odd-shaped uint8 mask expected");
  if (out.dtype != image.dtype || out.ndim != 1 || out.shape[0] != corners.shape[0] || !out.c_contiguous())
    throw ValueError("corner_orientations: a contiguous output of one value per corner in the image's dtype expected");
  if (corners.shape[0] == 0) return;
  NDIMG_ROUTE(image, op, corner_orientations_cpu(image, corners, mask, out),
              corner_orientations_cuda(image, corners, mask, out, stream));
}

void steered_pair_tests(const View& image, const View& keypoints, const View& sin, const View& cos,
                        const View& pairs, const View& out, StreamHandle stream) {
  const char* op = "steered_pair_tests";
  for (const View* v : {&keypoints, &sin, &cos, &pairs, &out}) require_same_device(image, *v, op);
  if (image.ndim != 2 || !image.c_contiguous() || !is_float(image.dtype) || image.size() == 0)
    throw TypeError("steered_pair_tests: a non-empty C-contiguous 2-D float32 or float64 image expected");
  if (keypoints.dtype != DType::I64 || keypoints.ndim != 2 || keypoints.shape[1] != 2 || !keypoints.c_contiguous())
    throw TypeError("steered_pair_tests: C-contiguous int64 (n, 2) keypoints expected");
  const int64_t n = keypoints.shape[0];
  for (const View* v : {&sin, &cos})
    if (v->dtype != image.dtype || v->ndim != 1 || v->shape[0] != n || !v->c_contiguous())
      throw TypeError("steered_pair_tests: one sine and cosine per keypoint in the image's dtype expected");
  if (pairs.dtype != image.dtype || pairs.ndim != 2 || pairs.shape[1] != 4 || !pairs.c_contiguous())
    throw TypeError("steered_pair_tests: C-contiguous (m, 4) pairs in the image's dtype expected");
  if (out.dtype != DType::Bool || out.ndim != 2 || out.shape[0] != n || out.shape[1] != pairs.shape[0] ||
      !out.c_contiguous())
    throw ValueError("steered_pair_tests: a C-contiguous bool output of shape (keypoints, pairs) expected");
  if (n == 0 || pairs.shape[0] == 0) return;
  NDIMG_ROUTE(image, op, steered_pair_tests_cpu(image, keypoints, sin, cos, pairs, out),
              steered_pair_tests_cuda(image, keypoints, sin, cos, pairs, out, stream));
}

}  // namespace ndimg::feature
