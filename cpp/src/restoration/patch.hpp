// The patch primitives' per-pixel math, written once for the engines: scikit-image's coordinate maps for
// out-of-image neighbours and its fast exponential (Schraudolph's, as scikit-image's fast_exp.h computes it).
#pragma once
#include <cstdint>
#include <cstring>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/patch.hpp"

namespace ndimg::restoration::patch_math {

constexpr double kDistanceCutoff = 5.0;   // patch distances past this weigh nothing (scikit-image's cutoff)
constexpr int64_t kMaxBilateralChannels = 16;   // the CUDA schedule's per-pixel sums live in registers

// scikit-image's coord_map: the index in [0, n) that coordinate c reads in mode 'S'ymmetric (edge repeated),
// 'W'rap, 'E'dge or 'R'eflect (edge not repeated); C's truncating division and remainder as there.
NDIMG_HD int64_t coord_map(int64_t n, int64_t c, char mode) {
  const int64_t cmax = n - 1;
  if (mode == 'S') {
    if (c < 0) c = -c - 1;
    if (c > cmax) return (c / n) % 2 != 0 ? cmax - c % n : c % n;
  } else if (mode == 'W') {
    if (c < 0) return cmax - (-c - 1) % n;
    if (c > cmax) return c % n;
  } else if (mode == 'E') {
    if (c < 0) return 0;
    if (c > cmax) return cmax;
  } else if (mode == 'R') {
    if (n == 1) return 0;
    if (c < 0) return (-c / cmax) % 2 != 0 ? cmax - (-c % cmax) : -c % cmax;
    if (c > cmax) return (c / cmax) % 2 != 0 ? cmax - c % cmax : c % cmax;
  }
  return c;
}

// The colour table's bin of a scaled colour distance x as scikit-image's Cython takes it: truncated, the last
// bin past the table; a NaN or a distance past int64 (1e308 colours overflow to inf) converts to int64's
// minimum on x86, an index whose byte offset wraps around to the table's first element: bin 0. (A negative
// distance, from scikit-image's integer overflow of the image's range, reads before its table: bin 0 here.)
template <class T>
NDIMG_HD int64_t color_bin(T x, int64_t max_bin) {
  if (!(x >= T(0) && x < T(9.2e18))) return 0;
  return x < T(max_bin) ? int64_t(x) : max_bin;
}

// exp(y) from the bits of a double: the high word (int32)(2^20 / ln 2 * y) + 1023 * 2^20 - 60801, the low
// word 0 (valid for the y <= 0 the weights need). A NaN or out-of-range product converts as x86 converts it
// (to INT32_MIN, where CUDA would give 0 or saturate), so a NaN distance weighs the same on both engines.
NDIMG_HD double fast_exp(double y) {
  const double v = 1512775.3951951856938 * y;
  const int32_t hi = (v > -2147483649.0 && v < 2147483648.0 ? int32_t(v) : INT32_MIN) + 1072632447;
  const uint64_t bits = uint64_t(uint32_t(hi)) << 32;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace ndimg::restoration::patch_math

namespace ndimg::restoration {
// The engines' schedules (arguments validated by the entries in patch.cpp).
void bilateral_cpu(const View& image, int64_t win_size, char mode, double cval, double dist_scale,
                   const View& color_lut, const View& range_lut, const View& out);
void rolling_ball_cpu(const View& padded, const View& diff, const View& out, bool nansafe);
void bilateral_cuda(const View& image, int64_t win_size, char mode, double cval, double dist_scale,
                    const View& color_lut, const View& range_lut, const View& out, StreamHandle stream);
void rolling_ball_cuda(const View& padded, const View& diff, const View& out, bool nansafe, StreamHandle stream);
}  // namespace ndimg::restoration
