// Quick shift on the CPU: both passes per row over the thread pool; every pixel's loop is skimage's.
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "ndimg/parallel.hpp"
#include "segmentation/quickshift.hpp"

namespace ndimg::segmentation {
namespace {

template <class T>
void run(const T* img, int64_t H, int64_t W, int64_t C, double kernel_size, T* dens, int64_t* parent, T* dist_parent) {
  const T ks = T(kernel_size);
  const T inv = T(-0.5 / double(ks * ks));
  const int64_t kw = int64_t(std::ceil(double(T(3) * ks)));
  // the squared joint distance of pixels (r, c) and (r_, c_), summed in skimage's order
  auto dist = [&](int64_t r, int64_t c, int64_t r_, int64_t c_) {
    const T* a = img + (r * W + c) * C;
    const T* b = img + (r_ * W + c_) * C;
    T d = 0;
    for (int64_t ch = 0; ch < C; ++ch) {
      const T t = a[ch] - b[ch];
      d += t * t;
    }
    T t = T(r - r_);
    d += t * t;
    t = T(c - c_);
    d += t * t;
    return d;
  };
  const int64_t grain = 1;
  parallel_for(H, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t rmin = std::max<int64_t>(r - kw, 0), rmax = std::min<int64_t>(r + kw + 1, H);
      for (int64_t c = 0; c < W; ++c) {
        const int64_t cmin = std::max<int64_t>(c - kw, 0), cmax = std::min<int64_t>(c + kw + 1, W);
        T acc = dens[r * W + c];
        for (int64_t r_ = rmin; r_ < rmax; ++r_)
          for (int64_t c_ = cmin; c_ < cmax; ++c_) acc = T(double(acc) + std::exp(double(dist(r, c, r_, c_) * inv)));
        dens[r * W + c] = acc;
      }
    }
  });
  parallel_for(H, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t rmin = std::max<int64_t>(r - kw, 0), rmax = std::min<int64_t>(r + kw + 1, H);
      for (int64_t c = 0; c < W; ++c) {
        const int64_t cmin = std::max<int64_t>(c - kw, 0), cmax = std::min<int64_t>(c + kw + 1, W);
        const T current = dens[r * W + c];
        // skimage starts from DBL_MAX in the image's type (float32: infinity)
        T closest = std::is_same_v<T, float> ? std::numeric_limits<T>::infinity() : T(DBL_MAX);
        int64_t best = r * W + c;
        for (int64_t r_ = rmin; r_ < rmax; ++r_)
          for (int64_t c_ = cmin; c_ < cmax; ++c_) {
            if (!(dens[r_ * W + c_] > current)) continue;
            const T d = dist(r, c, r_, c_);
            if (d < closest) {
              closest = d;
              best = r_ * W + c_;
            }
          }
        parent[r * W + c] = best;
        dist_parent[r * W + c] = T(std::sqrt(double(closest)));
      }
    }
  });
}

}  // namespace

void quickshift(const View& image, double kernel_size, const View& densities, const View& parent,
                const View& dist_parent) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw ValueError(std::string("quickshift: ") + what);
  };
  require(is_float(image.dtype) && image.ndim == 3 && image.c_contiguous() && image.device == Device::CPU,
          "image must be a C-contiguous (H, W, C) float host array");
  const int64_t H = image.shape[0], W = image.shape[1], C = image.shape[2];
  auto plane = [&](const View& v, DType t) {
    return v.dtype == t && v.ndim == 2 && v.shape[0] == H && v.shape[1] == W && v.c_contiguous() &&
           v.device == Device::CPU;
  };
  require(plane(densities, image.dtype) && plane(dist_parent, image.dtype) && plane(parent, DType::I64),
          "densities, parent and dist_parent must be C-contiguous (H, W) host arrays");
  require(std::isfinite(kernel_size) && kernel_size >= 1 && kernel_size < 1e6, "kernel_size must be in [1, 1e6)");
  if (H == 0 || W == 0) return;
  if (image.dtype == DType::F32)
    run(image.ptr<float>(), H, W, C, kernel_size, densities.ptr<float>(), parent.ptr<int64_t>(),
        dist_parent.ptr<float>());
  else
    run(image.ptr<double>(), H, W, C, kernel_size, densities.ptr<double>(), parent.ptr<int64_t>(),
        dist_parent.ptr<double>());
}

}  // namespace ndimg::segmentation
