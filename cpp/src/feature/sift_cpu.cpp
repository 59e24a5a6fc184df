// SIFT's CPU schedules: the extrema by rows of the stack over the pool; the descriptor histograms by keypoints,
// each histogram built by one thread.
#include <cstring>
#include <algorithm>

#include "feature/sift.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::feature {

void sift_extrema_cpu(const View& dog, double threshold, const View& mask) {
  const int64_t ns = dog.shape[0], nr = dog.shape[1], nc = dog.shape[2], rs = nc, ss = nr * nc;
  uint8_t* out = mask.ptr<uint8_t>();
  dispatch_dtype(dog.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* d = dog.ptr<T>();
      parallel_for(ns * nr, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, nc)), [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i) {
          const int64_t s = i / nr, r = i % nr;
          uint8_t* o = out + i * nc;
          std::memset(o, 0, size_t(nc));
          if (s == 0 || s == ns - 1 || r == 0 || r == nr - 1) continue;
          for (int64_t c = 1; c < nc - 1; ++c) o[c] = sift_is_extremum(d + i * nc + c, ss, rs, threshold);
        }
      });
    }
  });
}

void sift_patches_cpu(const View& g_row, const View& g_col, const View& geometry, const View& bounds,
                      const View& starts, const View& pixels) {
  const int64_t k = geometry.shape[0], nr = g_row.shape[1], nc = g_row.shape[2];
  const int64_t* b = bounds.ptr<int64_t>();
  int64_t* s = starts.ptr<int64_t>();
  const bool count = pixels.shape[0] == 0;
  if (count) s[0] = 0;
  dispatch_dtype(g_row.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* geo = geometry.ptr<T>();
      const T* gr = g_row.ptr<T>();
      const T* gc = g_col.ptr<T>();
      T* out = pixels.ptr<T>();
      parallel_for(k, 4, [&](int64_t a, int64_t e) {
        for (int64_t i = a; i < e; ++i) {
          const T* g = geo + 5 * i;
          const int64_t* bi = b + 5 * i;
          if (count) {
            int64_t n = 0;
            sift_patch(bi[1], bi[2], bi[3], bi[4], g[0], g[1], g[2], g[3], g[4],
                       [&](int64_t, int64_t, T, T) { ++n; });
            s[i + 1] = n;
          } else {
            T* o = out + 4 * s[i];
            const int64_t base = bi[0] * nr * nc;
            sift_patch(bi[1], bi[2], bi[3], bi[4], g[0], g[1], g[2], g[3], g[4],
                       [&](int64_t row, int64_t col, T rn, T cn) {
                         const int64_t at = base + row * nc + col;
                         o[0] = rn, o[1] = cn, o[2] = gr[at], o[3] = gc[at];
                         o += 4;
                       });
          }
        }
      });
    }
  });
}

void sift_descriptor_histograms_cpu(const View& pixels, const View& starts, const View& rc_bins, const View& spacing,
                                    const View& ori_bins, const View& hist) {
  const int64_t k = hist.shape[0], n_hist = hist.shape[1], n_ori = hist.shape[3];
  const int64_t* s = starts.ptr<int64_t>();
  const int64_t per_key = std::max<int64_t>(1, pixels.shape[0] / std::max<int64_t>(1, k));
  dispatch_dtype(pixels.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* pix = pixels.ptr<T>();
      const T* bins = rc_bins.ptr<T>();
      const T* sp = spacing.ptr<T>();
      T* h = hist.ptr<T>();
      parallel_for(k, std::max<int64_t>(1, 65536 / (per_key * n_hist * 4)), [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i)
          sift_descriptor_hist(pix + 4 * s[i], s[i + 1] - s[i], bins + i * n_hist, sp[i], ori_bins.ptr<T>(), n_hist,
                               n_ori, h + i * n_hist * n_hist * n_ori);
      });
    }
  });
}

}  // namespace ndimg::feature
