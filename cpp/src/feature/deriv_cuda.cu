// CUDA schedules of the derivative features: one thread per pixel.
#include "core/cuda.cuh"
#include "feature/deriv.hpp"

namespace ndimg::feature {
namespace {

using namespace deriv_math;
constexpr unsigned kThreads = 256;

template <int N, class T>
__global__ void eigvals_kernel(HessianPtrs<T> p, T* out, int64_t plane) {
  NDIMG_GRID_STRIDE(i, plane) { pixel_eigvals<N, T>(p, i, plane, out); }
}

template <class O>
__global__ void hessian_det_kernel(const double* ii, O* out, int64_t h, int64_t w, BoxSizes b) {
  NDIMG_GRID_STRIDE(i, h * w) { out[i] = O(hessian_det_at(ii, h, w, i / w, i % w, b)); }
}

}  // namespace

void sym_eigvals_cuda(int n, std::span<const View> elems, const View& out, StreamHandle stream) {
  const char* op = "sym_eigvals";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(out.device_id, op);
  const int64_t plane = elems[0].size();
  dispatch_sym(n, [&]<int N>() {
    auto run = [&]<class T>() {
      eigvals_kernel<N, T><<<cuda::blocks_for(plane, kThreads), kThreads, 0, s>>>(hessian_ptrs<T>(elems), out.ptr<T>(),
                                                                                     plane);
      cuda::check_launch(op);
    };
    if (out.dtype == DType::F64) run.template operator()<double>(); else run.template operator()<float>();
  });
}

void hessian_det_box_cuda(const View& integral, const View& out, double sigma, StreamHandle stream) {
  const char* op = "hessian_det_box";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(out.device_id, op);
  const int64_t h = integral.shape[0], w = integral.shape[1];
  auto run = [&]<class O>() {
    hessian_det_kernel<O><<<cuda::blocks_for(h * w, kThreads), kThreads, 0, s>>>(integral.ptr<double>(),
                                                                                  out.ptr<O>(), h, w, box_sizes(sigma));
    cuda::check_launch(op);
  };
  if (out.dtype == DType::F64) run.template operator()<double>(); else run.template operator()<float>();
}

}  // namespace ndimg::feature
