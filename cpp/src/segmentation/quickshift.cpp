// The quick shift entry: validate once, route to the engine of the image's device.
#include <cmath>
#include <string>

#include "segmentation/quickshift.hpp"

namespace ndimg::segmentation {

void quickshift(const View& image, double kernel_size, const View& densities, const View& parent,
                const View& dist_parent, StreamHandle stream) {
  const char* op = "quickshift";
  auto require = [&](bool ok, const char* what) {
    if (!ok) throw ValueError(std::string(op) + ": " + what);
  };
  require(is_float(image.dtype) && image.ndim == 3 && (image.size() == 0 || image.c_contiguous()),
          "image must be a C-contiguous (H, W, C) float array");
  const int64_t H = image.shape[0], W = image.shape[1];
  auto plane = [&](const View& v, DType t) {
    return v.dtype == t && v.ndim == 2 && v.shape[0] == H && v.shape[1] == W && v.c_contiguous();
  };
  require(plane(densities, image.dtype) && plane(dist_parent, image.dtype) && plane(parent, DType::I64),
          "densities, parent and dist_parent must be C-contiguous (H, W) arrays");
  require_same_device(image, densities, op);
  require_same_device(image, parent, op);
  require_same_device(image, dist_parent, op);
  require(std::isfinite(kernel_size) && kernel_size >= 1 && kernel_size < 1e6, "kernel_size must be in [1, 1e6)");
  if (H == 0 || W == 0) return;
  NDIMG_ROUTE(image, op, quickshift_cpu(image, kernel_size, densities, parent, dist_parent),
              quickshift_cuda(image, kernel_size, densities, parent, dist_parent, stream));
}

}  // namespace ndimg::segmentation
