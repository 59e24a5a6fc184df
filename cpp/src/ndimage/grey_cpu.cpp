#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/output.hpp"
#include "ndimage/correlate_line.hpp"
#include "ndimage/grey.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {
namespace {

// One line of the last axis, one tap at a time over the whole line into a buffer (every element still folds
// its taps in order, as grey_taps): each tap reads one input row (its other axes boundary-extended once per
// line), contiguous where it lies inside (a loop the compiler vectorizes) and boundary-extended element by
// element at the ends. Acc: double, or A for flat footprints where A's comparisons are double's (floats,
// integers up to 32 bits), which halves the buffer and doubles the vector width for float32.
template <bool Minimum, class Acc, class A, class TI, class TO>
inline __attribute__((always_inline)) void grey_line(const Geometry& g, const Taps& t, const double* s,
                                                     const A* sa, const TI* src, TO* dst, const int64_t* c, int64_t o,
                                                     Mode mode, A cval, Acc* acc, int64_t* rows) {
  const int nd = g.ndim, last = nd - 1;
  const int64_t n = g.shape[last], nin = g.in_shape[last], so = g.out_strides[last], si = g.in_strides[last];
  const int64_t* off = t.offsets.data();
  tap_rows(g, t, c, mode, rows);
  for (int64_t k = 0; k < t.count; ++k) {
    const int64_t r = rows[k], ol = off[k * nd + last];
    const int64_t lo = r == kCval ? n : std::clamp<int64_t>(-ol, 0, n);
    const int64_t hi = std::max(lo, r == kCval ? 0 : std::clamp<int64_t>(nin - ol, 0, n));
    auto fold = [&](int64_t i, A v) __attribute__((always_inline)) {
      acc[i] = k == 0 ? Acc(grey_first(v, s)) : grey_fold<Minimum>(acc[i], Acc(grey_later(v, sa, k)));
    };
    auto edge = [&](int64_t i) {
      const int64_t j = r == kCval ? -1 : extend_index(i + ol, nin, mode);
      fold(i, j < 0 ? cval : A(src[r + j * si]));
    };
    for (int64_t i = 0; i < lo; ++i) edge(i);
    for (int64_t i = hi; i < n; ++i) edge(i);
    const TI* p = r == kCval ? src : src + r + ol * si;
    // the first tap, later taps and contiguous rows as separate loops, each one the compiler vectorizes
    auto sweep = [&](auto first, auto step) __attribute__((always_inline)) {
      if constexpr (first) {
        for (int64_t i = lo; i < hi; ++i) acc[i] = Acc(grey_first(A(p[i * step]), s));
      } else {
        const A sk = sa ? sa[k] : A(0);
        if (sa) {
          for (int64_t i = lo; i < hi; ++i) acc[i] = grey_fold<Minimum>(acc[i], Acc(wrap_add(A(p[i * step]), sk)));
        } else {
          for (int64_t i = lo; i < hi; ++i) acc[i] = grey_fold<Minimum>(acc[i], Acc(A(p[i * step])));
        }
      }
    };
    using One = std::integral_constant<int64_t, 1>;
    if (k == 0) {
      if (si == 1) sweep(std::true_type(), One());
      else sweep(std::true_type(), si);
    } else {
      if (si == 1) sweep(std::false_type(), One());
      else sweep(std::false_type(), si);
    }
  }
  TO* out = dst + o;
  for (int64_t i = 0; i < n; ++i) out[i * so] = cast_to<TO>(acc[i]);
}

// A range of lines, compiled for the baseline ISA and, on x86, for AVX2 (chosen at run time; the same
// operations, wider).
template <bool Minimum, class Acc, class A, class TI, class TO>
inline __attribute__((always_inline)) void grey_lines(const Geometry& g, const Taps& t, const double* s,
                                                      const A* sa, const TI* src, TO* dst, Mode mode, A cval,
                                                      int64_t l0, int64_t l1) {
  const int64_t n = g.shape[g.ndim - 1];
  std::vector<Acc> acc(static_cast<size_t>(n));
  std::vector<int64_t> rows(static_cast<size_t>(t.count));
  int64_t c[kMaxDim];
  for (int64_t l = l0; l < l1; ++l)
    grey_line<Minimum>(g, t, s, sa, src, dst, c, unravel(g, l * n, c), mode, cval, acc.data(), rows.data());
}
template <bool Minimum, class Acc, class A, class TI, class TO>
void grey_lines_base(const Geometry& g, const Taps& t, const double* s, const A* sa, const TI* src, TO* dst,
                     Mode mode, A cval, int64_t l0, int64_t l1) {
  grey_lines<Minimum, Acc>(g, t, s, sa, src, dst, mode, cval, l0, l1);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <bool Minimum, class Acc, class A, class TI, class TO>
__attribute__((target("avx2"))) void grey_lines_avx2(const Geometry& g, const Taps& t, const double* s, const A* sa,
                                                     const TI* src, TO* dst, Mode mode, A cval, int64_t l0,
                                                     int64_t l1) {
  grey_lines<Minimum, Acc>(g, t, s, sa, src, dst, mode, cval, l0, l1);
}
#endif

template <bool Minimum, class Acc, class A, class TI, class TO>
auto pick_lines() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return &grey_lines_avx2<Minimum, Acc, A, TI, TO>;
#endif
  return &grey_lines_base<Minimum, Acc, A, TI, TO>;
}

}  // namespace

