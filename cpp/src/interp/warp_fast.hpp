// scikit-image's own 2-D warp (skimage.transform._warps_cy._warp_fast), the path its warp takes for
// homography matrices at orders 1 and 3: each output pixel (r, c) samples the input at H @ (c, r, 1), with
// scikit-image's bilinear or Catmull-Rom bicubic (Keys, a = -0.5: not a B-spline) interpolation and its
// numpy.pad-style boundary modes, all in the image's float type as its Cython computes. A trailing channel
// axis is warped channel by channel with the same coordinates.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::interp {

// numpy.pad's names, as scikit-image's get_pixel2d modes 'C', 'E', 'S', 'R', 'W'
enum class PadMode : int { constant = 0, edge = 1, symmetric = 2, reflect = 3, wrap = 4 };

// The matrix in the image's type, and which of scikit-image's three coordinate functions it takes.
template <class T>
struct Homography {
  T h[9];
  int kind;  // 0: scale and shift only, 1: affine, 2: projective
};

template <class T>
Homography<T> make_homography(const double* m) {
  Homography<T> H;
  for (int k = 0; k < 9; ++k) H.h[k] = T(m[k]);
  const bool affine = H.h[6] == T(0) && H.h[7] == T(0) && H.h[8] == T(1);
  H.kind = !affine ? 2 : (H.h[1] == T(0) && H.h[3] == T(0) ? 0 : 1);
  return H;
}

// The input (column, row) of output pixel (x = column, y = row), rounded as scikit-image's C rounds it.
// Kind: H.kind, fixed at compile time by the CPU schedule (-1: read at run time).
template <class T, int Kind = -1>
NDIMG_HD void homography_point(const Homography<T>& H, T x, T y, T& c, T& r) {
  const T* h = H.h;
  const int kind = Kind >= 0 ? Kind : H.kind;
  if (kind == 0) {
    c = add_rn(mul_rn(h[0], x), h[2]);
    r = add_rn(mul_rn(h[4], y), h[5]);
  } else {
    const T xs = add_rn(add_rn(mul_rn(h[0], x), mul_rn(h[1], y)), h[2]);
    const T ys = add_rn(add_rn(mul_rn(h[3], x), mul_rn(h[4], y)), h[5]);
    if (kind == 1) {
      c = xs;
      r = ys;
    } else {
      const T z = add_rn(add_rn(mul_rn(h[6], x), mul_rn(h[7], y)), h[8]);
      c = xs / z;
      r = ys / z;
    }
  }
}

// C's (long)floor(v): values beyond +-2^50 (and NaN, which x86 turns into INT64_MIN) kept far outside any
// image, so that the index arithmetic below cannot overflow. A truncation and a compare: x86-64's baseline
// has no rounding instruction, and a libm call per coordinate costs as much as the interpolation.
template <class T>
NDIMG_HD int64_t floor_index(T v) {
  constexpr T kFar = T(1125899906842624.0);  // 2^50
  if (!(v > -kFar)) return -int64_t(1125899906842624LL);
  if (v > kFar) return int64_t(1125899906842624LL);
  const int64_t t = static_cast<int64_t>(v);
  return T(t) > v ? t - 1 : t;
}

// scikit-image's coord_map: an index outside [0, dim) mapped inside by the mode (not constant).
NDIMG_HD int64_t pad_index(int64_t dim, int64_t i, PadMode mode) {
  const int64_t cmax = dim - 1;
  switch (mode) {
    case PadMode::symmetric:
      if (i < 0) i = -i - 1;
      if (i > cmax) return (i / dim) % 2 != 0 ? cmax - i % dim : i % dim;
      return i;
    case PadMode::wrap:
      if (i < 0) return cmax - (-i - 1) % dim;
      return i > cmax ? i % dim : i;
    case PadMode::edge: return i < 0 ? 0 : (i > cmax ? cmax : i);
    case PadMode::reflect:
      if (dim == 1) return 0;
      if (i < 0) return (-i / cmax) % 2 != 0 ? cmax - (-i) % cmax : (-i) % cmax;
      if (i > cmax) return (i / cmax) % 2 != 0 ? cmax - i % cmax : i % cmax;
      return i;
    default: return i;
  }
}

// The image's plane (one channel), or a window of it (Dask: the part an output chunk reads): the mode works on
// the whole image's rows x cols; the window's elements [r_lo, r_hi) x [c_lo, c_hi) are held, element (r, c)
// at p[(r - r_lo) * rs + (c - c_lo) * cs]. A window holds every tap its points read inside the image (and
// the whole image for the folding modes across the border), so a tap outside it is outside the image.
template <class T>
struct Plane {
  const T* p;
  int64_t rows, cols, rs, cs;
  PadMode mode;
  T cval;
  int64_t r_lo, r_hi, c_lo, c_hi;
  NDIMG_HD T at(int64_t r, int64_t c) const { return p[(r - r_lo) * rs + (c - c_lo) * cs]; }
  // scikit-image's get_pixel2d
  NDIMG_HD T pixel(int64_t r, int64_t c) const {
    if (mode == PadMode::constant)
      return (r < 0 || r >= rows || c < 0 || c >= cols) ? cval : at(r, c);
    return at(pad_index(rows, r, mode), pad_index(cols, c, mode));
  }
  // whether taps [r0, r1] x [c0, c1] lie in the window (and so in the image): read without the mode
  NDIMG_HD bool inside(int64_t r0, int64_t r1, int64_t c0, int64_t c1) const {
    return r0 >= r_lo && r1 < r_hi && c0 >= c_lo && c1 < c_hi;
  }
};

