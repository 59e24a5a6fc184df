// Colour conversions: each pixel's math written once for both engines (skimage/color/colorconv.py's formulas,
// clips and branches, in its order of operations, in the pixel's float type T), and the engine schedules'
// declarations. The entry is in color.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
#endif

#include "core/engine.hpp"
#include "ndimg/color.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::color {

constexpr int kMaxOut = 8;  // output channels of a matrix (a stain matrix may have up to 8 columns)
constexpr int kMaxIn = 4;

// for (j < p.k) unrolled over kMaxOut, so that a pixel's outputs stay in registers on the device.
#if defined(__CUDACC__)
#define NDIMG_COLOR_UNROLL _Pragma("unroll")
#else
#define NDIMG_COLOR_UNROLL _Pragma("GCC unroll 8")
#endif
#define NDIMG_EACH_OUT(j, p) \
  NDIMG_COLOR_UNROLL for (int j = 0; j < kMaxOut; ++j) if (j < (p).k)

struct Params {
  double m[3 * kMaxOut];  // rows: output channel j = sum_i m[3 j + i] x_i
  double v[kMaxOut];      // white point, background or offsets (see Conversion; 3 used)
  bool has_v;
  int k;                  // output channels of Matrix and the stain conversions
};

// Float maths overloaded on float and double, callable on the host and on the device.
NDIMG_HD float pow_(float a, float b) { return powf(a, b); }
NDIMG_HD double pow_(double a, double b) { return pow(a, b); }
// The cube root: CUDA's own on the device; on the host (glibc's takes 26 ns) from an exponent-thirding guess,
// two Halley steps and a Newton step, within 3 ulp (float: computed in double, then rounded), 10 ns.
NDIMG_HD double cbrt_(double a) {
#if defined(__CUDA_ARCH__)
  return cbrt(a);
#else
  if (!(a > 1e-300 && a < 1e300)) return cbrt(a);  // 0, < 0, NaN, and where the steps' 3 a would overflow
  uint64_t bits;
  std::memcpy(&bits, &a, 8);
  bits = bits / 3 + 0x2A9F7893782DA1CEull;  // about a / 3 in the exponent: within 6 %
  double y;
  std::memcpy(&y, &bits, 8);
  for (int i = 0; i < 2; ++i) {
    const double y3 = y * y * y;
    y = y * (y3 + 2 * a) / (2 * y3 + a);
  }
  const double y2 = y * y;
  return y - (y2 * y - a) / (3 * y2);
#endif
}
NDIMG_HD float cbrt_(float a) {
#if defined(__CUDA_ARCH__)
  return cbrtf(a);
#else
  return float(cbrt_(double(a)));
#endif
}
NDIMG_HD float log_(float a) { return logf(a); }
NDIMG_HD double log_(double a) { return log(a); }
NDIMG_HD double exp_(double a) { return exp(a); }
NDIMG_HD float floor_(float a) { return floorf(a); }
NDIMG_HD double floor_(double a) { return floor(a); }
NDIMG_HD float fmod_(float a, float b) { return fmodf(a, b); }
NDIMG_HD double fmod_(double a, double b) { return fmod(a, b); }
NDIMG_HD float sqrt_(float a) { return sqrtf(a); }
NDIMG_HD double sqrt_(double a) { return sqrt(a); }
NDIMG_HD float hypot_(float a, float b) { return hypotf(a, b); }
NDIMG_HD double hypot_(double a, double b) { return hypot(a, b); }
NDIMG_HD float atan2_(float a, float b) { return atan2f(a, b); }
NDIMG_HD double atan2_(double a, double b) { return atan2(a, b); }
NDIMG_HD float cos_(float a) { return cosf(a); }
NDIMG_HD double cos_(double a) { return cos(a); }
NDIMG_HD float sin_(float a) { return sinf(a); }
NDIMG_HD double sin_(double a) { return sin(a); }
NDIMG_HD bool isnan_(double a) { return a != a; }

