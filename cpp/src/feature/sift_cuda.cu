// SIFT's CUDA schedules: one thread per element of the stack for the extrema; one thread per keypoint for the
// descriptor histograms, its pixels in order (the CPU's sums).
#include <type_traits>

#include "core/cuda.cuh"
#include "feature/sift.hpp"

namespace ndimg::feature {
namespace {

constexpr unsigned kThreads = 64;

template <class T>
__global__ void sift_extrema_kernel(const T* dog, int64_t ns, int64_t nr, int64_t nc, double threshold,
                                    uint8_t* mask) {
  NDIMG_GRID_STRIDE(i, ns * nr * nc) {
    const int64_t c = i % nc, r = (i / nc) % nr, s = i / (nc * nr);
    const bool inner = s > 0 && s < ns - 1 && r > 0 && r < nr - 1 && c > 0 && c < nc - 1;
    mask[i] = inner && sift_is_extremum(dog + i, nr * nc, nc, threshold);
  }
}

template <class T>
__global__ void sift_hist_kernel(const T* pix, int64_t n_pix, const int64_t* starts, const T* rc_bins,
                                 const T* spacing, const T* ori_bins, int64_t k, int64_t n_hist, int64_t n_ori,
                                 T* hist) {
  NDIMG_GRID_STRIDE(i, k) {
    // offsets outside the pixels (a caller's bug) are clamped rather than read past the array
    const int64_t a = min(max(starts[i], int64_t(0)), n_pix);
    const int64_t b = min(max(starts[i + 1], a), n_pix);
    sift_descriptor_hist(pix + 4 * a, b - a, rc_bins + i * n_hist, spacing[i], ori_bins, n_hist, n_ori,
                         hist + i * n_hist * n_hist * n_ori);
  }
}

}  // namespace

void sift_extrema_cuda(const View& dog, double threshold, const View& mask, StreamHandle stream) {
  const char* op = "sift_extrema";
  cuda::DeviceGuard guard(dog.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = dog.size();
  dispatch_dtype(dog.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      sift_extrema_kernel<T><<<cuda::blocks_for(n, 256), 256, 0, s>>>(
          dog.ptr<T>(), dog.shape[0], dog.shape[1], dog.shape[2], threshold, mask.ptr<uint8_t>());
      cuda::check_launch(op);
    }
  });
}

void sift_descriptor_histograms_cuda(const View& pixels, const View& starts, const View& rc_bins,
                                     const View& spacing, const View& ori_bins, const View& hist,
                                     StreamHandle stream) {
  const char* op = "sift_descriptor_histograms";
  cuda::DeviceGuard guard(pixels.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t k = hist.shape[0];
  dispatch_dtype(pixels.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      sift_hist_kernel<T><<<cuda::blocks_for(k, kThreads), kThreads, 0, s>>>(
          pixels.ptr<T>(), pixels.shape[0], starts.ptr<int64_t>(), rc_bins.ptr<T>(), spacing.ptr<T>(),
          ori_bins.ptr<T>(), k, hist.shape[1], hist.shape[3], hist.ptr<T>());
      cuda::check_launch(op);
    }
  });
}

}  // namespace ndimg::feature
