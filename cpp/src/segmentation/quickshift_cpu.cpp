// Quick shift on the CPU: both passes per row over the thread pool; every pixel's sums are skimage's (each
// density term through libm's exp, as there: that call is most of the time). The joint distances of a window row are computed first, in
// vectorized loops over colour planes (each lane rounds as skimage's scalar), then consumed in its order.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ndimg/parallel.hpp"
#include "segmentation/quickshift.hpp"

namespace ndimg::segmentation {
namespace {

template <class T>
struct Job {
  const T* planes;   // C planes of H * W
  int64_t H, W, C, kw;
  T inv;
  T* dens;
  int64_t* parent;
  T* dist_parent;
};

// d[i] = the squared joint distance of pixel (r, c) to (r_, cmin + i), i < n, summed as skimage sums it:
// colour channels in order from 0, then the row offset, then the column offset.
template <class T>
[[gnu::always_inline]] inline void row_distances(const Job<T>& j, int64_t r, int64_t c, int64_t r_, int64_t cmin,
                                                 int64_t n, T* __restrict d) {
  const int64_t N = j.H * j.W;
  if (j.C == 0) {   // no channel: the spatial terms alone, as skimage's loops give
    for (int64_t i = 0; i < n; ++i) d[i] = T(0);
  } else {
    const T a = j.planes[r * j.W + c];
    const T* __restrict q = j.planes + r_ * j.W + cmin;
    for (int64_t i = 0; i < n; ++i) {
      const T t = a - q[i];
      d[i] = t * t;   // 0 + t * t
    }
  }
  for (int64_t ch = 1; ch < j.C; ++ch) {
    const T* p = j.planes + r * j.W + c;
    const T* __restrict q = j.planes + r_ * j.W + cmin;
    const T a = p[ch * N];
    const T* __restrict qc = q + ch * N;
    for (int64_t i = 0; i < n; ++i) {
      const T t = a - qc[i];
      d[i] += t * t;
    }
  }
  T tr = T(r - r_);
  tr *= tr;
  for (int64_t i = 0; i < n; ++i) {
    const T tc = T(c - (cmin + i));
    d[i] = (d[i] + tr) + tc * tc;
  }
}

template <class T>
[[gnu::always_inline]] inline void densities_rows(const Job<T>& j, int64_t r0, int64_t r1) {
  std::vector<T> buf(size_t(2 * j.kw + 1));
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t rmin = std::max<int64_t>(r - j.kw, 0), rmax = std::min<int64_t>(r + j.kw + 1, j.H);
    for (int64_t c = 0; c < j.W; ++c) {
      const int64_t cmin = std::max<int64_t>(c - j.kw, 0), cmax = std::min<int64_t>(c + j.kw + 1, j.W);
      T acc = j.dens[r * j.W + c];
      for (int64_t r_ = rmin; r_ < rmax; ++r_) {
        row_distances(j, r, c, r_, cmin, cmax - cmin, buf.data());
        for (int64_t i = 0; i < cmax - cmin; ++i) {
          acc = T(double(acc) + std::exp(double(buf[size_t(i)] * j.inv)));
        }
      }
      j.dens[r * j.W + c] = acc;
    }
  }
}

template <class T>
[[gnu::always_inline]] inline void parents_rows(const Job<T>& j, int64_t r0, int64_t r1) {
  std::vector<T> buf(size_t(2 * j.kw + 1));
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t rmin = std::max<int64_t>(r - j.kw, 0), rmax = std::min<int64_t>(r + j.kw + 1, j.H);
    for (int64_t c = 0; c < j.W; ++c) {
      const int64_t cmin = std::max<int64_t>(c - j.kw, 0), cmax = std::min<int64_t>(c + j.kw + 1, j.W);
      const T current = j.dens[r * j.W + c];
      // skimage starts from DBL_MAX in the image's type (float32: infinity)
      T closest = std::is_same_v<T, float> ? std::numeric_limits<T>::infinity() : T(DBL_MAX);
      int64_t best = r * j.W + c;
      for (int64_t r_ = rmin; r_ < rmax; ++r_) {
        row_distances(j, r, c, r_, cmin, cmax - cmin, buf.data());
        const T* dr = j.dens + r_ * j.W + cmin;
        for (int64_t i = 0; i < cmax - cmin; ++i) {
          if (dr[i] > current && buf[size_t(i)] < closest) {
            closest = buf[size_t(i)];
            best = r_ * j.W + cmin + i;
          }
        }
      }
      j.parent[r * j.W + c] = best;
      j.dist_parent[r * j.W + c] = T(std::sqrt(double(closest)));
    }
  }
}

template <class T>
__attribute__((target("avx2"))) void densities_avx2(const Job<T>& j, int64_t r0, int64_t r1) {
  densities_rows(j, r0, r1);
}
template <class T>
void densities_base(const Job<T>& j, int64_t r0, int64_t r1) {
  densities_rows(j, r0, r1);
}
template <class T>
__attribute__((target("avx2"))) void parents_avx2(const Job<T>& j, int64_t r0, int64_t r1) {
  parents_rows(j, r0, r1);
}
template <class T>
void parents_base(const Job<T>& j, int64_t r0, int64_t r1) {
  parents_rows(j, r0, r1);
}

template <class T>
void run(const T* img, int64_t H, int64_t W, int64_t C, double kernel_size, T* dens, int64_t* parent, T* dist_parent) {
  const T ks = T(kernel_size);
  const int64_t N = H * W;
  std::vector<T> planes(static_cast<size_t>(N * C));
  parallel_for(N, 1 << 16, [&](int64_t i0, int64_t i1) {
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t i = i0; i < i1; ++i) planes[size_t(ch * N + i)] = img[i * C + ch];
  });
  const Job<T> job{planes.data(), H, W, C, int64_t(std::ceil(double(T(3) * ks))), T(-0.5 / double(ks * ks)),
                   dens, parent, dist_parent};
  static const bool avx2 = __builtin_cpu_supports("avx2");
  parallel_for(H, 1, [&](int64_t r0, int64_t r1) { (avx2 ? densities_avx2<T> : densities_base<T>)(job, r0, r1); });
  parallel_for(H, 1, [&](int64_t r0, int64_t r1) { (avx2 ? parents_avx2<T> : parents_base<T>)(job, r0, r1); });
}

}  // namespace

void quickshift(const View& image, double kernel_size, const View& densities, const View& parent,
                const View& dist_parent) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw ValueError(std::string("quickshift: ") + what);
  };
  require(is_float(image.dtype) && image.ndim == 3 && (image.size() == 0 || image.c_contiguous()) &&
              image.device == Device::CPU,
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