// NumPy's maximum/minimum (NaN wins), clip to [0, 1] (NaN kept) and Python's x % 1.0 (NumPy's remainder).
template <class T> NDIMG_HD T nmax(T a, T b) { return (a != a || a >= b) ? a : b; }
template <class T> NDIMG_HD T nmin(T a, T b) { return (a != a || a <= b) ? a : b; }
// max(a, c) for a constant c (NaN a kept, as NumPy's maximum keeps it) and min(a, c) alike: x86's maxsd/minsd
// (the second operand where unordered) on the host, where GCC would branch on the data (stain densities'
// signs mispredict half the time).
template <class T> NDIMG_HD T at_least(T a, T c) {
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double>) return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(c), _mm_set_sd(a)));
  else return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(c), _mm_set_ss(a)));
#else
  return c > a ? c : a;
#endif
}
template <class T> NDIMG_HD T at_most(T a, T c) {
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double>) return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(c), _mm_set_sd(a)));
  else return _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(c), _mm_set_ss(a)));
#else
  return c < a ? c : a;
#endif
}
template <class T> NDIMG_HD T clip01(T a) { return at_least(at_most(a, T(1)), T(0)); }
// NumPy's a % 1.0: fmod's sign moved to the divisor's (+0 for -0); |a| < 1 needs no fmod.
template <class T> NDIMG_HD T mod1(T a) {
  const T m = a > T(-1) && a < T(1) ? a : fmod_(a, T(1));
  return m < T(0) ? m + T(1) : m + T(0);
}

// img_as_float of one value: integers times 1 / max in double (signed ones at least -1), floats and bool cast.
template <class T, class S>
NDIMG_HD T scale(S v) {
  if constexpr (std::is_floating_point_v<S> || std::is_same_v<S, bool>) {
    return T(v);
  } else {
    const double f = double(v) * (1.0 / double(std::numeric_limits<S>::max()));
    if constexpr (std::is_signed_v<S>) return T(f < -1.0 ? -1.0 : f);
    else return T(f);
  }
}
// v - off in S's own arithmetic (ycbcr2rgb's offsets subtracted before the conversion): integers wrap.
template <class S>
NDIMG_HD S minus(S v, double off) {
  if constexpr (std::is_floating_point_v<S>) return S(v - S(off));
  else return S(uint64_t(int64_t(v)) - uint64_t(int64_t(off)));
}

// Row j of the matrix times x, the matrix cast to T (scikit-image's arr @ m.T.astype(arr.dtype)), each product
// and sum rounded on its own on both engines.
template <class T>
NDIMG_HD T dot(const double* row, const T* x) {
  return add_rn(add_rn(mul_rn(x[0], T(row[0])), mul_rn(x[1], T(row[1]))), mul_rn(x[2], T(row[2])));
}

// x ** 3 as two products (within 1.5 ulp of pow's correctly rounded cube, at a tenth of its cost).
template <class T> NDIMG_HD T cube(T x) { return mul_rn(mul_rn(x, x), x); }
// hypot as sqrt(a a + b b) where neither square can overflow or underflow (within an ulp; glibc's hypot takes
// three times as long), the library's elsewhere.
template <class T> NDIMG_HD T hypot_rn(T a, T b) {
  const T m = nmax(a < T(0) ? -a : a, b < T(0) ? -b : b);
  if (m > T(1e-15) && m < T(1e15)) return sqrt_(add_rn(mul_rn(a, a), mul_rn(b, b)));
  return hypot_(a, b);
}

