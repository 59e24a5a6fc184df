// The math of B-spline sampling, once for both engines, as scipy's ni_interpolation.c defines it: the
// boundary mapping of coordinates and of the taps, the spline weights of orders 0-5, and the
// tensor-product accumulation over the taps of every axis.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/interp.hpp"

namespace ndimg::interp {

constexpr int kMaxOrder = 5;

// Unrolls the loop that follows where its trip count is a compile-time constant.
#if defined(__CUDACC__)
#define NDIMG_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define NDIMG_UNROLL _Pragma("clang loop unroll(full)")
#else
#define NDIMG_UNROLL _Pragma("GCC unroll 8")
#endif
// Keeps the loop that follows rolled on CUDA (run-time trip counts: unrolled copies only cost compile time).
#if defined(__CUDACC__)
#define NDIMG_NO_UNROLL _Pragma("unroll 1")
#else
#define NDIMG_NO_UNROLL
#endif
constexpr int kTaps = kMaxOrder + 1;

// C's (npy_intp) cast of a value the callers keep far inside int64's range.
NDIMG_HD int64_t to_index(double v) { return static_cast<int64_t>(v); }

// scipy's map_coordinate: a coordinate outside [0, len - 1] mapped back inside by the mode; -1 where the
// constant mode gives cval. grid-constant coordinates pass unchanged.
NDIMG_HD double map_coordinate(double in, int64_t len, Mode mode) {
  // beyond about 2^50 the mirror arithmetic below would overflow int64 (and the result has no fraction
  // left anyway): such coordinates are brought within range keeping their side
  constexpr double kFar = 1e15;
  if (in < -kFar) in = -kFar;
  else if (in > kFar) in = kFar;
  if (in < 0) {
    switch (mode) {
      case Mode::mirror:
        if (len <= 1) return 0;
        {
          const int64_t sz2 = 2 * len - 2;
          in = double(sz2 * to_index(-in / double(sz2))) + in;
          return in <= double(1 - len) ? in + double(sz2) : -in;
        }
      case Mode::reflect:
        if (len <= 1) return 0;
        {
          const int64_t sz2 = 2 * len;
          if (in < double(-sz2)) in = double(sz2 * to_index(-in / double(sz2))) + in;
          // scipy: -1e-15 guards (-in - 1) == -1
          return in < double(-len) ? in + double(sz2) : (in > -1e-15 ? 1e-15 : -in) - 1;
        }
      case Mode::wrap:
        if (len <= 1) return 0;
        {
          const int64_t sz = len - 1;
          return in + double(sz * (to_index(-in / double(sz)) + 1));
        }
      case Mode::grid_wrap:
        if (len <= 1) return 0;
        return in + double(len * (to_index((-1 - in) / double(len)) + 1));
      case Mode::nearest: return 0;
      case Mode::constant: return -1;
      default: return in;
    }
  }
  if (in > double(len - 1)) {
    switch (mode) {
      case Mode::mirror:
        if (len <= 1) return 0;
        {
          const int64_t sz2 = 2 * len - 2;
          in -= double(sz2 * to_index(in / double(sz2)));
          return in >= double(len) ? double(sz2) - in : in;
        }
      case Mode::reflect:
        if (len <= 1) return 0;
        {
          const int64_t sz2 = 2 * len;
          in -= double(sz2 * to_index(in / double(sz2)));
          return in >= double(len) ? double(sz2) - in - 1 : in;
        }
      case Mode::wrap:
        if (len <= 1) return 0;
        {
          const int64_t sz = len - 1;
          return in - double(sz * to_index(in / double(sz)));
        }
      case Mode::grid_wrap:
        if (len <= 1) return 0;
        return in - double(len * to_index(in / double(len)));
      case Mode::nearest: return double(len - 1);
      case Mode::constant: return -1;
      default: return in;
    }
  }
  return in;
}

// The extension of the taps beyond the edge: modes without an exact spline boundary (constant, wrap)
// extend the coefficients by mirroring, as scipy does.
NDIMG_HD Mode tap_mode(Mode m) { return m == Mode::constant || m == Mode::wrap ? Mode::mirror : m; }

// map_coordinate of an integer tap index under a tap mode (mirror, reflect, grid-wrap, nearest), in integer
// arithmetic: the same index (a tap lies within a few elements of the input, where scipy's double divisions
// are exact).
NDIMG_HD int64_t extend_tap(int64_t i, int64_t len, Mode mode) {
  if (i >= 0 && i < len) return i;
  if (len <= 1) return 0;
  switch (mode) {
    case Mode::mirror: {
      const int64_t sz2 = 2 * len - 2;
      if (i < 0) {
        i += sz2 * (-i / sz2);
        return i <= 1 - len ? i + sz2 : -i;
      }
      i -= sz2 * (i / sz2);
      return i >= len ? sz2 - i : i;
    }
    case Mode::reflect: {
      const int64_t sz2 = 2 * len;
      if (i < 0) {
        if (i < -sz2) i += sz2 * (-i / sz2);
        return i < -len ? i + sz2 : -i - 1;
      }
      i -= sz2 * (i / sz2);
      return i >= len ? sz2 - i - 1 : i;
    }
    case Mode::grid_wrap:
      if (i < 0) return i + len * ((-1 - i) / len + 1);
      return i - len * (i / len);
    default:  // nearest
      return i < 0 ? 0 : len - 1;
  }
}

// f(k) for the taps k = 0..order: unrolled where the order is a compile-time constant (O >= 0).
template <int O, class F>
NDIMG_HD void for_taps(int order, const F& f) {
  if constexpr (O >= 0) {
    NDIMG_UNROLL
    for (int k = 0; k <= O; ++k) f(k);
  } else {
    NDIMG_NO_UNROLL
    for (int k = 0; k <= order; ++k) f(k);
  }
}

// What a schedule needs of a call, passed by value to the CUDA kernels.
struct Geometry {
  int in_nd = 0, out_nd = 0;
  int order[kMaxDim];  // per input axis
  Mode mode = Mode::constant;
  double cval = 0;
  int64_t in_shape[kMaxDim], in_strides[kMaxDim];
  int64_t out_shape[kMaxDim], out_strides[kMaxDim];
  double npad[kMaxDim];
};

// floor(x), without a libm call where x is within int64's range (x86-64's baseline has no rounding
// instruction): the same value.
NDIMG_HD double floor_fast(double x) {
  if (!(x > -4e18 && x < 4e18)) return floor(x);
  const double t = double(static_cast<int64_t>(x));
  return t > x ? t - 1.0 : t;
}

// scipy's get_spline_interpolation_weights: the order + 1 weights of the taps around x, from the fraction
// f = x - floor(x) (odd orders) or x - floor(x + 0.5) (even orders) found in double; W is the arithmetic of
// the polynomials (double, or float for float32 data on CUDA).
template <class W>
NDIMG_HD void spline_weights(double frac, int order, W* w) {
  if (order == 0) {
    w[0] = W(1);
    return;
  }
  const W f = W(frac);
  W y = f, z = W(1) - f, t;
  switch (order) {
    case 1:
      w[0] = W(1) - f;
      break;
    case 2:
      w[1] = W(0.75) - f * f;
      y = W(0.5) - f;
      w[0] = W(0.5) * y * y;
      break;
    case 3:
      w[1] = (y * y * (y - W(2)) * W(3) + W(4)) / W(6);
      w[2] = (z * z * (z - W(2)) * W(3) + W(4)) / W(6);
      w[0] = z * z * z / W(6);
      break;
    case 4:
      t = f * f;
      w[2] = t * (t * W(0.25) - W(0.625)) + W(115.0 / 192.0);
      y = W(1) + f;
      w[1] = y * (y * (y * (W(5) - y) / W(6) - W(1.25)) + W(5.0 / 24.0)) + W(55.0 / 96.0);
      w[3] = z * (z * (z * (W(5) - z) / W(6) - W(1.25)) + W(5.0 / 24.0)) + W(55.0 / 96.0);
      y = W(0.5) - f;
      t = y * y;
      w[0] = t * t / W(24);
      break;
    default:  // 5
      t = y * y;
      w[2] = t * (t * (W(0.25) - y / W(12)) - W(0.5)) + W(0.55);
      t = z * z;
      w[3] = t * (t * (W(0.25) - z / W(12)) - W(0.5)) + W(0.55);
      y += W(1);
      w[1] = y * (y * (y * (y * (y / W(24) - W(0.375)) + W(1.25)) - W(1.75)) + W(0.625)) + W(0.425);
      z += W(1);
      w[4] = z * (z * (z * (z * (z / W(24) - W(0.375)) + W(1.25)) - W(1.75)) + W(0.625)) + W(0.425);
      y = W(1) - f;
      t = y * y;
      w[0] = y * t * t / W(120);
      break;
  }
  // the weights add up to one: the last is what the others leave
  W last = W(1);
  for (int i = 0; i < order; ++i) last -= w[i];
  w[order] = last;
}

// The taps of one output point along one input axis: element offsets (index * stride), weights, and which
// taps lie outside the input in grid-constant mode (they read cval).
template <class W>
struct AxisTaps {
  int64_t off[kTaps];
  W w[kTaps];
  int n;             // order + 1 taps
  unsigned outside;  // bit k: tap k reads cval
};

// The taps along an axis of length `len` for input coordinate cc (npad already added); false where the
// whole point takes cval (constant mode outside [0, len - 1], or a NaN coordinate). O >= 0: the order known
// at compile time (the loops unroll), else `order`.
template <int O = -1, class W>
NDIMG_HD bool axis_taps(double cc, int64_t len, int64_t stride, Mode mode, int order_rt, AxisTaps<W>& t) {
  const int order = O >= 0 ? O : order_rt;
  const bool unmapped = mode == Mode::grid_constant || mode == Mode::nearest;
  if (!unmapped) {
    cc = map_coordinate(cc, len, mode);
    if (!(cc > -1.0)) return false;
  }
  const double fl = floor_fast(order & 1 ? cc : cc + 0.5);
  double first = fl - double(order / 2);
  // unmapped coordinates may lie anywhere (or be NaN: scipy's cast gives INT64_MIN, all taps below 0):
  // beyond a tap's length of the edges every tap extends the same way
  const double lo = -double(order + 2), hi = double(len + 1);
  if (!(first >= lo)) first = lo;
  else if (first > hi) first = hi;
  const int64_t start = to_index(first);
  t.n = order + 1;
  t.outside = 0;
  if (mode == Mode::grid_constant) {
    for_taps<O>(order, [&](int k) {
      const int64_t idx = start + k;
      const bool out = idx < 0 || idx >= len;
      t.outside |= unsigned(out) << k;
      t.off[k] = out ? 0 : idx * stride;
    });
  } else if (start < 0 || start + order >= len) {
    const Mode tm = tap_mode(mode);
    for_taps<O>(order, [&](int k) { t.off[k] = extend_tap(start + k, len, tm) * stride; });
  } else {
    for_taps<O>(order, [&](int k) { t.off[k] = (start + k) * stride; });
  }
  spline_weights(cc - fl, order, t.w);
  return true;
}

// axis_taps of an order-O axis (O known at compile time) where cc lies in [0, len - 1] and all its taps inside
// the input: no boundary mapping, so the same taps in a fraction of the instructions; false elsewhere (and
// for NaN), where the caller takes axis_taps. Most points of a transform are such points.
template <int O, class W>
NDIMG_HD bool inner_taps(double cc, int64_t len, int64_t stride, AxisTaps<W>& t) {
  if (!(cc >= 0.0 && cc <= double(len - 1))) return false;
  const double fl = floor_fast(O & 1 ? cc : cc + 0.5);
  const int64_t start = to_index(fl) - O / 2;
  if (start < 0 || start + O >= len) return false;
  t.n = O + 1;
  t.outside = 0;
  for_taps<O>(O, [&](int k) { t.off[k] = (start + k) * stride; });
  spline_weights(cc - fl, O, t.w);
  return true;
}

// Reads input elements as W (bool and integers converted as scipy's C casts do).
template <class TI, class W>
struct Reader {
  const TI* in;
  NDIMG_HD W operator()(int64_t o) const {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<TI, bool>) return W(__ldg(reinterpret_cast<const unsigned char*>(in + o)) != 0);
    else return W(__ldg(in + o));
#else
    return W(in[o]);
#endif
  }
};

