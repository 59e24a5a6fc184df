// Footprint filters as lists of taps: the geometry and the border logic shared by correlate and the
// rank family, on both engines.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "ndimage/boundary.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/ndimage_footprint.hpp"

namespace ndimg::ndimage {

// Passed by value to CUDA kernels (about 1.5 KB of parameters).
struct Geometry {
  int ndim = 0;
  int64_t shape[kMaxDim];        // output shape
  int64_t in_shape[kMaxDim];
  int64_t in_strides[kMaxDim];
  int64_t out_strides[kMaxDim];
  int64_t lo[kMaxDim], hi[kMaxDim];  // lo[d] <= c[d] < hi[d]: every tap lies inside `in` along d
};

// Host-side description of the taps: offsets (K x ndim), and each tap's element offset in `in`.
struct Taps {
  Geometry geom;
  int64_t count = 0;
  std::vector<int64_t> offsets;
  std::vector<int64_t> linear;
};

// Validates the views and the offsets (op names the operation in errors).
Taps make_taps(const View& in, const View& out, std::span<const int64_t> offsets, const char* op);

// Returned by tap_source where the boundary mode supplies cval (element offsets themselves may be negative:
// views with negative strides).
inline constexpr int64_t kCval = INT64_MIN;

// Element offset in `in` read by the tap at relative position `off` from output coordinate `c`, or kCval
// where the boundary mode supplies cval.
NDIMG_HD int64_t tap_source(const Geometry& g, const int64_t* c, const int64_t* off, Mode mode) {
  int64_t o = 0;
  for (int d = 0; d < g.ndim; ++d) {
    int64_t j = extend_index(c[d] + off[d], g.in_shape[d], mode);
    if (j < 0) return kCval;
    o += j * g.in_strides[d];
  }
  return o;
}

NDIMG_HD bool all_taps_inside(const Geometry& g, const int64_t* c) {
  for (int d = 0; d < g.ndim; ++d)
    if (c[d] < g.lo[d] || c[d] >= g.hi[d]) return false;
  return true;
}

// Calls f(k, value) for every tap k of output coordinate c (values read as C; cval outside).
template <class C, class TI, class F>
NDIMG_HD void for_each_tap(const Geometry& g, const int64_t* c, const TI* in, const int64_t* offsets,
                           const int64_t* linear, int64_t count, Mode mode, C cval, F&& f) {
  if (all_taps_inside(g, c)) {
    int64_t base = 0;
    for (int d = 0; d < g.ndim; ++d) base += c[d] * g.in_strides[d];
    for (int64_t k = 0; k < count; ++k) f(k, C(in[base + linear[k]]));
  } else {
    for (int64_t k = 0; k < count; ++k) {
      int64_t o = tap_source(g, c, offsets + k * g.ndim, mode);
      f(k, o == kCval ? cval : C(in[o]));
    }
  }
}

// Element offset of output coordinate c; coordinate of the flat C-order index `idx`.
NDIMG_HD int64_t unravel(const Geometry& g, int64_t idx, int64_t* c) {
  int64_t o = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    c[d] = idx % g.shape[d];
    idx /= g.shape[d];
    o += c[d] * g.out_strides[d];
  }
  return o;
}

// CPU schedule shared by the footprint filters: fn(c, out_offset) for every output element, lines of
// the last axis spread over the pool.
template <class Fn>
void cpu_for_each_output(const Geometry& g, int64_t grain_elems, Fn&& fn);

}  // namespace ndimg::ndimage

#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {

template <class Fn>
void cpu_for_each_output(const Geometry& g, int64_t grain_elems, Fn&& fn) {
  const int last = g.ndim - 1;
  const int64_t n = g.shape[last];
  int64_t lines = 1;
  for (int d = 0; d < last; ++d) lines *= g.shape[d];
  parallel_for(lines, std::max<int64_t>(1, grain_elems / std::max<int64_t>(n, 1)), [&](int64_t l0, int64_t l1) {
    int64_t c[kMaxDim];
    for (int64_t l = l0; l < l1; ++l) {
      int64_t o = unravel(g, l * n, c);
      for (int64_t i = 0; i < n; ++i) {
        c[last] = i;
        fn(c, o + i * g.out_strides[last]);
      }
    }
  });
}

}  // namespace ndimg::ndimage