// ---- the stages ----
template <class T> NDIMG_HD T srgb_expand(T v) {
  return v > T(0.04045) ? pow_((v + T(0.055)) / T(1.055), T(2.4)) : v / T(12.92);
}
template <class T> NDIMG_HD T srgb_compress(T v) {
  return clip01(v > T(0.0031308) ? T(1.055) * pow_(v, T(1 / 2.4)) - T(0.055) : v * T(12.92));
}
template <class T> NDIMG_HD void xyz_to_lab(const T* x, T* y, const Params& p) {
  T f[3];
  for (int j = 0; j < 3; ++j) {
    const T r = x[j] / T(p.v[j]);
    f[j] = r > T(0.008856) ? cbrt_(r) : T(7.787) * r + T(16.0 / 116.0);
  }
  y[0] = T(116) * f[1] - T(16);
  y[1] = T(500) * (f[0] - f[1]);
  y[2] = T(200) * (f[1] - f[2]);
}
// Returns 1 when Z was negative (clipped to 0). The white point scales in double, rounded once to T.
template <class T> NDIMG_HD int lab_to_xyz(const T* x, T* y, const Params& p) {
  const T fy = (x[0] + T(16)) / T(116);
  T f[3] = {x[1] / T(500) + fy, fy, fy - x[2] / T(200)};
  const int clipped = f[2] < T(0);
  if (clipped) f[2] = T(0);
  for (int j = 0; j < 3; ++j) {
    const T c = f[j] > T(0.2068966) ? cube(f[j]) : (f[j] - T(16.0 / 116.0)) / T(7.787);
    y[j] = T(double(c) * p.v[j]);
  }
  return clipped;
}
// The white point's u' and v' (scikit-image's 4 X / (X + 15 Y + 3 Z) in T).
template <class T> NDIMG_HD void uv_white(const Params& p, T& u0, T& v0) {
  const T w0 = T(p.v[0]), w1 = T(p.v[1]), w2 = T(p.v[2]);
  const T d = w0 + T(15) * w1 + T(3) * w2;
  u0 = T(4) * w0 / d;
  v0 = T(9) * w1 / d;
}
template <class T> NDIMG_HD void xyz_to_luv(const T* x, T* y, const Params& p) {
  const T eps = std::numeric_limits<T>::epsilon();
  T L = x[1] / T(p.v[1]);
  L = L > T(0.008856) ? T(116) * cbrt_(L) - T(16) : T(903.3) * L;
  T u0, v0;
  uv_white(p, u0, v0);
  const T d = x[0] + T(15) * x[1] + T(3) * x[2] + eps;
  y[0] = L;
  y[1] = T(13) * L * (T(4) * x[0] / d - u0);
  y[2] = T(13) * L * (T(9) * x[1] / d - v0);
}
template <class T> NDIMG_HD void luv_to_xyz(const T* x, T* y, const Params& p) {
  const T eps = std::numeric_limits<T>::epsilon();
  const T L = x[0];
  T yy = L > T(7.999625) ? cube((L + T(16)) / T(116)) : L / T(903.3);
  yy *= T(p.v[1]);
  T u0, v0;
  uv_white(p, u0, v0);
  const T a = u0 + x[1] / (T(13) * L + eps);
  const T b = v0 + x[2] / (T(13) * L + eps);
  const T c = T(3) * yy * (T(5) * b - T(3));
  const T z = ((a - T(4)) * c - T(15) * a * b * yy) / (T(12) * b);
  y[0] = -(c / b + T(3) * z);
  y[1] = yy;
  y[2] = z;
}
template <class T> NDIMG_HD void matrix3(const T* x, T* y, const Params& p) {
  for (int j = 0; j < 3; ++j) y[j] = dot(p.m + 3 * j, x);
}

// ---- the conversions: In input channels read, out(p) written; run() returns 1 for a clipped Z ----
template <Conversion C> struct Op;

template <> struct Op<Conversion::Matrix> {
  template <class T> using out_t = T;
  static constexpr int in = 3;
  static constexpr bool channel_first = false;
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    NDIMG_EACH_OUT(j, p) y[j] = p.has_v ? dot(p.m + 3 * j, x) + T(p.v[j]) : dot(p.m + 3 * j, x);
    return 0;
  }
};
// The offsets were subtracted by the loader.
template <> struct Op<Conversion::OffsetMatrix> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    matrix3(x, y, p);
    return 0;
  }
};
// Conversions that begin with one function of each channel alone (D::first; a lookup table's worth for 8-bit
// input), then D::after on the three results.
template <class D, class T, class O>
NDIMG_HD int first_then_after(const T* x, O* y, const Params& p) {
  using F = decltype(D::first(x[0]));
  const F f[3] = {D::first(x[0]), D::first(x[1]), D::first(x[2])};
  return D::after(f, y, p);
}

