// stencils' CPU schedule: lines of the last axis over the pool; each stencil's sums go through
// correlate's line sweep (correlate_line: vectorized, each element's taps in order, as correlate_taps adds
// them) into a line of T, and the lines combine as stencils_value combines.
#include <algorithm>
#include <vector>

#include "ndimage/correlate_line.hpp"
#include "ndimage/stencils.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {
namespace {

template <class T>
inline __attribute__((always_inline)) void stencils_lines(const Geometry& g, const std::vector<Taps>& parts,
                                                          const double* w, const T* src, T* dst,
                                                          const StencilCombine& sc, Mode mode, double cval,
                                                          int64_t l0, int64_t l1) {
  const int last = g.ndim - 1;
  const int64_t n = g.shape[last], so = g.out_strides[last];
  Geometry gl = g;  // several stencils write their values into a contiguous line first
  gl.out_strides[last] = 1;
  int64_t most = 0;
  for (const Taps& p : parts) most = std::max(most, p.count);
  std::vector<double> acc(static_cast<size_t>(n));
  std::vector<int64_t> rows(static_cast<size_t>(most));
  std::vector<T> value(static_cast<size_t>(n)), r(static_cast<size_t>(n));
  T* v = value.data();
  T* q = r.data();
  int64_t c[kMaxDim];
  for (int64_t l = l0; l < l1; ++l) {
    const int64_t o = unravel(g, l * n, c);
    if (sc.count == 1) {  // the stencil is the result
      correlate_line(g, parts[0], w, src, dst, c, o, mode, cval, acc, rows);
      continue;
    }
    const double* wk = w;
    for (int64_t k = 0; k < sc.count; wk += parts[size_t(k++)].count) {
      correlate_line(gl, parts[size_t(k)], wk, src, v, c, 0, mode, cval, acc, rows);
      for (int64_t i = 0; i < n; ++i) q[i] = stencil_add(q[i], k, sc, double(v[i]));
    }
    T* out = dst + o;
    for (int64_t i = 0; i < n; ++i) out[i * so] = stencil_finish(q[i], sc);
  }
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
__attribute__((target("avx2"))) void stencils_lines_avx2(const Geometry& g, const std::vector<Taps>& parts,
                                                         const double* w, const T* src, T* dst,
                                                         const StencilCombine& sc, Mode mode, double cval, int64_t l0,
                                                         int64_t l1) {
  stencils_lines(g, parts, w, src, dst, sc, mode, cval, l0, l1);
}
#endif

}  // namespace

void stencils_cpu(const View& in, const View& out, const Taps& t, std::span<const double> w,
                  std::span<const int64_t> counts, const StencilCombine& sc, Mode mode, double cval) {
  const Geometry& g = t.geom;
  std::vector<Taps> parts(counts.size());  // each stencil's taps
  for (size_t k = 0, first = 0; k < counts.size(); first += size_t(counts[k++])) {
    Taps& p = parts[k];
    p.geom = g;
    p.count = counts[k];
    p.offsets.assign(t.offsets.begin() + ptrdiff_t(first) * g.ndim,
                     t.offsets.begin() + ptrdiff_t(first + size_t(p.count)) * g.ndim);
    p.linear.assign(t.linear.begin() + ptrdiff_t(first), t.linear.begin() + ptrdiff_t(first + size_t(p.count)));
  }
  const int last = g.ndim - 1;
  const int64_t n = g.shape[last];
  int64_t lines = 1;
  for (int d = 0; d < last; ++d) lines *= g.shape[d];
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(t.count, 1) / std::max<int64_t>(n, 1));
  auto run = [&]<class T>() {
    auto lines_fn = &stencils_lines<T>;
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) lines_fn = &stencils_lines_avx2<T>;
#endif
    parallel_for(lines, grain, [&](int64_t l0, int64_t l1) {
      lines_fn(g, parts, w.data(), in.ptr<T>(), out.ptr<T>(), sc, mode, cval, l0, l1);
    });
  };
  if (in.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace ndimg::ndimage
