// Local binary patterns and the FAST and Moravec corner responses: the per-pixel math once for both engines
// (scikit-image's Cython loops, rounding step for step), and the schedules' declarations. The entries are in
// texture.cpp.
#pragma once
#include <cstring>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

#include "core/engine.hpp"
#include "ndimg/feature_texture.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

// floor and ceil of a finite double as integers (no libm call on hosts without SSE4.1's roundsd)
NDIMG_HD int64_t floor_int(double x) {
  const int64_t i = int64_t(x);
  return double(i) > x ? i - 1 : i;
}
NDIMG_HD int64_t ceil_int(double x) {
  const int64_t i = int64_t(x);
  return double(i) < x ? i + 1 : i;
}

// scikit-image's bilinear_interpolation of a float64 image in mode 'C' with cval 0. Inside: all four
// neighbours are known to lie in the image.
template <bool Inside>
NDIMG_HD double bilinear_zero(const double* img, int64_t rows, int64_t cols, double r, double c) {
  const int64_t r0 = floor_int(r), c0 = floor_int(c), r1 = ceil_int(r), c1 = ceil_int(c);
  const double dr = r - double(r0), dc = c - double(c0);
  auto px = [&](int64_t y, int64_t x) {
    if constexpr (Inside) return img[y * cols + x];
    else return y < 0 || y >= rows || x < 0 || x >= cols ? 0.0 : img[y * cols + x];
  };
  const double top = add_rn(mul_rn(1.0 - dc, px(r0, c0)), mul_rn(dc, px(r0, c1)));
  const double bottom = add_rn(mul_rn(1.0 - dc, px(r1, c0)), mul_rn(dc, px(r1, c1)));
  return add_rn(mul_rn(1.0 - dr, top), mul_rn(dr, bottom));
}

// 2**i in int32 as NumPy's 2 ** arange(P, dtype=int32) wraps it.
NDIMG_HD int32_t lbp_weight(int64_t i) { return i < 31 ? int32_t(1) << i : i == 31 ? INT32_MIN : 0; }

// One pixel's pattern. The samples stream through once, keeping what the method needs (scikit-image keeps
// them in arrays): the pattern bits as the int32 sum of weights, their changes, the number of ones and the
// first one and zero (int8, as there), the sum and the sum of squares. `margin`: no sample of a pixel that
// far from the border leaves the image.
template <LbpMethod M>
struct LocalBinaryPattern {
  const double* img;
  double* out;
  const double* rp;
  const double* cp;
  int64_t rows, cols, P, margin;

  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    const bool inside = r >= margin && r < rows - margin && c >= margin && c < cols - margin;
    out[r * cols + c] = inside ? pixel<true>(r, c) : pixel<false>(r, c);
  }
  template <bool Inside>
  NDIMG_HD double pixel(int64_t r, int64_t c) const {
    const double centre = img[r * cols + c];
    double code = 0, sum = 0, sq = 0;
    int64_t changes = 0, ones = 0;
    int8_t first_one = -1, first_zero = -1;
    bool prev = false;
    for (int64_t i = 0; i < P; ++i) {
      const double t = bilinear_zero<Inside>(img, rows, cols, double(r) + rp[i], double(c) + cp[i]);
      if constexpr (M == LbpMethod::Var) {
        sum = add_rn(sum, t);
        sq = add_rn(sq, square_rn(t));
      } else {
        const bool bit = t - centre >= 0;
        if (i > 0 && bit != prev) ++changes;
        prev = bit;
        if (bit) {
          ++ones;
          if (first_one == -1) first_one = int8_t(i);
          code += double(lbp_weight(i));
        } else if (first_zero == -1) {
          first_zero = int8_t(i);
        }
      }
    }
    if constexpr (M == LbpMethod::Var) {
      const double var = (sq - square_rn(sum) / double(P)) / double(P);
      return var != 0 ? var : NAN;
    } else if constexpr (M == LbpMethod::Uniform) {
      return double(changes <= 2 ? ones : P + 1);
    } else if constexpr (M == LbpMethod::NriUniform) {
      if (changes > 2) return double(P * (P - 1) + 2);
      if (ones == 0) return 0;
      if (ones == P) return double(P * (P - 1) + 1);
      return double(1 + (ones - 1) * P + (first_one == 0 ? ones - first_zero : P - first_one));
    } else if constexpr (M == LbpMethod::Ror) {
      // the smallest right rotation of the P-bit code, in int32 as x86 shifts it (the count taken mod 32)
      int32_t v = int32_t(code), best = v;
      const int shift = int((P - 1) & 31);
      for (int64_t i = 1; i < P; ++i) {
        v = int32_t((v >> 1) | int32_t(uint32_t(v & 1) << shift));
        if (v < best) best = v;
      }
      return double(best);
    } else {
      return code;
    }
  }
};

