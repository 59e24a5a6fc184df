// The entry of scikit-image's 2-D homography warp: validate once, route to the engine the views live on.
#include <string>

#include "core/engine.hpp"
#include "interp/warp_fast.hpp"

namespace ndimg::interp {

void warp_homography(const View& in, std::span<const double> matrix, const View& out, int order, PadMode mode,
                     double cval, StreamHandle stream) {
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
  NDIMG_ROUTE(in, op, warp_homography_cpu(in, matrix.data(), out, order, mode, cval),
              warp_homography_cuda(in, matrix.data(), out, order, mode, cval, stream));
}

}  // namespace ndimg::interp