// scipy's sum over the taps in C order (axis ND - 1 fastest), each term the value times the weights of
// axes 0, 1, ... in turn: the same roundings as scipy's, so that integer outputs round the same way.
// ax(d) is axis d's taps; taps of axes [0, D) are chosen: `off` their offsets summed, `w` their weights,
// `outside` whether one of them lies outside the input (grid-constant: the value is cval). N > 0: every
// axis has N taps (known at compile time), else each its own.
template <int N, int D, int ND, class W, class A, class R>
NDIMG_HD void accumulate(const A& ax, int64_t off, bool outside, W* w, W cval, const R& read, W& t) {
  const AxisTaps<W>& a = ax(D);
  auto tap = [&](int k) {
    const bool o = outside || ((a.outside >> k) & 1u);
    w[D] = a.w[k];
    if constexpr (D + 1 == ND) {
      W term = o ? cval : read(off + a.off[k]);
      NDIMG_UNROLL
      for (int d = 0; d < ND; ++d) term *= w[d];
      t += term;
    } else {
      accumulate<N, D + 1, ND>(ax, off + a.off[k], o, w, cval, read, t);
    }
  };
  if constexpr (N > 0) {
    if (N > 1 && a.n == 1) {  // an axis of order 0 among axes of order N - 1
      tap(0);
      return;
    }
    NDIMG_UNROLL
    for (int k = 0; k < N; ++k) tap(k);
  } else {
    NDIMG_NO_UNROLL
    for (int k = 0; k < a.n; ++k) tap(k);
  }
}

