#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/output.hpp"
#include "ndimage/correlate_line.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {
namespace {

// A range of lines, compiled for the baseline ISA and, on x86, for AVX2 (chosen at run time; the same
// operations, wider: no FMA, as target("avx2") does not enable it).
template <class C, class TI, class TO>
inline __attribute__((always_inline)) void correlate_lines(const Geometry& g, const Taps& t, const C* w, const TI* src, TO* dst, Mode mode, C cval,
                     int64_t l0, int64_t l1) {
  const int64_t n = g.shape[g.ndim - 1];
  std::vector<C> acc(static_cast<size_t>(n));
  std::vector<int64_t> rows(static_cast<size_t>(t.count));
  int64_t c[kMaxDim];
  for (int64_t l = l0; l < l1; ++l)
    correlate_line(g, t, w, src, dst, c, unravel(g, l * n, c), mode, cval, acc, rows);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class C, class TI, class TO>
__attribute__((target("avx2"))) void correlate_lines_avx2(const Geometry& g, const Taps& t, const C* w,
                                                          const TI* src, TO* dst, Mode mode, C cval, int64_t l0,
                                                          int64_t l1) {
  correlate_lines(g, t, w, src, dst, mode, cval, l0, l1);
}
#endif

}  // namespace

void correlate(const View& in, const View& out, std::span<const int64_t> offsets, std::span<const double> w,
               Mode mode, double cval, StreamHandle stream) {
  const char* op = "correlate";
  const Taps t = make_taps(in, out, offsets, op);
  if (int64_t(w.size()) != t.count) throw ValueError("correlate: one weight per offset is required");
  if (out.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, correlate_cuda(in, out, t, w, mode, cval, stream));
    return;
  }
  // CPU schedule: lines of the last axis over the pool (correlate_line).
  dispatch_dtype(in.dtype, [&]<class TI>() {
    const TI* src = in.ptr<TI>();
    with_kernel_output_cpu<TI>(out, [&]<class TO>(const View& ov) {
      using C = correlate_t<TI, TO>;
      const std::vector<C> wc(w.begin(), w.end());
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = ov.strides[d];
      TO* dst = ov.ptr<TO>();
      const int last = g.ndim - 1;
      const int64_t n = g.shape[last];
      int64_t lines = 1;
      for (int d = 0; d < last; ++d) lines *= g.shape[d];
      const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(t.count, 1) / std::max<int64_t>(n, 1));
      auto lines_fn = &correlate_lines<C, TI, TO>;
#if defined(__x86_64__) && defined(__GNUC__)
      static const bool avx2 = __builtin_cpu_supports("avx2");
      if (avx2) lines_fn = &correlate_lines_avx2<C, TI, TO>;
#endif
      parallel_for(lines, grain, [&](int64_t l0, int64_t l1) {
        lines_fn(g, t, wc.data(), src, dst, mode, C(cval), l0, l1);
      });
    });
  });
}

}  // namespace ndimg::ndimage
