// CPU schedule of Niblack/Sauvola: value and square into double buffers, window sums along each axis, then
// the formula.
#include <algorithm>
#include <vector>

#include "core/index.hpp"
#include "filters/threshold.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::threshold {

void local_threshold_cpu(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind,
                         double k, double r) {
  const int64_t n = in.size();
  std::vector<double> sum(n), sq(n);
  dispatch_dtype(out.dtype, [&]<class F>() {
    if constexpr (std::is_floating_point_v<F>) {
      dispatch_dtype(in.dtype, [&]<class T>() {
        const T* src = in.ptr<T>();
        parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
          int64_t i = a;
          for_range(in, a, b, [&](int64_t o) {
            const F v = static_cast<F>(src[o]);
            sum[i] = double(v);
            sq[i++] = double(F(v * v));
          });
        });
      });
      // window sums along each axis of the C-order buffers, one line at a time
      int64_t inner = n;
      for (int d = 0; d < in.ndim; ++d) {
        const int64_t len = in.shape[d], w = window[d];
        inner /= len;
        if (w == 1) continue;
        parallel_for(n / len, std::max<int64_t>(1, 4096 / len), [&](int64_t l0, int64_t l1) {
          std::vector<double> ls(len), lq(len);
          for (int64_t l = l0; l < l1; ++l) {
            const int64_t base = (l / inner) * len * inner + l % inner;
            for (int64_t j = 0; j < len; ++j) { ls[j] = sum[base + j * inner]; lq[j] = sq[base + j * inner]; }
            for (int64_t j = 0; j < len; ++j) {
              sum[base + j * inner] = window_sum(j, len, w, [&](int64_t q) { return ls[q]; });
              sq[base + j * inner] = window_sum(j, len, w, [&](int64_t q) { return lq[q]; });
            }
          }
        });
      }
      int64_t area = 1;
      for (int64_t w : window) area *= w;
      const F size = F(area);
      F* dst = out.ptr<F>();
      parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
        int64_t i = a;
        for_range(out, a, b, [&](int64_t o) {
          dst[o] = local_value<F>(sum[i], sq[i], size, kind, F(k), F(r));
          ++i;
        });
      });
    }
  });
}

}  // namespace ndimg::threshold