// The same for any number of axes, the taps numbered in C order.
template <class W, class A, class R>
NDIMG_HD W accumulate_any(const A& ax, int nd, W cval, const R& read) {
  int64_t total = 1;
  for (int d = 0; d < nd; ++d) total *= ax(d).n;
  int k[kMaxDim];
  for (int d = 0; d < nd; ++d) k[d] = 0;
  W t = W(0);
  for (int64_t tap = 0; tap < total; ++tap) {
    int64_t off = 0;
    bool o = false;
    for (int d = 0; d < nd; ++d) {
      off += ax(d).off[k[d]];
      o |= (ax(d).outside >> k[d]) & 1u;
    }
    W term = o ? cval : read(off);
    for (int d = 0; d < nd; ++d) term *= ax(d).w[k[d]];
    t += term;
    for (int d = nd - 1; d >= 0 && ++k[d] == ax(d).n; --d) k[d] = 0;
  }
  return t;
}

// The sampled value of one point from its per-axis taps ax(d): ND > 0 axes known at compile time, else nd;
// O >= 0 the order of every axis, else each axis's own.
template <int O, int ND, class W, class A, class R>
NDIMG_HD W sample(const A& ax, int nd, W cval, const R& read) {
  constexpr int N = O >= 0 ? O + 1 : 0;
  W w[3], t = W(0);
  if constexpr (ND >= 1 && ND <= 3) {
    accumulate<N, 0, ND>(ax, 0, false, w, cval, read, t);
    return t;
  } else {
    switch (nd) {
      case 1: accumulate<N, 0, 1>(ax, 0, false, w, cval, read, t); return t;
      case 2: accumulate<N, 0, 2>(ax, 0, false, w, cval, read, t); return t;
      case 3: accumulate<N, 0, 3>(ax, 0, false, w, cval, read, t); return t;
      default: return accumulate_any(ax, nd, cval, read);
    }
  }
}