void grey_filter(const View& in, const View& out, std::span<const int64_t> offsets, std::span<const double> s,
                 bool minimum, Mode mode, double cval, StreamHandle stream) {
  const char* op = minimum ? "grey_erosion" : "grey_dilation";
  require_same_shape(in, out, op);
  const Taps t = make_taps(in, out, offsets, op);
  if (t.count == 0) throw ValueError(std::string(op) + ": the footprint has no taps");
  if (!s.empty() && int64_t(s.size()) != t.count)
    throw ValueError(std::string(op) + ": one structure value per offset is required");
  if (out.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, grey_filter_cuda(in, out, t, s, minimum, mode, cval, stream));
    return;
  }
  // CPU schedule: lines of the last axis over the pool (grey_line).
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using A = grey_t<TI>;
    std::vector<A> sa;
    for (double x : s) sa.push_back(cast_to<A>(x));
    const double* sp = s.empty() ? nullptr : s.data();
    const A* sap = s.empty() ? nullptr : sa.data();
    const TI* src = in.ptr<TI>();
    with_kernel_output_cpu<TI>(out, [&]<class TO>(const View& ov) {
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = ov.strides[d];
      TO* dst = ov.ptr<TO>();
      const int last = g.ndim - 1;
      const int64_t n = g.shape[last];
      int64_t lines_total = 1;
      for (int d = 0; d < last; ++d) lines_total *= g.shape[d];
      const int64_t grain = std::max<int64_t>(1, 32768 / t.count / std::max<int64_t>(n, 1));
      // flat footprints of floats and of integers up to 32 bits fold in A, others in double
      constexpr bool narrow = std::is_floating_point_v<A> || sizeof(A) <= 4;
      using Narrow = std::conditional_t<narrow, A, double>;
      const bool flat = sp == nullptr;
      auto lines = minimum ? (flat ? pick_lines<true, Narrow, A, TI, TO>() : pick_lines<true, double, A, TI, TO>())
                           : (flat ? pick_lines<false, Narrow, A, TI, TO>() : pick_lines<false, double, A, TI, TO>());
      parallel_for(lines_total, grain, [&](int64_t l0, int64_t l1) {
        lines(g, t, sp, sap, src, dst, mode, cast_to<A>(cval), l0, l1);
      });
    });
  });
}

}  // namespace ndimg::ndimage
