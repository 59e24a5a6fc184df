// Haar-like features' CUDA schedules: one thread per feature given, or per (corner, rectangle height) of a
// whole window's features.
#include <type_traits>

#include "core/cuda.cuh"
#include "feature/haar.hpp"

namespace ndimg::feature {
namespace {

template <class T>
__global__ void haar_kernel(const T* ii, int64_t rs, int64_t cs, const int64_t* q, int64_t n, int64_t nr,
                            haar_out_t<T>* out) {
  NDIMG_GRID_STRIDE(f, n) { out[f] = haar_feature(ii, rs, cs, q + f * nr * 4, nr); }
}

template <class T>
__global__ void haar_window_kernel(const T* ii, int64_t rs, int64_t cs, HaarWindow w, haar_out_t<T>* out) {
  NDIMG_GRID_STRIDE(t, w.triples()) {
    w.visit(t, [&](int64_t f, const int64_t* q) { out[f] = haar_feature(ii, rs, cs, q, w.k); });
  }
}

}  // namespace

void haar_window_features_cuda(const View& ii, const HaarWindow& w, const View& out, StreamHandle stream) {
  const char* op = "haar_window_features";
  cuda::DeviceGuard guard(ii.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(ii.dtype, [&]<class T>() {
    haar_window_kernel<T><<<cuda::blocks_for(w.triples(), 128), 128, 0, s>>>(ii.ptr<T>(), ii.strides[0],
                                                                              ii.strides[1], w, out.ptr<haar_out_t<T>>());
    cuda::check_launch(op);
  });
}

void haar_features_cuda(const View& ii, const View& rects, const View& out, StreamHandle stream) {
  const char* op = "haar_features";
  cuda::DeviceGuard guard(ii.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = rects.shape[0];
  dispatch_dtype(ii.dtype, [&]<class T>() {
    haar_kernel<T><<<cuda::blocks_for(n, 256), 256, 0, s>>>(ii.ptr<T>(), ii.strides[0], ii.strides[1],
                                                             rects.ptr<int64_t>(), n, rects.shape[1],
                                                             out.ptr<haar_out_t<T>>());
    cuda::check_launch(op);
  });
}

}  // namespace ndimg::feature