// The value of the point at input coordinates c (before npad), cval where the mode says so.
template <int O, int ND, class W, class R>
NDIMG_HD W sample_point(const Geometry& g, const double* c, const R& read) {
  constexpr int M = ND > 0 ? ND : kMaxDim;
  AxisTaps<W> taps[M];
  if constexpr (O > 0 && ND > 0) {
    bool inner = true;
    NDIMG_UNROLL
    for (int d = 0; d < ND; ++d)
      inner = inner && g.order[d] == O && inner_taps<O>(c[d] + g.npad[d], g.in_shape[d], g.in_strides[d], taps[d]);
    if (inner) return sample<O, ND>([&](int d) -> const AxisTaps<W>& { return taps[d]; }, ND, W(g.cval), read);
  }
  auto axis = [&](int d) {
    const double cc = c[d] + g.npad[d];
    if (O > 0 && g.order[d] == 0)  // an axis of order 0 among axes of order O
      return axis_taps<0>(cc, g.in_shape[d], g.in_strides[d], g.mode, 0, taps[d]);
    return axis_taps<O>(cc, g.in_shape[d], g.in_strides[d], g.mode, g.order[d], taps[d]);
  };
  if constexpr (ND > 0) {
    NDIMG_UNROLL
    for (int d = 0; d < ND; ++d)
      if (!axis(d)) return W(g.cval);
  } else {
    NDIMG_NO_UNROLL
    for (int d = 0; d < g.in_nd; ++d)
      if (!axis(d)) return W(g.cval);
  }
  return sample<O, ND>([&](int d) -> const AxisTaps<W>& { return taps[d]; }, ND > 0 ? ND : g.in_nd, W(g.cval), read);
}