// Calls f.template operator()<M>() with the method as a compile-time constant.
template <class F>
void dispatch_lbp(LbpMethod m, F&& f) {
  switch (m) {
    case LbpMethod::Ror: return f.template operator()<LbpMethod::Ror>();
    case LbpMethod::Uniform: return f.template operator()<LbpMethod::Uniform>();
    case LbpMethod::NriUniform: return f.template operator()<LbpMethod::NriUniform>();
    case LbpMethod::Var: return f.template operator()<LbpMethod::Var>();
    default: return f.template operator()<LbpMethod::Default>();
  }
}

// Rows (and columns) a pixel must be from the border for all its samples to lie inside the image.
inline int64_t lbp_margin(std::span<const double> rp, std::span<const double> cp) {
  int64_t m = 0;
  for (size_t i = 0; i < rp.size(); ++i)
    for (double v : {rp[i], cp[i]}) {
      if (!(std::fabs(v) < 1e15)) return INT64_MAX / 4;   // inf, NaN: every pixel on the checked path
      m = std::max<int64_t>(m, std::max(-floor_int(v), ceil_int(v)));
    }
  return m + 1;
}

// FAST's circle of 16 pixels at radius 3, clockwise from the right.
NDIMG_HD int fast_dr(int k) {
  constexpr int8_t d[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
  return d[k];
}
NDIMG_HD int fast_dc(int k) { return fast_dr((k + 4) & 15); }

// Whether the circular 16-bit `mask` holds n contiguous set bits as scikit-image's segment test finds them
// (it reads the circle 15 + n pixels round, counting in a signed char): all 16 set meets any n > 0.
NDIMG_HD bool fast_run(uint32_t mask, int n) {
  if (n <= 0) return false;
  if (mask == 0xFFFFu) return true;
  if (n > 16) return false;
  const uint32_t twice = mask | (mask << 16);
  uint32_t run = twice;
  for (int i = 1; i < n; ++i) run &= twice >> i;
  return (run & 0xFFFFu) != 0;
}

// One pixel's FAST response: 0, or the sum of |circle - centre| where n contiguous circle pixels are all
// brighter, or all darker, than the centre by more than the threshold (scikit-image tries brighter first
// and darker where that gives 0: the same sum either way). The sum is a T added in double, as its C.
template <class T>
struct FastResponse {
  const T* img;
  T* out;
  int64_t rows, cols;
  int n;
  T threshold;

  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    T res = 0;
    if (r >= 3 && r < rows - 3 && c >= 3 && c < cols - 3) res = pixel(r, c);
    out[r * cols + c] = res;
  }
  NDIMG_HD T pixel(int64_t r, int64_t c) const {
    const T centre = img[r * cols + c];
    const T lower = sub_rn(centre, threshold), upper = add_rn(centre, threshold);
    T v[16];
    uint32_t bright = 0, dark = 0;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int k = 0; k < 16; ++k) {
      v[k] = img[(r + fast_dr(k)) * cols + c + fast_dc(k)];
      if (v[k] > upper) bright |= 1u << k;
      else if (v[k] < lower) dark |= 1u << k;
    }
    // the quick test on pixels 0, 4, 8 and 12
    auto compass = [](uint32_t m) { return (m & 1) + (m >> 4 & 1) + (m >> 8 & 1) + (m >> 12 & 1); };
    if (n >= 12 && compass(bright) < 3 && compass(dark) < 3) return 0;
    if (!fast_run(bright, n) && !fast_run(dark, n)) return 0;
    T sum = 0;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int m = 0; m < 16; ++m) {
      const T d = sub_rn(v[m], centre);
      sum = T(double(sum) + (d < T(0) ? -double(d) : double(d)));
    }
    return sum;
  }
};

