// Index arithmetic shared by the engines: C-order flat indices to element offsets.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"

namespace ndimg {

// Offset in elements of the C-order flat index `idx` in a view of `shape`/`strides`; with `skip` an axis,
// of the start of line `idx` along that axis (lines numbered over the other axes in C order).
NDIMG_HD int64_t flat_offset(int64_t idx, int ndim, const int64_t* shape, const int64_t* strides, int skip = -1) {
  if (ndim == 1 && skip < 0) return idx * strides[0];  // idx < shape[0]: no division (see flat_layout)
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    if (d == skip) continue;
    off += (idx % shape[d]) * strides[d];
    idx /= shape[d];
  }
  return off;
}
NDIMG_HD int64_t in_offset(const Layout& l, int64_t i) { return flat_offset(i, l.ndim, l.shape, l.in_strides); }
NDIMG_HD int64_t out_offset(const Layout& l, int64_t i) { return flat_offset(i, l.ndim, l.shape, l.out_strides); }
// The input and output offsets of the start of line `line` along `axis`.
NDIMG_HD int64_t line_in_offset(const Layout& l, int axis, int64_t line) {
  return flat_offset(line, l.ndim, l.shape, l.in_strides, axis);
}
NDIMG_HD int64_t line_out_offset(const Layout& l, int axis, int64_t line) {
  return flat_offset(line, l.ndim, l.shape, l.out_strides, axis);
}

// Fortran-ordered views as C-ordered ones: the tiled CUDA schedules take C-contiguous data, and data in
// Fortran order is the same data with its axes reversed.
inline bool f_contiguous(const View& v) {
  int64_t s = 1;
  for (int i = 0; i < v.ndim; ++i) {
    if (v.shape[i] != 1 && v.strides[i] != s) return false;
    s *= v.shape[i];
  }
  return true;
}

inline View reversed(View v) {
  std::reverse(v.shape.begin(), v.shape.begin() + v.ndim);
  std::reverse(v.strides.begin(), v.strides.begin() + v.ndim);
  return v;
}

// The views as C-contiguous ones (Fortran-ordered data reversed, with the pass axes mapped), or false.
template <class... Axes>
bool as_c_order(View& src, View& dst, Axes&... axes) {
  if (!(src.c_contiguous() && dst.c_contiguous()) && f_contiguous(src) && f_contiguous(dst)) {
    src = reversed(src);
    dst = reversed(dst);
    ((axes = src.ndim - 1 - axes), ...);
  }
  return src.c_contiguous() && dst.c_contiguous();
}

// Calls f(offset_a, offset_b) for the C-order flat indices [begin, end) of two views of one shape (two
// inputs read in step), walking both offsets incrementally.
template <class F>
void for_range2(const View& a, const View& b, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  if (a.ndim == 0) { f(int64_t(0), int64_t(0)); return; }
  const int last = a.ndim - 1;
  int64_t idx[kMaxDim];
  int64_t oa = 0, ob = 0, rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % a.shape[d];
    rem /= a.shape[d];
    oa += idx[d] * a.strides[d];
    ob += idx[d] * b.strides[d];
  }
  const int64_t sa = a.strides[last], sb = b.strides[last];
  for (int64_t i = begin; i < end;) {
    const int64_t run = std::min(end - i, a.shape[last] - idx[last]);
    for (int64_t r = 0; r < run; ++r) f(oa + r * sa, ob + r * sb);
    i += run;
    idx[last] += run;
    oa += run * sa;
    ob += run * sb;
    for (int d = last; d > 0 && idx[d] == a.shape[d]; --d) {
      oa += a.strides[d - 1] - idx[d] * a.strides[d];
      ob += b.strides[d - 1] - idx[d] * b.strides[d];
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

// Calls f(offset) for the C-order flat indices [begin, end) of `v`, walking the offset incrementally.
template <class F>
void for_range(const View& v, int64_t begin, int64_t end, F&& f) {
  for_range2(v, v, begin, end, [&](int64_t o, int64_t) { f(o); });
}

}  // namespace ndimg
