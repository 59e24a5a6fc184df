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
__global__ void sift_patches_kernel(const T* gr, const T* gc, int64_t ns, int64_t nr, int64_t nc, const T* geo,
                                    const int64_t* bounds, int64_t k, int64_t* starts, T* out, int64_t n_pix) {
  NDIMG_GRID_STRIDE(i, k) {
    const T* g = geo + 5 * i;
    const int64_t* bi = bounds + 5 * i;
    // boxes and offsets outside the arrays (a caller's bug) are clamped rather than read or written past them
    const int64_t scale = min(max(bi[0], int64_t(0)), ns - 1);
    const int64_t r0 = max(bi[1], int64_t(0)), r1 = min(bi[2], nr), c0 = max(bi[3], int64_t(0)), c1 = min(bi[4], nc);
    if (n_pix == 0) {
      int64_t n = 0;
      sift_patch(r0, r1, c0, c1, g[0], g[1], g[2], g[3], g[4], [&](int64_t, int64_t, T, T) { ++n; });
      starts[i + 1] = n;
      if (i == 0) starts[0] = 0;
    } else {
      int64_t at = min(max(starts[i], int64_t(0)), n_pix);
      const int64_t end = min(max(starts[i + 1], at), n_pix);
      const int64_t base = scale * nr * nc;
      sift_patch(r0, r1, c0, c1, g[0], g[1], g[2], g[3], g[4], [&](int64_t row, int64_t col, T rn, T cn) {
        if (at < end) {
          T* o = out + 4 * at++;
          const int64_t p = base + row * nc + col;
          o[0] = rn, o[1] = cn, o[2] = gr[p], o[3] = gc[p];
        }
      });
    }
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

void sift_patches_cuda(const View& g_row, const View& g_col, const View& geometry, const View& bounds,
                       const View& starts, const View& pixels, StreamHandle stream) {
  const char* op = "sift_patches";
  cuda::DeviceGuard guard(g_row.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t k = geometry.shape[0];
  dispatch_dtype(g_row.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      sift_patches_kernel<T><<<cuda::blocks_for(k, kThreads), kThreads, 0, s>>>(
          g_row.ptr<T>(), g_col.ptr<T>(), g_row.shape[0], g_row.shape[1], g_row.shape[2], geometry.ptr<T>(),
          bounds.ptr<int64_t>(), k, starts.ptr<int64_t>(), pixels.ptr<T>(), pixels.shape[0]);
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
