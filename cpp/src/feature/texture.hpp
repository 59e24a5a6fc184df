// Local binary patterns and the FAST and Moravec corner responses: the per-pixel math once for both engines
// (scikit-image's Cython loops, rounding step for step), and the schedules' declarations. The entries are in
// texture.cpp.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/feature_texture.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

// scikit-image's bilinear_interpolation of a float64 image in mode 'C' with cval 0.
NDIMG_HD double bilinear_zero(const double* img, int64_t rows, int64_t cols, double r, double c) {
  const int64_t r0 = int64_t(floor(r)), c0 = int64_t(floor(c)), r1 = int64_t(ceil(r)), c1 = int64_t(ceil(c));
  const double dr = r - double(r0), dc = c - double(c0);
  auto px = [&](int64_t y, int64_t x) { return y < 0 || y >= rows || x < 0 || x >= cols ? 0.0 : img[y * cols + x]; };
  const double top = add_rn(mul_rn(1.0 - dc, px(r0, c0)), mul_rn(dc, px(r0, c1)));
  const double bottom = add_rn(mul_rn(1.0 - dc, px(r1, c0)), mul_rn(dc, px(r1, c1)));
  return add_rn(mul_rn(1.0 - dr, top), mul_rn(dr, bottom));
}

// 2**i in int32 as NumPy's 2 ** arange(P, dtype=int32) wraps it.
NDIMG_HD int32_t lbp_weight(int64_t i) { return i < 31 ? int32_t(1) << i : i == 31 ? INT32_MIN : 0; }

// One pixel's pattern. The samples stream through once, keeping what each method needs (scikit-image keeps
// them in arrays): the pattern bits as the int32 sum of weights, their changes, the number of ones and the
// first one and zero (int8, as there), the sum and the sum of squares.
struct LocalBinaryPattern {
  const double* img;
  double* out;
  const double* rp;
  const double* cp;
  int64_t rows, cols, P;
  LbpMethod method;

  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    const double centre = img[r * cols + c];
    double code = 0, sum = 0, sq = 0;
    int64_t changes = 0, ones = 0;
    int8_t first_one = -1, first_zero = -1;
    bool prev = false;
    for (int64_t i = 0; i < P; ++i) {
      const double t = bilinear_zero(img, rows, cols, double(r) + rp[i], double(c) + cp[i]);
      const bool bit = t - centre >= 0;
      if (method == LbpMethod::Var) {
        sum = add_rn(sum, t);
        sq = add_rn(sq, square_rn(t));
        continue;
      }
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
    double lbp = 0;
    switch (method) {
      case LbpMethod::Var: {
        const double var = (sq - square_rn(sum) / double(P)) / double(P);
        lbp = var != 0 ? var : NAN;
        break;
      }
      case LbpMethod::Uniform: lbp = double(changes <= 2 ? ones : P + 1); break;
      case LbpMethod::NriUniform:
        if (changes > 2) lbp = double(P * (P - 1) + 2);
        else if (ones == 0) lbp = 0;
        else if (ones == P) lbp = double(P * (P - 1) + 1);
        else lbp = double(1 + (ones - 1) * P + (first_one == 0 ? ones - first_zero : P - first_one));
        break;
      case LbpMethod::Ror: {
        // the smallest right rotation of the P-bit code, in int32 as x86 shifts it (the count taken mod 32)
        int32_t v = int32_t(code), best = v;
        const int shift = int((P - 1) & 31);
        for (int64_t i = 1; i < P; ++i) {
          v = int32_t((v >> 1) | int32_t(uint32_t(v & 1) << shift));
          if (v < best) best = v;
        }
        lbp = double(best);
        break;
      }
      default: lbp = code;
    }
    out[r * cols + c] = lbp;
  }
};

// FAST's circle of 16 pixels at radius 3, clockwise from the right.
NDIMG_HD int fast_dr(int k) {
  constexpr int8_t d[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
  return d[k];
}
NDIMG_HD int fast_dc(int k) { return fast_dr((k + 4) & 15); }

// One pixel's FAST response: 0, or the sum of |circle - centre| where n contiguous circle pixels (the circle
// read twice round) are all brighter, else all darker, than the centre by more than the threshold. The
// counter is a signed char and the sum a T added in double, as scikit-image's C.
template <class T>
struct FastResponse {
  const T* img;
  T* out;
  int64_t rows, cols;
  int n;
  T threshold;

  NDIMG_HD T at(int64_t r, int64_t c, int k) const { return img[(r + fast_dr(k)) * cols + c + fast_dc(k)]; }
  // 1 brighter, -1 darker, 0 similar
  NDIMG_HD int bin(T v, T lower, T upper) const { return v > upper ? 1 : v < lower ? -1 : 0; }
  NDIMG_HD T response(int64_t r, int64_t c, T centre, T lower, T upper, int state) const {
    int8_t count = 0;
    for (int l = 0; l < 15 + n; ++l) {
      if (bin(at(r, c, l % 16), lower, upper) == state) {
        count = int8_t(count + 1);
        if (count == n) {
          T sum = 0;
          for (int m = 0; m < 16; ++m) {
            const T d = sub_rn(at(r, c, m), centre);
            sum = T(double(sum) + (d < T(0) ? -double(d) : double(d)));
          }
          return sum;
        }
      } else {
        count = 0;
      }
    }
    return 0;
  }
  NDIMG_HD void operator()(int64_t r, int64_t c) const {
    T res = 0;
    if (r >= 3 && r < rows - 3 && c >= 3 && c < cols - 3) res = pixel(r, c);
    out[r * cols + c] = res;
  }
  NDIMG_HD T pixel(int64_t r, int64_t c) const {
    const T centre = img[r * cols + c];
    const T lower = sub_rn(centre, threshold), upper = add_rn(centre, threshold);
    if (n >= 12) {  // the quick test on the four compass points
      int bright = 0, dark = 0;
      for (int k = 0; k < 16; k += 4) {
        const int b = bin(at(r, c, k), lower, upper);
        bright += b == 1;
        dark += b == -1;
      }
      if (dark < 3 && bright < 3) return 0;
    }
    const T res = response(r, c, centre, lower, upper, 1);
    return res == T(0) ? response(r, c, centre, lower, upper, -1) : res;
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
};

// ---- engine schedules (arguments validated by the entries) ----
void local_binary_pattern_cpu(const View& image, std::span<const double> rp, std::span<const double> cp,
                              LbpMethod method, const View& out);
void corner_fast_cpu(const View& image, int n, double threshold, const View& out);
void corner_moravec_cpu(const View& image, int64_t window_size, const View& out);
#ifdef NDIMG_WITH_CUDA
void local_binary_pattern_cuda(const View& image, std::span<const double> rp, std::span<const double> cp,
                               LbpMethod method, const View& out, StreamHandle s);
void corner_fast_cuda(const View& image, int n, double threshold, const View& out, StreamHandle s);
void corner_moravec_cuda(const View& image, int64_t window_size, const View& out, StreamHandle s);
#endif

}  // namespace ndimg::feature
