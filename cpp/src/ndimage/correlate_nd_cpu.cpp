#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/output.hpp"
#include "ndimage/correlate_nd.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {
namespace {

// One line of the last axis, a few taps at a time over the whole line into a line buffer: each tap reads
// one input row (its other axes boundary-extended once per line) along the last axis, contiguous where it
// lies inside (a loop the compiler vectorizes) and boundary-extended element by element at the ends.
// Every element still adds its taps in correlate_taps' order, so the bits are the same.
template <class C, class TI, class TO>
inline __attribute__((always_inline)) void correlate_line(const Geometry& g, const Taps& t, const C* w,
                                                          const TI* src, TO* dst, const int64_t* c, int64_t o,
                                                          Mode mode, C cval, std::vector<C>& acc,
                                                          std::vector<int64_t>& rows) {
  const int nd = g.ndim, last = nd - 1;
  const int64_t n = g.shape[last], nin = g.in_shape[last], so = g.out_strides[last], si = g.in_strides[last];
  const int64_t* off = t.offsets.data();
  for (int64_t k = 0; k < t.count; ++k) {  // the row each tap reads, or kCval
    int64_t r = 0;
    for (int d = 0; d < last && r != kCval; ++d) {
      const int64_t j = extend_index(c[d] + off[k * nd + d], g.in_shape[d], mode);
      r = j < 0 ? kCval : r + j * g.in_strides[d];
    }
    rows[size_t(k)] = r;
  }
  auto value = [&](int64_t k, int64_t i) {
    const int64_t r = rows[size_t(k)], j = r == kCval ? -1 : extend_index(i + off[k * nd + last], nin, mode);
    return j < 0 ? cval : C(src[r + j * si]);
  };
  // [lo, hi): the elements whose tap k reads inside its row
  auto inside = [&](int64_t k, int64_t& lo, int64_t& hi) {
    const int64_t ol = off[k * nd + last];
    const bool row = rows[size_t(k)] != kCval;
    lo = std::max(lo, row ? std::clamp<int64_t>(-ol, 0, n) : n);
    hi = std::min(hi, row ? std::clamp<int64_t>(nin - ol, 0, n) : 0);
  };
  C* a = acc.data();
  std::fill_n(a, n, C(0));
  constexpr int64_t kGroup = 4;  // taps a sweep: a quarter of the buffer's loads and stores
  int64_t k = 0;
  for (; k < t.count; k += kGroup) {
    const int64_t q = std::min(kGroup, t.count - k);
    int64_t lo = 0, hi = n;
    for (int64_t j = 0; j < q; ++j) inside(k + j, lo, hi);
    hi = std::max(hi, lo);
    auto edge = [&](int64_t i) {
      for (int64_t j = 0; j < q; ++j) a[i] = add_mul(a[i], w[k + j], value(k + j, i));
    };
    for (int64_t i = 0; i < lo; ++i) edge(i);
    for (int64_t i = hi; i < n; ++i) edge(i);
    const TI* s[kGroup];
    for (int64_t j = 0; j < q; ++j) s[j] = src + rows[size_t(k + j)] + off[(k + j) * nd + last] * si;
    auto sweep = [&](auto step) {  // step: a compile-time 1 for contiguous rows
      if (q == kGroup) {
        const C w0 = w[k], w1 = w[k + 1], w2 = w[k + 2], w3 = w[k + 3];
        const TI *s0 = s[0], *s1 = s[1], *s2 = s[2], *s3 = s[3];
        for (int64_t i = lo; i < hi; ++i) {
          const int64_t e = i * step;
          a[i] = add_mul(add_mul(add_mul(add_mul(a[i], w0, C(s0[e])), w1, C(s1[e])), w2, C(s2[e])), w3, C(s3[e]));
        }
      } else {
        for (int64_t j = 0; j < q; ++j) {
          const TI* sj = s[j];
          const C wj = w[k + j];
          for (int64_t i = lo; i < hi; ++i) a[i] = add_mul(a[i], wj, C(sj[i * step]));
        }
      }
    };
    if (si == 1) sweep(std::integral_constant<int64_t, 1>());
    else sweep(si);
  }
  TO* out = dst + o;
  for (int64_t i = 0; i < n; ++i) out[i * so] = cast_to<TO>(a[i]);
}

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
