// CUDA schedules of Canny's magnitude and non-maximum suppression: one thread per pixel.
#include "feature/canny.hpp"
#include "feature/each_pixel.cuh"

namespace ndimg::feature {
void gradient_magnitude_cuda(const View& gi, const View& gj, const View& out, StreamHandle stream) {
  const char* op = "gradient_magnitude";
  cuda::DeviceGuard guard(gi.device_id, op);
  on_float(gi, [&]<class T>() {
    each_pixel_cuda(gi.shape[0], gi.shape[1], CannyMagnitude<T>{gi.ptr<T>(), gj.ptr<T>(), out.ptr<T>(), gi.shape[1]},
                    static_cast<cudaStream_t>(stream), op);
  });
}

void canny_suppress_cuda(const View& gi, const View& gj, const View& mag, const View& mask, double low, double high,
                         const View& out, StreamHandle stream) {
  const char* op = "canny_suppress";
  cuda::DeviceGuard guard(gi.device_id, op);
  on_float(gi, [&]<class T>() {
    const CannySuppress<T> f{gi.ptr<T>(), gj.ptr<T>(), mag.ptr<T>(), mask.ptr<uint8_t>(), out.ptr<uint8_t>(),
                             gi.shape[0], gi.shape[1], low, high};
    each_pixel_cuda(gi.shape[0], gi.shape[1], f, static_cast<cudaStream_t>(stream), op);
  });
}

}  // namespace ndimg::feature
