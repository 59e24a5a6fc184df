// The patch primitives' entries: validate once, route to the engine.
#include <string>

#include "restoration/nl_means.hpp"
#include "restoration/patch.hpp"

using ndimg::restoration::patch_math::kMaxBilateralChannels;

namespace ndimg::restoration {
namespace {

void require_float(const View& v, const char* op, const char* what) {
  if (v.dtype != DType::F32 && v.dtype != DType::F64) throw TypeError(std::string(op) + ": " + what + " must be float32 or float64");
  if (!v.c_contiguous()) throw ValueError(std::string(op) + ": " + what + " must be C-contiguous");
}

void require_like(const View& a, const View& b, const char* op, const char* what) {
  if (a.dtype != b.dtype) throw TypeError(std::string(op) + ": " + what + " must have the image's dtype");
  require_same_device(a, b, op);
}

}  // namespace

void bilateral(const View& image, int64_t win_size, char mode, double cval, double dist_scale, const View& color_lut,
               const View& range_lut, const View& out, StreamHandle stream) {
  const char* op = "bilateral";
  require_float(image, op, "image");
  if (image.ndim != 3) throw ValueError("bilateral: a (rows, cols, channels) image expected");
  require_float(out, op, "out");
  require_like(image, out, op, "out");
  require_same_shape(image, out, op);
  require_float(color_lut, op, "color_lut");
  require_like(image, color_lut, op, "color_lut");
  require_float(range_lut, op, "range_lut");
  require_like(image, range_lut, op, "range_lut");
  // a window of (win_size - 1) / 2 (C's division) either side; none at all below that (every pixel NaN, 0 / 0)
  const int64_t ext = (win_size - 1) / 2;
  if (range_lut.ndim != 1 || (ext >= 0 && range_lut.shape[0] <= 2 * ext * win_size + 2 * ext))
    throw ValueError("bilateral: range_lut must hold the window's weights, rows win_size apart");
  if (color_lut.ndim != 1 || color_lut.shape[0] < 1) throw ValueError("bilateral: color_lut must not be empty");
  if (mode != 'C' && mode != 'E' && mode != 'S' && mode != 'R' && mode != 'W')
    throw ValueError("bilateral: mode must be one of 'C', 'E', 'S', 'R', 'W'");
  if (ext >= 0 && image.shape[2] > kMaxBilateralChannels && image.device == Device::CUDA)
    throw ValueError("bilateral: the CUDA engine takes at most 16 channels");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, bilateral_cpu(image, win_size, mode, cval, dist_scale, color_lut, range_lut, out),
              bilateral_cuda(image, win_size, mode, cval, dist_scale, color_lut, range_lut, out, stream));
}

void rolling_ball(const View& padded, const View& diff, const View& out, bool nansafe, StreamHandle stream) {
  const char* op = "rolling_ball";
  require_float(padded, op, "padded");
  require_float(diff, op, "kernel");
  require_like(padded, diff, op, "kernel");
  require_float(out, op, "out");
  require_like(padded, out, op, "out");
  if (diff.ndim != padded.ndim || out.ndim != padded.ndim || padded.ndim < 1)
    throw ValueError("rolling_ball: image, kernel and out must have the same dimensionality");
  for (int d = 0; d < padded.ndim; ++d)
    if (padded.shape[d] != out.shape[d] + 2 * (diff.shape[d] / 2) || diff.shape[d] < 1)
      throw ValueError("rolling_ball: padded must be out padded by kernel.shape // 2 on every side");
  if (out.size() == 0) return;
  NDIMG_ROUTE(padded, op, rolling_ball_cpu(padded, diff, out, nansafe),
              rolling_ball_cuda(padded, diff, out, nansafe, stream));
}

void nl_means_fast(const View& padded, int64_t patch_size, int64_t distance, double h, double var, const View& out,
                   StreamHandle stream) {
  const char* op = "nl_means_fast";
  if (padded.dtype != DType::F64 || out.dtype != DType::F64 || !padded.c_contiguous() || !out.c_contiguous())
    throw TypeError("nl_means_fast: C-contiguous float64 arrays expected");
  require_same_device(padded, out, op);
  if (padded.ndim < 2 || padded.ndim > 5 || out.ndim != padded.ndim)
    throw ValueError("nl_means_fast: 1 to 4 spatial axes and a channel axis expected");
  // a negative distance compares no pixels: every pixel NaN (0 / 0), as in scikit-image
  if (patch_size < 1 || patch_size % 2 == 0) throw ValueError("nl_means_fast: an odd patch_size expected");
  const int64_t pad = patch_size / 2 + distance + 1;
  for (int d = 0; d < padded.ndim - 1; ++d)
    if (padded.shape[d] != out.shape[d] + 2 * pad) throw ValueError("nl_means_fast: padded must be out padded by patch_size // 2 + distance + 1");
  if (padded.shape[padded.ndim - 1] != out.shape[out.ndim - 1] || out.shape[out.ndim - 1] < 1)
    throw ValueError("nl_means_fast: padded and out must have the same channels");
  if (out.size() == 0) return;
  NDIMG_ROUTE(padded, op, nl_means_fast_cpu(padded, patch_size, distance, h, var, out),
              nl_means_fast_cuda(padded, patch_size, distance, h, var, out, stream));
}

void nl_means(const View& padded, const View& w, int64_t distance, double var, const View& out, StreamHandle stream) {
  const char* op = "nl_means";
  require_float(padded, op, "padded");
  require_float(w, op, "w");
  require_like(padded, w, op, "w");
  require_float(out, op, "out");
  require_like(padded, out, op, "out");
  const int nd = padded.ndim - 1;
  if (nd < 1 || nd > 3 || w.ndim != nd || out.ndim != padded.ndim) throw ValueError("nl_means: 1 to 3 spatial axes and a channel axis expected");
  const int64_t s = w.shape[0];
  if (s % 2 == 0) throw ValueError("nl_means: odd patch weights expected");
  for (int d = 0; d < nd; ++d)
    if (w.shape[d] != s || padded.shape[d] != out.shape[d] + 2 * (s / 2))
      throw ValueError("nl_means: padded must be out padded by patch_size // 2");
  if (padded.shape[nd] != out.shape[nd]) throw ValueError("nl_means: padded and out must have the same channels");
  if (out.size() == 0) return;
  NDIMG_ROUTE(padded, op, nl_means_cpu(padded, w, distance, var, out), nl_means_cuda(padded, w, distance, var, out, stream));
}

}  // namespace ndimg::restoration