// Calls f.template operator()<O, ND>() with the order O and the input's dimensionality ND as compile-time
// constants where the input type is float or double (the types that matter for speed: float32 images,
// float64 spline coefficients), every axis has one order and ND <= 3; else with O = -1 and ND = 0 (read
// at run time), which keeps the other instantiations few.
template <class TI, int MaxOrder = kMaxOrder, class F>
void dispatch_compiled(const Geometry& g, F&& f) {
  // (the output's axes as many as the input's: the schedules size their index arrays by ND)
  // axes of order 0 beside the others (rotate's axes off its plane) are read with one tap at run time
  int top = 0;
  for (int d = 0; d < g.in_nd; ++d) top = g.order[d] > top ? g.order[d] : top;
  bool compiled = (std::is_same_v<TI, float> || std::is_same_v<TI, double>) && top <= MaxOrder &&
                  g.out_nd == g.in_nd;
  for (int d = 0; d < g.in_nd && compiled; ++d) compiled = g.order[d] == top || g.order[d] == 0;
  if constexpr (std::is_same_v<TI, float> || std::is_same_v<TI, double>) {
    if (compiled) {
      auto by_nd = [&]<int O>() {
        switch (g.in_nd) {
          case 1: f.template operator()<O, 1>(); break;
          case 2: f.template operator()<O, 2>(); break;
          case 3: f.template operator()<O, 3>(); break;
          default: f.template operator()<O, 0>(); break;
        }
      };
      switch (top) {
        case 0: by_nd.template operator()<0>(); return;
        case 1: by_nd.template operator()<1>(); return;
        case 2: by_nd.template operator()<2 <= MaxOrder ? 2 : -1>(); return;
        case 3: by_nd.template operator()<3 <= MaxOrder ? 3 : -1>(); return;
        case 4: by_nd.template operator()<4 <= MaxOrder ? 4 : -1>(); return;
        default: by_nd.template operator()<5 <= MaxOrder ? 5 : -1>(); return;
      }
    }
  }
  f.template operator()<-1, 0>();
}

// scipy's store of a result: integer dtypes round half away from zero and clip to their range, then C's
// conversion as x86 performs it where scipy's clipping leaves an out-of-range value (NaN: the smallest
// int32/int64, 0 for int8/int16; 2^64 for uint64: 0; 2^63 for int64: its largest value, as scipy's wheel
// gives); floats are C casts. scipy stores a bool output as the low byte of x86's int32 conversion (NaN and
// values beyond int32: INT32_MIN): true where that byte is nonzero (-358.2 is, 256 and 4e9 are not).
template <class TO, class W>
NDIMG_HD TO store_value(W tw) {
  if constexpr (std::is_floating_point_v<TO>) {
    return TO(tw);
  } else if constexpr (std::is_same_v<TO, bool>) {
    const double t = double(tw);
    const int32_t i = t > -2147483649.0 && t < 2147483648.0 ? static_cast<int32_t>(t) : INT32_MIN;
    return (i & 0xFF) != 0;
  } else {
    double t = double(tw);
    constexpr double hi = double(std::numeric_limits<TO>::max()), lo = double(std::numeric_limits<TO>::min());
    if constexpr (std::is_unsigned_v<TO>) {
      t = t > 0 ? t + 0.5 : 0;  // NaN: 0
      if (t >= hi) return sizeof(TO) == 8 ? TO(0) : std::numeric_limits<TO>::max();
      return static_cast<TO>(t);
    } else {
      t = t > 0 ? t + 0.5 : t - 0.5;
      if (!(t == t)) return sizeof(TO) >= 4 ? std::numeric_limits<TO>::min() : TO(0);
      if (t >= hi) return std::numeric_limits<TO>::max();
      if (t <= lo) return std::numeric_limits<TO>::min();
      return static_cast<TO>(t);
    }
  }
}

