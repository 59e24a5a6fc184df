// CPU schedules of the local binary patterns and the FAST and Moravec responses: bands of rows on the pool.
#include <algorithm>

#include "feature/each_pixel.hpp"
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

void corner_moravec_cpu(const View& image, int64_t w, const View& out) {
  const int64_t side = 2 * w + 1, cost = side * side * side * side;
  run_float<MoravecResponse>(image, out, cost, w);
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

}  // namespace ndimg::feature
