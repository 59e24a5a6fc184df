// The entry of scikit-image's 2-D homography warp: validate once, route to the engine the views live on.
#include <string>

#include "core/engine.hpp"
#include "interp/warp_fast.hpp"

namespace ndimg::interp {

void warp_homography(const View& in, std::span<const double> matrix, const View& out, int order, PadMode mode,
                     double cval, std::span<const int64_t> window, StreamHandle stream) {
  const char* op = "warp";
  if (order != 1 && order != 3) throw ValueError(std::string(op) + ": the homography path takes orders 1 and 3");
  if (int(mode) < 0 || int(mode) > int(PadMode::wrap)) throw ValueError(std::string(op) + ": invalid mode");
  if (matrix.size() != 9) throw ValueError(std::string(op) + ": the matrix must be 3x3");
  if (in.ndim != 2 && in.ndim != 3) throw ValueError(std::string(op) + ": 2-D images (and their channels) only");
  if (out.ndim != in.ndim || (in.ndim == 3 && out.shape[2] != in.shape[2]))
    throw ValueError(std::string(op) + ": the output must have the input's channels");
  if (!is_float(in.dtype) || out.dtype != in.dtype)
    throw TypeError(std::string(op) + ": float32 or float64 input and an output of its dtype");
  if (in.size() == 0) throw ValueError(std::string(op) + ": cannot warp an empty image");
  require_same_device(in, out, op);
  WarpWindow w{0, 0, 0, 0, in.shape[0], in.shape[1]};
  if (!window.empty()) {
    if (window.size() != 6) throw ValueError(std::string(op) + ": the window is (oy, ox, r_lo, c_lo, rows, cols)");
    w = WarpWindow{window[0], window[1], window[2], window[3], window[4], window[5]};
    if (w.oy < 0 || w.ox < 0 || w.r_lo < 0 || w.c_lo < 0 || w.r_lo + in.shape[0] > w.rows ||
        w.c_lo + in.shape[1] > w.cols)
      throw ValueError(std::string(op) + ": the window lies outside the image");
  }
  NDIMG_ROUTE(in, op, warp_homography_cpu(in, matrix.data(), out, order, mode, cval, w),
              warp_homography_cuda(in, matrix.data(), out, order, mode, cval, w, stream));
}

}  // namespace ndimg::interp