template <> struct Op<Conversion::RgbToXyz> : Op<Conversion::Matrix> {
  static constexpr bool channel_first = true;
  template <class T> NDIMG_HD static T first(T v) { return srgb_expand(v); }
  template <class T> NDIMG_HD static int after(const T* lin, T* y, const Params& p) {
    matrix3(lin, y, p);
    return 0;
  }
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    return first_then_after<Op>(x, y, p);
  }
};
template <> struct Op<Conversion::XyzToRgb> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    for (int j = 0; j < 3; ++j) y[j] = srgb_compress(dot(p.m + 3 * j, x));
    return 0;
  }
};
template <> struct Op<Conversion::XyzToLab> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    xyz_to_lab(x, y, p);
    return 0;
  }
};
template <> struct Op<Conversion::LabToXyz> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) { return lab_to_xyz(x, y, p); }
};
template <> struct Op<Conversion::RgbToLab> : Op<Conversion::RgbToXyz> {
  template <class T> NDIMG_HD static int after(const T* lin, T* y, const Params& p) {
    T xyz[3];
    matrix3(lin, xyz, p);
    xyz_to_lab(xyz, y, p);
    return 0;
  }
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    return first_then_after<Op>(x, y, p);
  }
};
template <> struct Op<Conversion::LabToRgb> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    T xyz[3];
    const int clipped = lab_to_xyz(x, xyz, p);
    Op<Conversion::XyzToRgb>::run(xyz, y, p);
    return clipped;
  }
};
template <> struct Op<Conversion::XyzToLuv> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    xyz_to_luv(x, y, p);
    return 0;
  }
};
template <> struct Op<Conversion::LuvToXyz> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    luv_to_xyz(x, y, p);
    return 0;
  }
};
template <> struct Op<Conversion::RgbToLuv> : Op<Conversion::RgbToXyz> {
  template <class T> NDIMG_HD static int after(const T* lin, T* y, const Params& p) {
    T xyz[3];
    matrix3(lin, xyz, p);
    xyz_to_luv(xyz, y, p);
    return 0;
  }
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    return first_then_after<Op>(x, y, p);
  }
};
template <> struct Op<Conversion::LuvToRgb> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    T xyz[3];
    luv_to_xyz(x, xyz, p);
    Op<Conversion::XyzToRgb>::run(xyz, y, p);
    return 0;
  }
};
// scikit-image assigns red's, then green's, then blue's hue where each is the maximum (the last wins); a flat
// pixel's hue and saturation are 0; NaN results become 0 (a pixel with a NaN channel: hue 0 here, where
// scikit-image leaves np.empty_like's memory).
template <> struct Op<Conversion::RgbToHsv> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params&) {
    const T r = x[0], g = x[1], b = x[2];
    const T v = nmax(nmax(r, g), b);
    const T delta = v - nmin(nmin(r, g), b);
    const bool flat = delta == T(0);
    // one division: the numerator and offset of the channel that is the maximum (blue's, green's, red's, none)
    const T num = b == v ? r - g : (g == v ? b - r : (r == v ? g - b : T(0)));
    const T off = b == v ? T(4) : (g == v ? T(2) : T(0));
    const T h = flat ? T(0) : mod1((off + num / delta) / T(6));
    const T s = flat ? T(0) : delta / v;
    y[0] = isnan_(h) ? T(0) : h;
    y[1] = isnan_(s) ? T(0) : s;
    y[2] = isnan_(v) ? T(0) : v;
    return 0;
  }
};
template <> struct Op<Conversion::HsvToRgb> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params&) {
    const T h = x[0], s = x[1], v = x[2];
    const T hi = floor_(h * T(6));
    const T f = h * T(6) - hi;
    const T lo = v * (T(1) - s);
    const T q = v * (T(1) - f * s);
    const T t = v * (T(1) - (T(1) - f) * s);
    // scikit-image's hi.astype(np.uint8) % 6 as x86 casts it: integers below 2**31 wrap modulo 256, others (NaN,
    // inf, 1e308) become 0 (CUDA's cast would saturate)
    int sector = 0;
    if (hi < T(2147483648.0) && hi > T(-2147483648.0)) sector = int(((int64_t(hi) % 256) + 256) % 256) % 6;
    const T r[6] = {v, q, lo, lo, t, v}, g[6] = {t, v, v, q, lo, lo}, b[6] = {lo, lo, t, v, v, q};
    // selected by constant indices, so that nothing is indexed at run time (device registers)
    NDIMG_COLOR_UNROLL
    for (int k = 0; k < 6; ++k)
      if (sector == k) {
        y[0] = r[k];
        y[1] = g[k];
        y[2] = b[k];
      }
    return 0;
  }
};
// The angle's 2 pi added in double (scikit-image's float64 np.where added in place).
template <> struct Op<Conversion::LabToLch> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params&) {
    const T t = atan2_(x[2], x[1]);
    y[0] = x[0];
    y[1] = hypot_rn(x[1], x[2]);
    y[2] = T(double(t) + (t < T(0) ? 2 * 3.141592653589793 : 0.0));
    return 0;
  }
};
template <> struct Op<Conversion::LchToLab> : Op<Conversion::Matrix> {
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params&) {
    y[0] = x[0];
    y[1] = x[1] * cos_(x[2]);
    y[2] = x[1] * sin_(x[2]);
    return 0;
  }
};
template <> struct Op<Conversion::RgbaToRgb> : Op<Conversion::Matrix> {
  static constexpr int in = 4;
  template <class T> NDIMG_HD static int run(const T* x, T* y, const Params& p) {
    const T alpha = x[3];
    for (int j = 0; j < 3; ++j) y[j] = clip01((T(1) - alpha) * T(p.v[j]) + alpha * x[j]);
    return 0;
  }
};
// The optical densities: log(max(x, 1e-6)) in T, divided by log(1e-6) in double; the products in double.
template <> struct Op<Conversion::SeparateStains> {
  template <class T> using out_t = double;
  static constexpr int in = 3;
  static constexpr bool channel_first = true;
  template <class T> NDIMG_HD static double first(T v) {
    return double(log_(at_least(v, T(1e-6)))) / -13.815510557964274;  // log(1e-6)
  }
  NDIMG_HD static int after(const double* d, double* y, const Params& p) {
    NDIMG_EACH_OUT(j, p) y[j] = at_least(dot(p.m + 3 * j, d), 0.0);
    return 0;
  }
  template <class T> NDIMG_HD static int run(const T* x, double* y, const Params& p) {
    return first_then_after<Op>(x, y, p);
  }
};
// exp(-(x log_adjust) @ m) = exp((x log_adjust) @ -m) exactly (negation rounds symmetrically); -m is passed.
template <> struct Op<Conversion::CombineStains> {
  template <class T> using out_t = double;
  static constexpr int in = 3;
  static constexpr bool channel_first = false;
  template <class T> NDIMG_HD static int run(const T* x, double* y, const Params& p) {
    const double log_adjust = 13.815510557964274;  // -log(1e-6)
    const double d[3] = {double(x[0]) * log_adjust, double(x[1]) * log_adjust, double(x[2]) * log_adjust};
    NDIMG_EACH_OUT(j, p) y[j] = clip01(exp_(dot(p.m + 3 * j, d)));
    return 0;
  }
};

