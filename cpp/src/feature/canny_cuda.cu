// CUDA schedule of Canny's non-maximum suppression: one thread per pixel.
#include "feature/canny.hpp"
#include "feature/each_pixel.cuh"

namespace ndimg::feature {

void canny_suppress_cuda(const View& gi, const View& gj, const View& mask, double low, double high, const View& out,
                         StreamHandle stream) {
  const char* op = "canny_suppress";
  cuda::DeviceGuard guard(gi.device_id, op);
  auto run = [&]<class T>() {
    const CannySuppress<T> f{gi.ptr<T>(), gj.ptr<T>(), mask.ptr<uint8_t>(), out.ptr<uint8_t>(), gi.shape[0],
                             gi.shape[1], low, high};
    each_pixel_cuda(gi.shape[0], gi.shape[1], f, static_cast<cudaStream_t>(stream), op);
  };
  if (gi.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace ndimg::feature