NDIMG_HD void store(void* out, int64_t o, DType dt, double t) {
  switch (dt) {
    case DType::Bool: static_cast<bool*>(out)[o] = store_value<bool>(t); break;
    case DType::U8: static_cast<uint8_t*>(out)[o] = store_value<uint8_t>(t); break;
    case DType::U16: static_cast<uint16_t*>(out)[o] = store_value<uint16_t>(t); break;
    case DType::U32: static_cast<uint32_t*>(out)[o] = store_value<uint32_t>(t); break;
    case DType::U64: static_cast<uint64_t*>(out)[o] = store_value<uint64_t>(t); break;
    case DType::I8: static_cast<int8_t*>(out)[o] = store_value<int8_t>(t); break;
    case DType::I16: static_cast<int16_t*>(out)[o] = store_value<int16_t>(t); break;
    case DType::I32: static_cast<int32_t*>(out)[o] = store_value<int32_t>(t); break;
    case DType::I64: static_cast<int64_t*>(out)[o] = store_value<int64_t>(t); break;
    case DType::F32: static_cast<float*>(out)[o] = float(t); break;
    case DType::F64: static_cast<double*>(out)[o] = t; break;
  }
}


// scipy's zoom/shift coordinate of output index k along one axis.
NDIMG_HD double zoom_shift_coordinate(int64_t k, bool has_zoom, double zoom, bool has_shift, double shift,
                                      bool grid_mode) {
  double cc = double(k);
  if (has_shift) cc += shift;
  if (has_zoom) cc = grid_mode ? mul_rn(cc + 0.5, zoom) - 0.5 : cc * zoom;
  return cc;
}

// scipy's affine coordinates of output point o: c[h] = offset[h] + o[0] * m[h, 0] + o[1] * m[h, 1] + ...
// (ND > 0: input and output both have ND axes).
template <int ND = 0>
NDIMG_HD void affine_coordinates(const double* m, const double* offset, const int64_t* o, int in_nd, int out_nd,
                                 double* c) {
  const int ni = ND > 0 ? ND : in_nd, no = ND > 0 ? ND : out_nd;
  NDIMG_UNROLL
  for (int h = 0; h < ni; ++h) {
    double t = offset[h];
    NDIMG_UNROLL
    for (int l = 0; l < no; ++l) t += mul_rn(double(o[l]), m[h * no + l]);
    c[h] = t;
  }
}

// The schedules (sample_cpu.cpp, sample_cuda.cu); the entries (sample.cpp) validate and route.
Geometry make_geometry(const View& in, const View& out, int order, Mode mode, double cval,
                       std::span<const int64_t> npad, std::span<const int64_t> exact_axes = {});
void map_coordinates_cpu(const View& in, const View& coords, const View& out, const Geometry& g);
void affine_cpu(const View& in, const double* matrix, const double* offset, const View& out, const Geometry& g);
void zoom_shift_cpu(const View& in, const double* zoom, const double* shift, bool grid_mode, const View& out,
                    const Geometry& g);
void map_coordinates_cuda(const View& in, const View& coords, const View& out, const Geometry& g,
                          StreamHandle stream);
void affine_cuda(const View& in, const double* matrix, const double* offset, const View& out, const Geometry& g,
                 StreamHandle stream);
void zoom_shift_cuda(const View& in, const double* zoom, const double* shift, bool grid_mode, const View& out,
                     const Geometry& g, StreamHandle stream);

}  // namespace ndimg::interp
