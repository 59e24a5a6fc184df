// Plateau extrema on CUDA: a thread per element in each pass; a plateau's flag is one byte, set by plain
// stores of the same value from any of its elements (a flag already set spares the neighbour reads).
#include "core/cuda.cuh"
#include "morphology/extrema.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::morphology {
namespace {

constexpr unsigned kThreads = 256;

template <class T, class L>
__global__ void flags_kernel(const T* image, const L* labels, int64_t n, int nd, std::array<int64_t, kMaxDim> shape,
                             const int64_t* offsets, int64_t k, uint8_t* flags, int64_t count) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t l = labels[i];
    if (l < 0 || l >= count || flags[l]) continue;
    if (rules_out(image, i, nd, shape.data(), offsets, k)) flags[l] = 1;
  }
}

template <class L>
__global__ void top_kernel(const L* labels, const uint8_t* flags, int64_t count, int64_t n, int nd,
                           std::array<int64_t, kMaxDim> shape, bool* out) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t l = labels[i];
    out[i] = !on_border(i, nd, shape.data()) && l >= 0 && l < count && !flags[l];
  }
}

template <class L>
void launch_flags(const View& image, const L* labels, const int64_t* offsets, int64_t k, uint8_t* flags,
                  int64_t count, cudaStream_t s) {
  const int64_t n = image.size();
  dispatch_dtype(image.dtype, [&]<class T>() {
    flags_kernel<T, L><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(image.ptr<T>(), labels, n, image.ndim,
                                                                          image.shape, offsets, k, flags, count);
  });
}

}  // namespace

void plateau_flags_cuda(const View& image, const View& labels, std::span<const int64_t> offsets, const View& flags,
                        StreamHandle stream) {
  const char* op = "local_maxima";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  cuda::Scratch steps(offsets.size_bytes(), s, op);
  if (!offsets.empty())
    cuda::check(cudaMemcpyAsync(steps.get<int64_t>(), offsets.data(), offsets.size_bytes(), cudaMemcpyHostToDevice, s),
                op);
  const int64_t k = int64_t(offsets.size()), count = flags.size();
  if (labels.dtype == DType::I32)
    launch_flags(image, labels.ptr<int32_t>(), steps.get<int64_t>(), k, flags.ptr<uint8_t>(), count, s);
  else
    launch_flags(image, labels.ptr<int64_t>(), steps.get<int64_t>(), k, flags.ptr<uint8_t>(), count, s);
  cuda::check_launch(op);
  // the offsets' host copy goes when this returns
  cuda::check(cudaStreamSynchronize(s), op);
}

void plateau_top_cuda(const View& labels, const View& flags, const View& out, StreamHandle stream) {
  const char* op = "local_maxima";
  cuda::DeviceGuard guard(out.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = out.size(), count = flags.size();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  if (labels.dtype == DType::I32)
    top_kernel<<<blocks, kThreads, 0, s>>>(labels.ptr<int32_t>(), flags.ptr<uint8_t>(), count, n, out.ndim, out.shape,
                                           out.ptr<bool>());
  else
    top_kernel<<<blocks, kThreads, 0, s>>>(labels.ptr<int64_t>(), flags.ptr<uint8_t>(), count, n, out.ndim, out.shape,
                                           out.ptr<bool>());
  cuda::check_launch(op);
}

}  // namespace ndimg::morphology
