#include "core/cuda.cuh"
#include "interp/spline_filter.hpp"

namespace ndimg::interp {

void spline_filter_cuda(const View&, const View&, const SplinePoles&, std::span<const int>, SplineBoundary,
                        StreamHandle) {
  throw Error("spline_filter: the CUDA engine's prefilter is not built yet");
}

}  // namespace ndimg::interp