// ---- the colour differences, in double (skimage/color/delta_e.py's order of operations) ----
struct DiffParams {
  double k[5];
};
constexpr double kPi = 3.141592653589793;
NDIMG_HD double deg2rad(double d) { return d * (kPi / 180.0); }
NDIMG_HD double sq(double x) { return mul_rn(x, x); }
// scikit-image's _cart2polar_2pi: (hypot, angle in [0, 2 pi)).
NDIMG_HD void polar(double x, double y, double& r, double& t) {
  r = hypot_rn(x, y);
  t = atan2_(y, x);
  t += t < 0.0 ? 2 * kPi : 0.0;  // -0 becomes +0, as there
}
// get_dH2: the squared hue difference 2 (|ab1| |ab2| - ab1 . ab2).
NDIMG_HD double dH2(double a1, double b1, double a2, double b2) {
  return 2 * (hypot_rn(a1, b1) * hypot_rn(a2, b2) - (a1 * a2 + b1 * b2));
}
NDIMG_HD double root(double dE2) { return sqrt_(at_least(dE2, 0.0)); }

// Cbar ** 7 as products (within 3 ulp of pow).
NDIMG_HD double pow7(double c) {
  const double c2 = c * c, c4 = c2 * c2;
  return c4 * c2 * c;
}
// cos and sin of 30, 6 and 63 degrees.
constexpr double kCos30 = 0.86602540378443871, kSin30 = 0.49999999999999994, kCos6 = 0.99452189536827329,
                 kSin6 = 0.10452846326765347, kCos63 = 0.45399049973954686, kSin63 = 0.89100652418836779;

