// The Felzenszwalb entries: validate once, route to the engine of the arrays' device (the merge, host only,
// validates in felzenszwalb_cpu.cpp).
#include <string>

#include "segmentation/felzenszwalb.hpp"

namespace ndimg::segmentation {
namespace {

void require(bool ok, const char* what) {
  if (!ok) throw ValueError(std::string("felzenszwalb: ") + what);
}

bool edge_list(const View& v, DType t, int64_t E) {
  return v.dtype == t && v.ndim == 1 && v.shape[0] == E && (E == 0 || v.c_contiguous());
}

}  // namespace

void felzenszwalb_costs(const View& image, const View& costs, StreamHandle stream) {
  require(image.dtype == DType::F64 && image.ndim == 3 && image.c_contiguous() && image.shape[2] >= 1 &&
              image.shape[2] < 8,
          "image must be a C-contiguous (H, W, C) float64 array, C < 8");
  const int64_t H = image.shape[0], W = image.shape[1];
  const int64_t E = H == 0 || W == 0 ? 0 : fz_math::Grid<int64_t>::of(H, W).edges();
  require(edge_list(costs, DType::F64, E), "costs must be a contiguous float64 array, one per edge of the grid");
  require_same_device(image, costs, "felzenszwalb");
  if (E == 0) return;
  NDIMG_ROUTE(image, "felzenszwalb", felzenszwalb_costs_cpu(image, costs),
              felzenszwalb_costs_cuda(image, costs, stream));
}

void felzenszwalb_sort(const View& costs, const View& sorted, const View& order, StreamHandle stream) {
  require(costs.device == Device::CUDA, "the device sort takes CUDA arrays (the host sorts with NumPy)");
  const int64_t E = costs.ndim == 1 ? costs.shape[0] : 0;
  require(edge_list(costs, DType::F64, E) && edge_list(sorted, DType::F64, E) && edge_list(order, DType::I64, E),
          "costs, sorted and order must be contiguous 1-D float64, float64 and int64 arrays of one length");
  require_same_device(costs, sorted, "felzenszwalb");
  require_same_device(costs, order, "felzenszwalb");
  if (E == 0) return;
  NDIMG_CUDA_CALL("felzenszwalb", felzenszwalb_sort_cuda(costs, sorted, order, stream));
}

}  // namespace ndimg::segmentation
