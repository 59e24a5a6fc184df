// Quick shift on the CPU: both passes per row over the thread pool; every pixel's sums are skimage's (each
// density term through libm's exp, as there: that call is most of the time). The joint distances of a
// window row are computed first, in vectorized loops over colour planes (each lane rounds as skimage's
// scalar, through quickshift.hpp's terms), then consumed in its order.
#include <algorithm>
#include <cmath>
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
    for (int64_t i = 0; i < n; ++i) d[i] = qs_math::colour_term(a, q[i]);
  }
  for (int64_t ch = 1; ch < j.C; ++ch) {
    const T* p = j.planes + r * j.W + c;
    const T* __restrict q = j.planes + r_ * j.W + cmin;
    const T a = p[ch * N];
    const T* __restrict qc = q + ch * N;
    for (int64_t i = 0; i < n; ++i) d[i] = add_rn(d[i], qs_math::colour_term(a, qc[i]));
  }
  const T tr = square_rn(T(r - r_));
  for (int64_t i = 0; i < n; ++i) d[i] = qs_math::with_offsets(d[i], tr, c - (cmin + i));
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
          acc = qs_math::add_density(acc, buf[size_t(i)], j.inv);
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
      T closest = qs_math::no_parent<T>();
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
      j.dist_parent[r * j.W + c] = qs_math::parent_distance(closest);
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
  const int64_t N = H * W;
  std::vector<T> planes(static_cast<size_t>(N * C));
  parallel_for(N, 1 << 16, [&](int64_t i0, int64_t i1) {
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t i = i0; i < i1; ++i) planes[size_t(ch * N + i)] = img[i * C + ch];
  });
  const auto k = qs_math::params<T>(kernel_size);
  const Job<T> job{planes.data(), H, W, C, k.kw, k.inv, dens, parent, dist_parent};
  static const bool avx2 = __builtin_cpu_supports("avx2");
  parallel_for(H, 1, [&](int64_t r0, int64_t r1) { (avx2 ? densities_avx2<T> : densities_base<T>)(job, r0, r1); });
  parallel_for(H, 1, [&](int64_t r0, int64_t r1) { (avx2 ? parents_avx2<T> : parents_base<T>)(job, r0, r1); });
}

}  // namespace

void quickshift_cpu(const View& image, double kernel_size, const View& densities, const View& parent,
                    const View& dist_parent) {
  const int64_t H = image.shape[0], W = image.shape[1], C = image.shape[2];
  if (image.dtype == DType::F32)
    run(image.ptr<float>(), H, W, C, kernel_size, densities.ptr<float>(), parent.ptr<int64_t>(),
        dist_parent.ptr<float>());
  else
    run(image.ptr<double>(), H, W, C, kernel_size, densities.ptr<double>(), parent.ptr<int64_t>(),
        dist_parent.ptr<double>());
}

}  // namespace ndimg::segmentation
