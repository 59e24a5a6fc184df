// CPU schedule of Niblack/Sauvola: value and square into double buffers, window sums along each axis, then
// the formula.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/index.hpp"
#include "filters/threshold.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::threshold {
namespace {

// window_sum over every sample of a line: the same additions in the same order, but away from the ends
// (no extension needed) one tap at a time over all samples, which the compiler vectorizes.
void window_sums(const double* src, double* dst, int64_t len, int64_t w) {
  const int64_t h = w / 2, lo = std::min(h, len), hi = std::max(lo, len - h);
  const auto at_end = [&](int64_t j) { dst[j] = window_sum(j, len, w, [&](int64_t q) { return src[q]; }); };
  for (int64_t j = 0; j < lo; ++j) at_end(j);
  for (int64_t j = hi; j < len; ++j) at_end(j);
  std::fill(dst + lo, dst + hi, 0.0);
  for (int64_t t = 0; t < w; ++t) {
    const double* s = src + t - h;
    for (int64_t j = lo; j < hi; ++j) dst[j] += s[j];
  }
}

}  // namespace

void local_threshold_cpu(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind,
                         double k, double r) {
  const int64_t n = in.size();
  // not zeroed: the first pass writes every element, on all threads (first touch)
  std::unique_ptr<double[]> sum_buf(new double[n]), sq_buf(new double[n]);
  double *sum = sum_buf.get(), *sq = sq_buf.get();
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
      // window sums along each axis of the C-order buffers (window_sum's additions, in its order): the
      // innermost axis line by line in place; an outer axis one whole row of the inner axes at a time
      // (contiguous and vectorized, not a strided gather per line) into a second pair of buffers
      std::unique_ptr<double[]> tmp_s, tmp_q;
      int64_t inner = n;
      for (int d = 0; d < in.ndim; ++d) {
        const int64_t len = in.shape[d], w = window[d], h = w / 2;
        inner /= len;
        if (w == 1) continue;
        if (inner == 1) {
          parallel_for(n / len, std::max<int64_t>(1, 4096 / len), [&](int64_t l0, int64_t l1) {
            std::vector<double> os(len), oq(len);
            for (int64_t l = l0; l < l1; ++l) {
              window_sums(sum + l * len, os.data(), len, w);
              window_sums(sq + l * len, oq.data(), len, w);
              std::copy(os.begin(), os.end(), sum + l * len);
              std::copy(oq.begin(), oq.end(), sq + l * len);
            }
          });
          continue;
        }
        if (!tmp_s) {
          tmp_s.reset(new double[n]);
          tmp_q.reset(new double[n]);
        }
        double *ts = tmp_s.get(), *tq = tmp_q.get();
        parallel_for(n / inner, std::max<int64_t>(1, (1 << 14) / inner), [&](int64_t r0, int64_t r1) {
          for (int64_t row = r0; row < r1; ++row) {
            const int64_t o = row / len, j = row % len;
            double *ds = ts + row * inner, *dq = tq + row * inner;
            std::fill(ds, ds + inner, 0.0);
            std::fill(dq, dq + inner, 0.0);
            for (int64_t t = 0; t < w; ++t) {
              const int64_t from = (o * len + extend_index(j - h + t, len, Mode::Mirror)) * inner;
              const double *ss = sum + from, *sq2 = sq + from;
              for (int64_t c = 0; c < inner; ++c) {
                ds[c] += ss[c];
                dq[c] += sq2[c];
              }
            }
          }
        });
        sum_buf.swap(tmp_s);
        sq_buf.swap(tmp_q);
        sum = sum_buf.get();
        sq = sq_buf.get();
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
