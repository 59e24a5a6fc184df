// Index arithmetic shared by the engines: C-order flat indices to element offsets.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"

namespace ndimg {

// Offset in elements of the C-order flat index `idx` in a view of `shape`/`strides`.
NDIMG_HD int64_t flat_offset(int64_t idx, int ndim, const int64_t* shape, const int64_t* strides) {
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    off += (idx % shape[d]) * strides[d];
    idx /= shape[d];
  }
  return off;
}
NDIMG_HD int64_t in_offset(const Layout& l, int64_t i) { return flat_offset(i, l.ndim, l.shape, l.in_strides); }
NDIMG_HD int64_t out_offset(const Layout& l, int64_t i) { return flat_offset(i, l.ndim, l.shape, l.out_strides); }

// Calls f(offset) for the C-order flat indices [begin, end) of `v`, walking the offset incrementally.
template <class F>
void for_range(const View& v, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  if (v.ndim == 0) { f(int64_t(0)); return; }
  const int last = v.ndim - 1;
  int64_t idx[kMaxDim];
  int64_t off = 0, rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % v.shape[d];
    rem /= v.shape[d];
    off += idx[d] * v.strides[d];
  }
  const int64_t s = v.strides[last];
  for (int64_t i = begin; i < end;) {
    const int64_t run = std::min(end - i, v.shape[last] - idx[last]);
    for (int64_t r = 0; r < run; ++r) f(off + r * s);
    i += run;
    idx[last] += run;
    off += run * s;
    for (int d = last; d > 0 && idx[d] == v.shape[d]; --d) {
      off += v.strides[d - 1] - idx[d] * v.strides[d];
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

}  // namespace ndimg
