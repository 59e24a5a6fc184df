// Quick shift on CUDA: one thread per pixel for each pass (the densities, then the parents, which read every
// window's densities), with quickshift.hpp's math: the same sums in the same order as the CPU engine and
// skimage (no FMA contraction; the device's double exp is within an ulp of libm's, which moves a density by
// an ulp at most, far below the tie-breaking noise that orders neighbouring densities).
#include "core/cuda.cuh"
#include "segmentation/quickshift.hpp"

namespace ndimg::segmentation {
namespace {

using namespace qs_math;

constexpr unsigned kThreads = 256;

template <class T>
__global__ void densities_kernel(const T* img, int64_t H, int64_t W, int64_t C, Params<T> k, T* dens) {
  NDIMG_GRID_STRIDE(p, H * W) {
    const int64_t r = p / W, c = p % W;
    const int64_t rmin = max(r - k.kw, int64_t(0)), rmax = min(r + k.kw + 1, H);
    const int64_t cmin = max(c - k.kw, int64_t(0)), cmax = min(c + k.kw + 1, W);
    T acc = dens[p];
    for (int64_t r_ = rmin; r_ < rmax; ++r_)
      for (int64_t c_ = cmin; c_ < cmax; ++c_)
        acc = add_density(acc, joint_distance2(img, C, p, r_ * W + c_, r - r_, c - c_), k.inv);
    dens[p] = acc;
  }
}

template <class T>
__global__ void parents_kernel(const T* img, int64_t H, int64_t W, int64_t C, int64_t kw, const T* dens,
                               int64_t* parent, T* dist_parent) {
  NDIMG_GRID_STRIDE(p, H * W) {
    const int64_t r = p / W, c = p % W;
    const int64_t rmin = max(r - kw, int64_t(0)), rmax = min(r + kw + 1, H);
    const int64_t cmin = max(c - kw, int64_t(0)), cmax = min(c + kw + 1, W);
    const T current = dens[p];
    T closest = no_parent<T>();
    int64_t best = p;
    for (int64_t r_ = rmin; r_ < rmax; ++r_)
      for (int64_t c_ = cmin; c_ < cmax; ++c_) {
        const int64_t q = r_ * W + c_;
        if (dens[q] > current) {
          const T d = joint_distance2(img, C, p, q, r - r_, c - c_);
          if (d < closest) {
            closest = d;
            best = q;
          }
        }
      }
    parent[p] = best;
    dist_parent[p] = parent_distance(closest);
  }
}

template <class T>
void run(const View& image, double kernel_size, const View& densities, const View& parent, const View& dist_parent,
         cudaStream_t s, const char* op) {
  const int64_t H = image.shape[0], W = image.shape[1], C = image.shape[2];
  const auto k = params<T>(kernel_size);
  const unsigned blocks = cuda::blocks_for(H * W, kThreads);
  densities_kernel<T><<<blocks, kThreads, 0, s>>>(image.ptr<T>(), H, W, C, k, densities.ptr<T>());
  cuda::check_launch(op);
  parents_kernel<T><<<blocks, kThreads, 0, s>>>(image.ptr<T>(), H, W, C, k.kw, densities.ptr<T>(),
                                                 parent.ptr<int64_t>(), dist_parent.ptr<T>());
  cuda::check_launch(op);
}

}  // namespace

void quickshift_cuda(const View& image, double kernel_size, const View& densities, const View& parent,
                     const View& dist_parent, StreamHandle stream) {
  const char* op = "quickshift";
  cuda::DeviceGuard guard(image.device_id, op);
  const auto s = static_cast<cudaStream_t>(stream);
  if (image.dtype == DType::F32) run<float>(image, kernel_size, densities, parent, dist_parent, s, op);
  else run<double>(image, kernel_size, densities, parent, dist_parent, s, op);
}

}  // namespace ndimg::segmentation