template <Difference D> struct Diff;
template <> struct Diff<Difference::Cie76> {
  NDIMG_HD static double run(const double* x, const double* y, const DiffParams&) {
    return sqrt_(sq(y[0] - x[0]) + sq(y[1] - x[1]) + sq(y[2] - x[2]));
  }
};
template <> struct Diff<Difference::Ciede94> {  // k: kH, kC, kL, k1, k2
  NDIMG_HD static double run(const double* x, const double* y, const DiffParams& p) {
    const double C1 = hypot_rn(x[1], x[2]), C2 = hypot_rn(y[1], y[2]);
    const double SC = 1 + p.k[3] * C1, SH = 1 + p.k[4] * C1;
    double dE2 = sq((x[0] - y[0]) / (p.k[2] * 1));
    dE2 += sq((C1 - C2) / (p.k[1] * SC));
    dE2 += dH2(x[1], x[2], y[1], y[2]) / sq(p.k[0] * SH);
    return root(dE2);
  }
};
template <> struct Diff<Difference::Ciede2000> {  // k: kL, kC, kH
  NDIMG_HD static double run(const double* x, const double* y, const DiffParams& p) {
    const double L1 = x[0], L2 = y[0];
    double Cbar = 0.5 * (hypot_rn(x[1], x[2]) + hypot_rn(y[1], y[2]));
    double c7 = pow7(Cbar);
    const double scale = 1 + 0.5 * (1 - sqrt_(c7 / (c7 + 6103515625.0)));  // 25 ** 7
    double C1, h1, C2, h2;
    polar(x[1] * scale, x[2], C1, h1);
    polar(y[1] * scale, y[2], C2, h2);
    const double Lbar = 0.5 * (L1 + L2);
    const double tmp = sq(Lbar - 50);
    const double SL = 1 + 0.015 * tmp / sqrt_(20 + tmp);
    const double L_term = (L2 - L1) / (p.k[0] * SL);
    Cbar = 0.5 * (C1 + C2);
    const double SC = 1 + 0.045 * Cbar;
    const double C_term = (C2 - C1) / (p.k[1] * SC);
    const double h_diff = h2 - h1, h_sum = h1 + h2, CC = C1 * C2;
    const bool chroma = CC != 0.0;  // either chroma 0: no hue difference, the mean hue their sum
    double dH = h_diff > kPi ? h_diff - 2 * kPi : (h_diff < -kPi ? h_diff + 2 * kPi : h_diff);
    if (!chroma) dH = 0.0;
    const double dH_term = 2 * sqrt_(CC) * sin_(dH / 2);
    const bool wrap = chroma && (h_diff < 0 ? -h_diff : h_diff) > kPi;
    double Hbar = wrap && h_sum < 2 * kPi ? h_sum + 2 * kPi : (wrap && h_sum >= 2 * kPi ? h_sum - 2 * kPi : h_sum);
    Hbar = (chroma ? Hbar : Hbar * 2) * 0.5;
    // the four cosines from one sine and cosine of Hbar by the angle-sum formulas (within 1e-15)
    const double c1 = cos_(Hbar), s1 = sin_(Hbar);
    const double c2 = 2 * c1 * c1 - 1, s2 = 2 * s1 * c1;
    const double c3 = c2 * c1 - s2 * s1, s3 = s2 * c1 + c2 * s1;
    const double c4 = 2 * c2 * c2 - 1, s4 = 2 * s2 * c2;
    const double T = 1 - 0.17 * (c1 * kCos30 + s1 * kSin30) + 0.24 * c2 + 0.32 * (c3 * kCos6 - s3 * kSin6) -
                     0.20 * (c4 * kCos63 + s4 * kSin63);
    const double SH = 1 + 0.015 * Cbar * T;
    const double H_term = dH_term / (p.k[2] * SH);
    c7 = pow7(Cbar);
    const double Rc = 2 * sqrt_(c7 / (c7 + 6103515625.0));
    const double dtheta = deg2rad(30) * exp_(-sq((Hbar * (180.0 / kPi) - 275) / 25));
    const double R_term = -sin_(2 * dtheta) * Rc * C_term * H_term;
    double dE2 = sq(L_term);
    dE2 += sq(C_term);
    dE2 += sq(H_term);
    dE2 += R_term;
    return root(dE2);
  }
};
template <> struct Diff<Difference::Cmc> {  // k: kL, kC
  NDIMG_HD static double run(const double* x, const double* y, const DiffParams& p) {
    const double L1 = x[0];
    double C1, h1;
    polar(x[1], x[2], C1, h1);
    const double C2 = hypot_rn(y[1], y[2]);
    const double deg = h1 * (180.0 / kPi);
    const double c = deg >= 164 && deg <= 345 ? cos_(h1 + deg2rad(168)) : cos_(h1 + deg2rad(35));
    const double T = deg >= 164 && deg <= 345 ? 0.56 + 0.2 * (c < 0 ? -c : c) : 0.36 + 0.4 * (c < 0 ? -c : c);
    const double c1_4 = sq(sq(C1));
    const double F = sqrt_(c1_4 / (c1_4 + 1900));
    const double SL = L1 < 16 ? 0.511 : 0.040975 * L1 / (1.0 + 0.01765 * L1);
    const double SC = 0.638 + 0.0638 * C1 / (1.0 + 0.0131 * C1);
    const double SH = SC * (F * T + 1 - F);
    double dE2 = sq((L1 - y[0]) / (p.k[0] * SL));
    dE2 += sq((C1 - C2) / (p.k[1] * SC));
    dE2 += dH2(x[1], x[2], y[1], y[2]) / sq(SH);
    return root(dE2);
  }
};