// One pixel's Moravec response: the smallest (Cython's min: a NaN sum is dropped unless last) sum of
// squared differences in T between the window around it and the windows centred on the shifts
// (br, bc) != (r, c) on both axes; DBL_MAX (inf in float32) where there is none.
template <class T>
struct MoravecResponse {
  const T* img;
  T* out;
  int64_t rows, cols, w;

  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    T res = 0;
    if (r >= 2 * w && r < rows - 2 * w && c >= 2 * w && c < cols - 2 * w) res = pixel(r, c);
    out[r * cols + c] = res;
  }
  NDIMG_HD T pixel(int64_t r, int64_t c) const {
    T best = T(1.7976931348623157e308);
    for (int64_t br = r - w; br <= r + w; ++br)
      for (int64_t bc = c - w; bc <= c + w; ++bc) {
        if (br == r || bc == c) continue;
        T sum = 0;
        for (int64_t mr = -w; mr <= w; ++mr)
          for (int64_t mc = -w; mc <= w; ++mc)
            sum = add_rn(sum, square_rn(sub_rn(img[(r + mr) * cols + c + mc], img[(br + mr) * cols + bc + mc])));
        if (!(best < sum)) best = sum;
      }
    return best;
  }
  // pixel() of the L pixels (r, c .. c + L - 1), all inside, at once (host): each lane's sums in pixel()'s
  // order, in GCC vectors read straight from the image rows.
  template <int L>
  void pixels_inside(int64_t r, int64_t c) const {
    typedef T Vec __attribute__((vector_size(L * sizeof(T))));
    auto load = [&](int64_t y, int64_t x) {
      Vec v;
      std::memcpy(&v, img + y * cols + x, sizeof(Vec));
      return v;
    };
    Vec best = T(1.7976931348623157e308) + Vec{};
    for (int64_t br = r - w; br <= r + w; ++br)
      for (int64_t bc = c - w; bc <= c + w; ++bc) {
        if (br == r || bc == c) continue;
        Vec sum = {};
        for (int64_t mr = -w; mr <= w; ++mr)
          for (int64_t mc = -w; mc <= w; ++mc) {
            const Vec d = load(r + mr, c + mc) - load(br + mr, bc + mc);
            sum = sum + d * d;
          }
        best = best < sum ? best : sum;
      }
    std::memcpy(out + r * cols + c, &best, sizeof(Vec));
  }
};

// One corner's orientation: the angle of its intensity centroid over the odd-shaped `mask` centred on it,
// summed in scikit-image's order (m10 over the whole mask in C order, m01 row by row, in T) and taken by
// atan2 in double. As there, the neighbourhood is read from the image zero-padded by (mask rows / 2) before
// and (mask columns / 2) after on both axes; the caller keeps the corners within that padding.
template <class T>
struct CornerOrientation {
  const T* img;
  const int64_t* corners;   // (n, 2) rows and columns, C order
  const uint8_t* mask;
  T* out;
  int64_t rows, cols, mrows, mcols;

