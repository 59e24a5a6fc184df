// The CPU engine's line sweep of n-D correlation, shared by correlate and stencils.
#pragma once
#include <algorithm>
#include <type_traits>
#include <vector>

#include "ndimage/correlate_nd.hpp"

namespace ndimg::ndimage {

// The input row each tap reads for the output line at `c` (its other axes boundary-extended), or kCval:
// the line sweeps of correlate, stencils and the grey filters.
inline __attribute__((always_inline)) void tap_rows(const Geometry& g, const Taps& t, const int64_t* c, Mode mode,
                                                    int64_t* rows) {
  const int nd = g.ndim, last = nd - 1;
  const int64_t* off = t.offsets.data();
  for (int64_t k = 0; k < t.count; ++k) {
    int64_t r = 0;
    for (int d = 0; d < last && r != kCval; ++d) {
      const int64_t j = extend_index(c[d] + off[k * nd + d], g.in_shape[d], mode);
      r = j < 0 ? kCval : r + j * g.in_strides[d];
    }
    rows[k] = r;
  }
}

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
  tap_rows(g, t, c, mode, rows.data());
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
    // always_inline: out of line (this header's external linkage leaves it so) the loop reads its captures
    // through the closure and does not vectorize: 6x slower
    auto sweep = [&](auto step) __attribute__((always_inline)) {  // step: a compile-time 1 for contiguous rows
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

}  // namespace ndimg::ndimage
