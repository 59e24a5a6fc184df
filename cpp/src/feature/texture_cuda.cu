// CUDA schedules of the local binary patterns and the FAST and Moravec responses: one thread per pixel.
#include "feature/each_pixel.cuh"
#include "feature/texture.hpp"

namespace ndimg::feature {

void local_binary_pattern_cuda(const View& image, std::span<const double> rp, std::span<const double> cp,
                               LbpMethod method, const View& out, StreamHandle stream) {
  const char* op = "local_binary_pattern";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t P = int64_t(rp.size());
  // a copy from pageable memory returns once the bytes are staged: the spans may go after the call
  cuda::Scratch offsets(2 * P * sizeof(double), s, op);
  double* d = offsets.get<double>();
  if (P) {
    cuda::check(cudaMemcpyAsync(d, rp.data(), P * sizeof(double), cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaMemcpyAsync(d + P, cp.data(), P * sizeof(double), cudaMemcpyHostToDevice, s), op);
  }
  const int64_t margin = lbp_margin(rp, cp);
  dispatch_lbp(method, [&]<LbpMethod M>() {
    each_pixel_cuda(image.shape[0], image.shape[1],
                    LocalBinaryPattern<M>{image.ptr<double>(), out.ptr<double>(), d, d + P, image.shape[0],
                                          image.shape[1], P, margin},
                    s, op);
  });
}

void corner_fast_cuda(const View& image, int n, double threshold, const View& out, StreamHandle stream) {
  const char* op = "corner_fast";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (image.dtype == DType::F32)
    each_pixel_cuda(image.shape[0], image.shape[1],
                    FastResponse<float>{image.ptr<float>(), out.ptr<float>(), image.shape[0], image.shape[1], n,
                                        float(threshold)},
                    s, op);
  else
    each_pixel_cuda(image.shape[0], image.shape[1],
                    FastResponse<double>{image.ptr<double>(), out.ptr<double>(), image.shape[0], image.shape[1], n,
                                         threshold},
                    s, op);
}

void corner_moravec_cuda(const View& image, int64_t w, const View& out, StreamHandle stream) {
  const char* op = "corner_moravec";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (image.dtype == DType::F32)
    each_pixel_cuda(image.shape[0], image.shape[1],
                    MoravecResponse<float>{image.ptr<float>(), out.ptr<float>(), image.shape[0], image.shape[1], w}, s, op);
  else
    each_pixel_cuda(image.shape[0], image.shape[1],
                    MoravecResponse<double>{image.ptr<double>(), out.ptr<double>(), image.shape[0], image.shape[1], w}, s,
                    op);
}

void steered_pair_tests_cuda(const View& image, const View& keypoints, const View& sin, const View& cos,
                             const View& pairs, const View& out, StreamHandle stream) {
  const char* op = "steered_pair_tests";
  cuda::DeviceGuard guard(image.device_id, op);
  auto run = [&]<class T>() {
    each_pixel_cuda(keypoints.shape[0], pairs.shape[0],
                    SteeredPairTest<T>{image.ptr<T>(), keypoints.ptr<int64_t>(), sin.ptr<T>(), cos.ptr<T>(),
                                       pairs.ptr<T>(), out.ptr<uint8_t>(), image.shape[1], image.size() - 1,
                                       pairs.shape[0]},
                    static_cast<cudaStream_t>(stream), op);
  };
  if (image.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

void corner_orientations_cuda(const View& image, const View& corners, const View& mask, const View& out,
                              StreamHandle stream) {
  const char* op = "corner_orientations";
  cuda::DeviceGuard guard(image.device_id, op);
  auto run = [&]<class T>() {
    each_pixel_cuda(1, corners.shape[0],
                    CornerOrientation<T>{image.ptr<T>(), corners.ptr<int64_t>(), mask.ptr<uint8_t>(), out.ptr<T>(),
                                         image.shape[0], image.shape[1], mask.shape[0], mask.shape[1]},
                    static_cast<cudaStream_t>(stream), op);
  };
  if (image.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace ndimg::feature