  // Top left corner (r0, c0) of corner i's neighbourhood in the image, and whether it lies wholly inside.
  NDIMG_HD bool window(int64_t i, int64_t& r0, int64_t& c0) const {
    const int64_t mr2 = (mrows - 1) / 2;
    r0 = corners[2 * i] - mr2, c0 = corners[2 * i + 1] - mr2;
    return r0 >= 0 && r0 + mrows <= rows && c0 >= 0 && c0 + mcols <= cols;
  }
  NDIMG_HD void operator()(int64_t, int64_t i) const {
    const int64_t mr2 = (mrows - 1) / 2, mc2 = (mcols - 1) / 2;
    int64_t r0, c0;
    const bool inside = window(i, r0, c0);
    const T angle = inside ? orientation<true>(r0, c0, mr2, mc2) : orientation<false>(r0, c0, mr2, mc2);
    out[i] = angle;
  }
  // Corners i0 .. i0 + L - 1, all inside, at once (host): each one's sums in the order of orientation(), in
  // the lanes of GCC vectors, so that the adds do not wait on one another.
  template <int L>
  void orientations_inside(int64_t i0) const {
    typedef T Vec __attribute__((vector_size(L * sizeof(T))));
    const int64_t mr2 = (mrows - 1) / 2, mc2 = (mcols - 1) / 2;
    const T* base[L];
    for (int k = 0; k < L; ++k) {
      int64_t r0, c0;
      window(i0 + k, r0, c0);
      base[k] = img + r0 * cols + c0;
    }
    Vec m01 = {}, m10 = {};
    for (int64_t r = 0; r < mrows; ++r) {
      Vec row = {};
      const uint8_t* mline = mask + r * mcols;
      for (int64_t c = 0; c < mcols; ++c) {
        if (!mline[c]) continue;
        Vec v;
        for (int k = 0; k < L; ++k) v[k] = base[k][c];
        m10 = add_rn(m10, mul_rn(v, T(c - mc2)));
        row = add_rn(row, v);
      }
      m01 = add_rn(m01, mul_rn(row, T(r - mr2)));
      for (int k = 0; k < L; ++k) base[k] += cols;
    }
    for (int k = 0; k < L; ++k) out[i0 + k] = T(atan2(double(m01[k]), double(m10[k])));
  }
  template <bool Inside>
  NDIMG_HD T orientation(int64_t r0, int64_t c0, int64_t mr2, int64_t mc2) const {
    T m01 = 0, m10 = 0;
    for (int64_t r = 0; r < mrows; ++r) {
      T row = 0;
      const int64_t y = r0 + r;
      const T* line = img + y * cols + c0;
      const uint8_t* mline = mask + r * mcols;
      for (int64_t c = 0; c < mcols; ++c) {
        if (!mline[c]) continue;
        T v;
        if constexpr (Inside) v = line[c];
        else v = y >= 0 && y < rows && c0 + c >= 0 && c0 + c < cols ? line[c] : T(0);
        m10 = add_rn(m10, mul_rn(v, T(c - mc2)));
        row = add_rn(row, v);
      }
      m01 = add_rn(m01, mul_rn(row, T(r - mr2)));
    }
    return T(atan2(double(m01), double(m10)));
  }
};

// One bit of steered_pair_tests: keypoint i, pair j.
template <class T>
struct SteeredPairTest {
  const T* img;
  const int64_t* kp;   // (n, 2)
  const T* sin;
  const T* cos;
  const T* pairs;      // (m, 4)
  uint8_t* out;        // (n, m)
  int64_t cols, last, m;

  static NDIMG_HD int64_t round_index(T v) {
    return int64_t(v > T(0) ? add_rn(v, T(0.5)) : sub_rn(v, T(0.5)));
  }
  NDIMG_HD T at(int64_t i, T a, T b) const {
    const T s = sin[i], c = cos[i];
    const int64_t r = kp[2 * i] + round_index(add_rn(mul_rn(s, a), mul_rn(c, b)));
    const int64_t q = kp[2 * i + 1] + round_index(sub_rn(mul_rn(c, a), mul_rn(s, b)));
    const int64_t flat = r * cols + q;
    return img[flat < 0 ? 0 : (flat > last ? last : flat)];
  }
  NDIMG_HD void operator()(int64_t i, int64_t j) const {
    const T* p = pairs + 4 * j;
    out[i * m + j] = at(i, p[0], p[1]) < at(i, p[2], p[3]);
  }
};

// ---- engine schedules (arguments validated by the entries) ----
void local_binary_pattern_cpu(const View& image, std::span<const double> rp, std::span<const double> cp,
                              LbpMethod method, const View& out);
void corner_fast_cpu(const View& image, int n, double threshold, const View& out);
void corner_moravec_cpu(const View& image, int64_t window_size, const View& out);
void corner_orientations_cpu(const View& image, const View& corners, const View& mask, const View& out);
void glcm_props_cpu(const View& P, GlcmProp prop, const View& out);
void steered_pair_tests_cpu(const View& image, const View& keypoints, const View& sin, const View& cos,
                            const View& pairs, const View& out);
#ifdef NDIMG_WITH_CUDA
void steered_pair_tests_cuda(const View& image, const View& keypoints, const View& sin, const View& cos,
                             const View& pairs, const View& out, StreamHandle s);
void local_binary_pattern_cuda(const View& image, std::span<const double> rp, std::span<const double> cp,
                               LbpMethod method, const View& out, StreamHandle s);
void corner_fast_cuda(const View& image, int n, double threshold, const View& out, StreamHandle s);
void corner_moravec_cuda(const View& image, int64_t window_size, const View& out, StreamHandle s);
void corner_orientations_cuda(const View& image, const View& corners, const View& mask, const View& out,
                              StreamHandle s);
#endif

}  // namespace ndimg::feature