template <class F>
decltype(auto) dispatch_difference(Difference d, F&& f) {
  switch (d) {
    case Difference::Cie76: return f.template operator()<Diff<Difference::Cie76>>();
    case Difference::Ciede94: return f.template operator()<Diff<Difference::Ciede94>>();
    case Difference::Ciede2000: return f.template operator()<Diff<Difference::Ciede2000>>();
    case Difference::Cmc: return f.template operator()<Diff<Difference::Cmc>>();
  }
  throw ValueError("color: unknown difference");
}

// f.template operator()<Op<c>>().
template <class F>
decltype(auto) dispatch_conversion(Conversion c, F&& f) {
  switch (c) {
#define NDIMG_COLOR_CASE(name) \
  case Conversion::name: return f.template operator()<Op<Conversion::name>>();
    NDIMG_COLOR_CASE(Matrix) NDIMG_COLOR_CASE(OffsetMatrix) NDIMG_COLOR_CASE(RgbToXyz) NDIMG_COLOR_CASE(XyzToRgb)
    NDIMG_COLOR_CASE(XyzToLab) NDIMG_COLOR_CASE(LabToXyz) NDIMG_COLOR_CASE(RgbToLab) NDIMG_COLOR_CASE(LabToRgb)
    NDIMG_COLOR_CASE(XyzToLuv) NDIMG_COLOR_CASE(LuvToXyz) NDIMG_COLOR_CASE(RgbToLuv) NDIMG_COLOR_CASE(LuvToRgb)
    NDIMG_COLOR_CASE(RgbToHsv) NDIMG_COLOR_CASE(HsvToRgb) NDIMG_COLOR_CASE(LabToLch) NDIMG_COLOR_CASE(LchToLab)
    NDIMG_COLOR_CASE(RgbaToRgb) NDIMG_COLOR_CASE(SeparateStains) NDIMG_COLOR_CASE(CombineStains)
#undef NDIMG_COLOR_CASE
  }
  throw ValueError("color: unknown conversion");
}

// The pixel float type of an input dtype: float32 stays, everything else computes in float64.
template <class F>
decltype(auto) dispatch_float(DType in, F&& f) {
  if (in == DType::F32) return f.template operator()<float>();
  return f.template operator()<double>();
}

// The pixels of a view: its last axis (the channels) dropped.
inline View pixels(View v) {
  --v.ndim;
  return v;
}

// ---- engine schedules (arguments validated by the entry) ----
int64_t convert_cpu(const View& in, const View& out, Conversion c, const Params& p);
void difference_cpu(const View& lab1, const View& lab2, const View& out, Difference d, const DiffParams& p);
#ifdef NDIMG_WITH_CUDA
int64_t convert_cuda(const View& in, const View& out, Conversion c, const Params& p, StreamHandle s);
void difference_cuda(const View& lab1, const View& lab2, const View& out, Difference d, const DiffParams& p,
                     StreamHandle s);
#endif

}  // namespace ndimg::color
