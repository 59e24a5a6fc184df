// The SLIC k-means entry: validate once, route to the engine of the image's device.
#include <string>

#include "segmentation/slic.hpp"

namespace ndimg::segmentation {

void slic_iterate(const View& image, const View& mask, bool use_mask, const View& segments, double step,
                  std::span<const int64_t> grid_steps, int64_t max_num_iter, std::span<const double> spacing,
                  bool slic_zero, int64_t start_label, bool ignore_color, const View& labels, StreamHandle stream) {
  const char* op = "slic";
  auto require = [&](bool ok, const char* what) {
    if (!ok) throw ValueError(std::string(op) + ": " + what);
  };
  require(is_float(image.dtype) && image.ndim == 4 && image.c_contiguous(),
          "image must be a C-contiguous (Z, Y, X, C) float array");
  const int64_t D = image.shape[0], H = image.shape[1], W = image.shape[2], C = image.shape[3];
  require(segments.dtype == image.dtype && segments.ndim == 2 && segments.shape[1] == 3 + C &&
              segments.c_contiguous(),
          "segments must be a C-contiguous (N, 3 + C) array of the image's type");
  require(labels.dtype == DType::I64 && labels.ndim == 3 && labels.shape[0] == D && labels.shape[1] == H &&
              labels.shape[2] == W && labels.c_contiguous(),
          "labels must be a C-contiguous (Z, Y, X) int64 array");
  require(!use_mask || ((mask.dtype == DType::U8 || mask.dtype == DType::Bool) && mask.ndim == 3 &&
                        mask.shape[0] == D && mask.shape[1] == H && mask.shape[2] == W && mask.c_contiguous()),
          "mask must be a C-contiguous (Z, Y, X) uint8 array");
  require(grid_steps.size() == 3 && spacing.size() == 3, "three grid steps and spacings expected");
  for (int64_t g : grid_steps) require(g >= 1, "grid steps must be positive");
  require_same_device(image, segments, op);
  require_same_device(image, labels, op);
  if (use_mask) require_same_device(image, mask, op);
  if (image.size() == 0 || segments.shape[0] == 0) return;
  NDIMG_ROUTE(image, op,
              slic_iterate_cpu(image, mask, use_mask, segments, step, grid_steps, max_num_iter, spacing, slic_zero,
                               start_label, ignore_color, labels),
              slic_iterate_cuda(image, mask, use_mask, segments, step, grid_steps, max_num_iter, spacing, slic_zero,
                                start_label, ignore_color, labels, stream));
}

}  // namespace ndimg::segmentation