// scikit-image's bilinear_interpolation.
template <class T>
NDIMG_HD T bilinear(const Plane<T>& im, T r, T c) {
  const int64_t r0 = floor_index(r), c0 = floor_index(c);
  const int64_t r1 = r0 + (T(r0) != r), c1 = c0 + (T(c0) != c);  // ceil
  const T dr = sub_rn(r, T(r0)), dc = sub_rn(c, T(c0));
  T tl, tr, bl, br;
  if (im.inside(r0, r1, c0, c1)) {
    const T* p = im.p + (r0 - im.r_lo) * im.rs + (c0 - im.c_lo) * im.cs;
    const int64_t dc1 = (c1 - c0) * im.cs, dr1 = (r1 - r0) * im.rs;
    tl = p[0], tr = p[dc1], bl = p[dr1], br = p[dr1 + dc1];
  } else if (im.mode == PadMode::constant && (r1 < 0 || r0 >= im.rows || c1 < 0 || c0 >= im.cols)) {
    tl = tr = bl = br = im.cval;   // every tap outside the image
  } else {
    tl = im.pixel(r0, c0), tr = im.pixel(r0, c1), bl = im.pixel(r1, c0), br = im.pixel(r1, c1);
  }
  // as scikit-image's compiled C rounds: 1.0 - dc, its products and the sums in double, dc * value in T
  const double odc = 1.0 - double(dc), odr = 1.0 - double(dr);
  const double top = add_rn(mul_rn(odc, double(tl)), double(mul_rn(dc, tr)));
  const double bottom = add_rn(mul_rn(odc, double(bl)), double(mul_rn(dc, br)));
  return T(add_rn(mul_rn(odr, top), mul_rn(double(dr), bottom)));
}

// scikit-image's cubic_interpolation (Catmull-Rom) of f at x in [0, 1], f given at -1, 0, 1, 2. V is T, or on
// the host a GCC vector of T (several points at once, each lane rounded as the scalar).
template <class T, class V = T>
NDIMG_HD V catmull_rom(V x, const V* f) {
  const V inner = sub_rn(add_rn(mul_rn(sub_rn(f[1], f[2]), T(3)), f[3]), f[0]);
  const V poly = sub_rn(add_rn(sub_rn(mul_rn(f[0], T(2)), mul_rn(f[1], T(5))), mul_rn(f[2], T(4))), f[3]);
  const V mid = add_rn(poly, mul_rn(x, inner));
  const V outer = add_rn(sub_rn(f[2], f[0]), mul_rn(x, mid));
  return add_rn(f[1], mul_rn(mul_rn(x, T(0.5)), outer));
}

// scikit-image's bicubic_interpolation: 4x4 taps from floor - 1, rows first.
template <class T>
NDIMG_HD T bicubic(const Plane<T>& im, T r, T c) {
  const int64_t rf = floor_index(r), cf = floor_index(c);
  const T xr = sub_rn(r, T(rf)), xc = sub_rn(c, T(cf));
  const int64_t r0 = rf - 1, c0 = cf - 1;
  T fr[4], fc[4];
  if (im.inside(r0, r0 + 3, c0, c0 + 3)) {
    const T* p = im.p + (r0 - im.r_lo) * im.rs + (c0 - im.c_lo) * im.cs;
    for (int pr = 0; pr < 4; ++pr, p += im.rs) {
      for (int pc = 0; pc < 4; ++pc) fc[pc] = p[pc * im.cs];
      fr[pr] = catmull_rom<T>(xc, fc);
    }
  } else if (im.mode == PadMode::constant && (r0 + 3 < 0 || r0 >= im.rows || c0 + 3 < 0 || c0 >= im.cols)) {
    // every tap outside the image reads cval: the rows' arithmetic below, done once
    for (int pc = 0; pc < 4; ++pc) fc[pc] = im.cval;
    fr[0] = catmull_rom<T>(xc, fc);
    fr[1] = fr[2] = fr[3] = fr[0];
  } else {
    for (int pr = 0; pr < 4; ++pr) {
      for (int pc = 0; pc < 4; ++pc) fc[pc] = im.pixel(r0 + pr, c0 + pc);
      fr[pr] = catmull_rom<T>(xc, fc);
    }
  }
  return catmull_rom<T>(xr, fr);
}

// Where a call's output and input lie in the whole warp: output pixel (y, x) of `out` is pixel (y + oy, x + ox)
// of the whole output, `in` holds rows [r_lo, r_lo + in.rows) and columns [c_lo, ...) of an image of
// rows x cols (Dask chunks; the whole image otherwise).
struct WarpWindow {
  int64_t oy = 0, ox = 0, r_lo = 0, c_lo = 0, rows = 0, cols = 0;
};

// The schedules (warp_fast_cpu.cpp, warp_fast_cuda.cu) and the entry (warp_fast.cpp).
// in: (rows, cols[, channels]) float32/float64; out: (out_rows, out_cols[, channels]) of in's dtype;
// matrix: 3x3 row-major (output (col, row, 1) -> input (col, row, w)); order 1 or 3; window: empty (the whole
// image and output) or (oy, ox, r_lo, c_lo, rows, cols) as WarpWindow.
void warp_homography(const View& in, std::span<const double> matrix, const View& out, int order, PadMode mode,
                     double cval, std::span<const int64_t> window = {}, StreamHandle stream = nullptr);
void warp_homography_cpu(const View& in, const double* matrix, const View& out, int order, PadMode mode, double cval,
                         const WarpWindow& w);
void warp_homography_cuda(const View& in, const double* matrix, const View& out, int order, PadMode mode,
                          double cval, const WarpWindow& w, StreamHandle stream);

}  // namespace ndimg::interp
