// CPU schedules of the local binary patterns and the FAST and Moravec responses: bands of rows on the pool.
#include <algorithm>
#include <cmath>
#include <vector>

#include "feature/each_pixel.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"
#include "feature/texture.hpp"

namespace ndimg::feature {
namespace {

template <template <class> class F, class... A>
void run_float(const View& image, const View& out, int64_t cost, A... args) {
  auto run = [&]<class T>() {
    each_pixel_cpu(image.shape[0], image.shape[1], cost,
                   F<T>{image.ptr<T>(), out.ptr<T>(), image.shape[0], image.shape[1], args...});
  };
  if (image.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace

void local_binary_pattern_cpu(const View& image, std::span<const double> rp, std::span<const double> cp,
                              LbpMethod method, const View& out) {
  const int64_t P = int64_t(rp.size()), margin = lbp_margin(rp, cp);
  dispatch_lbp(method, [&]<LbpMethod M>() {
    each_pixel_cpu(image.shape[0], image.shape[1], 8 * P + 1,
                   LocalBinaryPattern<M>{image.ptr<double>(), out.ptr<double>(), rp.data(), cp.data(), image.shape[0],
                                         image.shape[1], P, margin});
  });
}

void corner_fast_cpu(const View& image, int n, double threshold, const View& out) {
  if (image.dtype == DType::F32) {
    each_pixel_cpu(image.shape[0], image.shape[1], 8,
                   FastResponse<float>{image.ptr<float>(), out.ptr<float>(), image.shape[0], image.shape[1], n,
                                       float(threshold)});
  } else {
    each_pixel_cpu(image.shape[0], image.shape[1], 8,
                   FastResponse<double>{image.ptr<double>(), out.ptr<double>(), image.shape[0], image.shape[1], n,
                                        threshold});
  }
}

void steered_pair_tests_cpu(const View& image, const View& keypoints, const View& sin, const View& cos,
                            const View& pairs, const View& out) {
  auto run = [&]<class T>() {
    each_pixel_cpu(keypoints.shape[0], pairs.shape[0], 4,
                   SteeredPairTest<T>{image.ptr<T>(), keypoints.ptr<int64_t>(), sin.ptr<T>(), cos.ptr<T>(),
                                      pairs.ptr<T>(), out.ptr<uint8_t>(), image.shape[1], image.size() - 1,
                                      pairs.shape[0]});
  };
  if (image.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

void corner_moravec_cpu(const View& image, int64_t w, const View& out) {
  constexpr int L = 16;  // pixels of a row at once: independent sums for the adds' latency
  const int64_t rows = image.shape[0], cols = image.shape[1], side = 2 * w + 1;
  auto run = [&]<class T>() {
    const MoravecResponse<T> f{image.ptr<T>(), out.ptr<T>(), rows, cols, w};
    parallel_for(rows, std::max<int64_t>(1, (1 << 16) / (cols * side * side * side * side)), [&](int64_t a, int64_t b) {
      for (int64_t r = a; r < b; ++r) {
        int64_t c = 0;
        if (r >= 2 * w && r < rows - 2 * w)
          for (c = 2 * w; c + L <= cols - 2 * w; c += L) f.template pixels_inside<L>(r, c);
        for (int64_t x = 0; x < cols; ++x)  // the borders, and the row's last pixels
          if (x < 2 * w || x >= c) f(r, x);
      }
    });
  };
  if (image.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

void corner_orientations_cpu(const View& image, const View& corners, const View& mask, const View& out) {
  constexpr int L = 16;  // corners at once: independent sums for the adds' latency
  const int64_t n = corners.shape[0], blocks = (n + L - 1) / L;
  auto run = [&]<class T>() {
    const CornerOrientation<T> f{image.ptr<T>(), corners.ptr<int64_t>(), mask.ptr<uint8_t>(), out.ptr<T>(),
                                 image.shape[0], image.shape[1], mask.shape[0], mask.shape[1]};
    parallel_for(blocks, std::max<int64_t>(1, (1 << 16) / (L * mask.size())), [&](int64_t a, int64_t b) {
      for (int64_t blk = a; blk < b; ++blk) {
        const int64_t i0 = blk * L, i1 = std::min(n, i0 + L);
        bool inside = i1 - i0 == L;
        for (int64_t i = i0; i < i1 && inside; ++i) {
          int64_t r0, c0;
          inside = f.window(i, r0, c0);
        }
        if (inside) f.template orientations_inside<L>(i0);
        else
          for (int64_t i = i0; i < i1; ++i) f(0, i);
      }
    });
  };
  if (image.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

void glcm_props_cpu(const View& P, GlcmProp prop, const View& out) {
  const int64_t L = P.shape[0], n = P.shape[2];
  dispatch_dtype(P.dtype, [&]<class T>() {
    const T* src = P.ptr<T>();
    double* o = out.ptr<double>();
    // matrices m0 .. m1 together: one pass over (i, j) per sum, each matrix's terms added in that order
    parallel_for(n, std::max<int64_t>(1, (1 << 16) / (L * L)), [&](int64_t m0, int64_t m1) {
      const int64_t w = m1 - m0;
      std::vector<double> total(w, 0.0), a(w, 0.0), b(w, 0.0), c(w, 0.0);
      auto each = [&](auto&& f) {  // f(k, i, j, p): p the matrix's normalised value at (i, j)
        for (int64_t i = 0; i < L; ++i)
          for (int64_t j = 0; j < L; ++j) {
            const T* row = src + (i * L + j) * n + m0;
            for (int64_t k = 0; k < w; ++k) f(k, i, j, double(row[k]) / total[k]);
          }
      };
      for (int64_t i = 0; i < L * L; ++i)
        for (int64_t k = 0; k < w; ++k) total[k] += double(src[i * n + m0 + k]);
      for (int64_t k = 0; k < w; ++k)
        if (total[k] == 0) total[k] = 1;
      switch (prop) {
        case GlcmProp::Contrast:
        case GlcmProp::Dissimilarity:
        case GlcmProp::Homogeneity:
          each([&](int64_t k, int64_t i, int64_t j, double p) {
            const int64_t d = i - j;
            const double wt = prop == GlcmProp::Contrast ? double(d * d)
                              : prop == GlcmProp::Dissimilarity ? double(d < 0 ? -d : d)
                                                                 : 1.0 / (1.0 + double(d * d));
            a[k] += p * wt;
          });
          for (int64_t k = 0; k < w; ++k) o[m0 + k] = a[k];
          break;
        case GlcmProp::Asm:
        case GlcmProp::Energy:
          each([&](int64_t k, int64_t, int64_t, double p) { a[k] += p * p; });
          for (int64_t k = 0; k < w; ++k) o[m0 + k] = prop == GlcmProp::Energy ? std::sqrt(a[k]) : a[k];
          break;
        case GlcmProp::Mean:
        case GlcmProp::Variance:
        case GlcmProp::Std:
          each([&](int64_t k, int64_t i, int64_t, double p) { a[k] += double(i) * p; });
          if (prop != GlcmProp::Mean)
            each([&](int64_t k, int64_t i, int64_t, double p) {
              const double d = double(i) - a[k];
              b[k] += p * (d * d);
            });
          for (int64_t k = 0; k < w; ++k)
            o[m0 + k] = prop == GlcmProp::Mean ? a[k] : prop == GlcmProp::Std ? std::sqrt(b[k]) : b[k];
          break;
        case GlcmProp::Correlation: {
          std::vector<double> mj(w, 0.0), si(w, 0.0), sj(w, 0.0);
          each([&](int64_t k, int64_t i, int64_t j, double p) {
            a[k] += double(i) * p;
            mj[k] += double(j) * p;
          });
          each([&](int64_t k, int64_t i, int64_t j, double p) {
            const double di = double(i) - a[k], dj = double(j) - mj[k];
            si[k] += p * (di * di);
            sj[k] += p * (dj * dj);
            c[k] += p * (di * dj);
          });
          for (int64_t k = 0; k < w; ++k) {
            const double std_i = std::sqrt(si[k]), std_j = std::sqrt(sj[k]);
            o[m0 + k] = std_i < 1e-15 || std_j < 1e-15 ? 1.0 : c[k] / (std_i * std_j);
          }
          break;
        }
      }
    });
  });
}

}  // namespace ndimg::feature
