// The rank filters' math, once for both engines: the window's geometry and footprint edge lists, and the
// statistics of a window histogram as scikit-image's kernels compute them (generic_cy, percentile_cy and
// bilateral_cy): the same integer or double arithmetic, the same loop exits, the value then converted to the
// output's type as C converts it.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/rank.hpp"

namespace ndimg::rank::math {

enum Stat : int {
  kAutolevel, kEqualize, kGradient, kMaximum, kMean, kGeometricMean, kSubtractMean, kMedian, kMinimum, kModal,
  kEnhanceContrast, kPop, kSum, kThreshold, kNoiseFilter, kEntropy, kOtsu, kWindowedHistogram, kMajority,
  kAutolevelP, kGradientP, kMeanP, kSumP, kSubtractMeanP, kEnhanceContrastP, kPercentile, kPopP, kThresholdP,
  kMeanB, kPopB, kSumB, kStatCount
};

// Everything a schedule needs besides the arrays. Images are seen as (planes, rows, cols): a 2-D image is
// one plane, its footprint one plane deep.
struct Geometry {
  int64_t planes = 1, rows = 1, cols = 1;
  int64_t n_bins = 256, mid_bin = 128, odepth = 1;
  double p0 = 0, p1 = 0;
  int64_t s0 = 0, s1 = 0;
  int stat = kMean;
  bool use_mask = false;
  // what the statistic reads besides the population and the grey levels' sum: the bins, their groups
  bool need_bins = true, need_groups = true;
  int64_t n_full = 0, n_east = 0, n_west = 0;  // lengths of the footprint lists (Offset triples)
  int64_t min_dc = 0, max_dc = 0;             // the footprint's column offsets' range
  const double* log_levels = nullptr;          // geometric_mean: log(i + 1) of every bin i, on the engine's device
};

// A footprint element relative to the centre.
struct Offset {
  int32_t dp, dr, dc;
};

// A statistic's value with the type scikit-image's kernel computes it in (Py_ssize_t or double).
struct Val {
  double f;
  int64_t i;
  bool is_float;
};
// The statistics that read only the window's population and grey-level sum (no histogram), and those
// that read bins but no groups.
NDIMG_HD bool reads_bins(int stat) {
  return stat != kMean && stat != kSubtractMean && stat != kPop && stat != kSum && stat != kThreshold;
}
NDIMG_HD bool reads_groups(int stat) {
  return reads_bins(stat) && stat != kWindowedHistogram && stat != kMeanB && stat != kPopB && stat != kSumB;
}

NDIMG_HD Val ival(int64_t v) { return Val{0.0, v, false}; }
NDIMG_HD Val fval(double v) { return Val{v, 0, true}; }

// The one output conversion: C's, a double truncated toward zero then wrapped into an unsigned output (as
// x86's conversion through a 32-bit integer does for the values a window can produce).
template <class O>
NDIMG_HD O convert(Val v) {
  if constexpr (std::is_floating_point_v<O>) return v.is_float ? O(v.f) : O(v.i);
  else return O(v.is_float ? int64_t(v.f) : v.i);
}

// scikit-image's round (_shared/interpolation.pxd): half away from zero, truncated to an integer.
NDIMG_HD int64_t round_half_away(double r) { return int64_t(r > 0.0 ? r + 0.5 : r - 0.5); }

// Window histograms keep, beside the count of every bin, the count of every group of kGroup bins, so that
// the statistics' scans pass over empty groups and over groups their running count cannot stop in. A
// histogram H gives h[i] (bin i) and h.group(j) (bins j * kGroup to j * kGroup + kGroup - 1).
constexpr int kGroupShift = 4;
constexpr int64_t kGroup = int64_t(1) << kGroupShift;
NDIMG_HD int64_t groups_of(int64_t n) { return (n + kGroup - 1) >> kGroupShift; }

// The lowest nonzero bin at or above `from` (n if none).
template <class H>
NDIMG_HD int64_t next_nonzero(const H& h, int64_t from, int64_t n) {
  for (int64_t j = from >> kGroupShift; j < groups_of(n); ++j) {
    if (!h.group(j)) continue;
    const int64_t end = (j + 1) * kGroup < n ? (j + 1) * kGroup : n;
    for (int64_t i = j * kGroup > from ? j * kGroup : from; i < end; ++i)
      if (h[i]) return i;
  }
  return n;
}
// The highest nonzero bin at or below `from` (-1 if none).
template <class H>
NDIMG_HD int64_t prev_nonzero(const H& h, int64_t from) {
  for (int64_t j = from >> kGroupShift; j >= 0; --j) {
    if (!h.group(j)) continue;
    for (int64_t i = (j + 1) * kGroup - 1 < from ? (j + 1) * kGroup - 1 : from; i >= j * kGroup; --i)
      if (h[i]) return i;
  }
  return -1;
}
template <class H>
NDIMG_HD int64_t first_nonzero(const H& h, int64_t n) {
  const int64_t i = next_nonzero(h, 0, n);
  return i < n ? i : 0;
}
template <class H>
NDIMG_HD int64_t last_nonzero(const H& h, int64_t n) {
  const int64_t i = prev_nonzero(h, n - 1);
  return i >= 0 ? i : 0;
}

// The first bin whose running count from bin 0 (or, Down, from bin n - 1) satisfies `pass`, a condition
// that stays true once true as the count grows (n, or -1 Down, if none): a group whose whole count would
// not pass is stepped over.
template <bool Down = false, class H, class P>
NDIMG_HD int64_t first_passing(const H& h, int64_t n, P pass) {
  int64_t cum = 0;
  const int64_t ng = groups_of(n);
  for (int64_t k = 0; k < ng; ++k) {
    const int64_t j = Down ? ng - 1 - k : k;
    const int64_t g = h.group(j);
    if (!pass(cum + g)) {
      cum += g;
      continue;
    }
    const int64_t lo = j * kGroup, hi = (j + 1) * kGroup < n ? (j + 1) * kGroup - 1 : n - 1;
    for (int64_t m = 0; m <= hi - lo; ++m) {
      const int64_t i = Down ? hi - m : lo + m;
      cum += h[i];
      if (pass(cum)) return i;
    }
  }
  return Down ? -1 : n;
}

// The percentile kernels' lower and upper grey levels: the first bin whose running count from below passes
// p0 * pop (from above passes (1 - p1) * pop), strictly (autolevel, enhance_contrast) or not (gradient);
// 0 where none does.
template <bool Strict, class H>
NDIMG_HD void percentile_bounds(const H& h, int64_t n, double pop, double p0, double p1, int64_t& imin,
                                int64_t& imax) {
  const double lo = p0 * pop, hi = (1.0 - p1) * pop;
  imin = first_passing(h, n, [lo](int64_t c) { return Strict ? double(c) > lo : double(c) >= lo; });
  imax = first_passing<true>(h, n, [hi](int64_t c) { return Strict ? double(c) > hi : double(c) >= hi; });
  if (imin == n) imin = 0;
  if (imax < 0) imax = 0;
}

// Count and sum of the grey levels whose running count from below lies within [p0 * pop, p1 * pop]: the
// bins from the first whose count reaches p0 * pop to the last whose count stays within p1 * pop.
template <class H>
NDIMG_HD void percentile_band(const H& h, int64_t n, double pop, double p0, double p1, int64_t& count,
                              int64_t& total) {
  const double lo = p0 * pop, hi = p1 * pop;
  const int64_t a = first_passing(h, n, [lo](int64_t c) { return double(c) >= lo; });
  const int64_t b = first_passing(h, n, [hi](int64_t c) { return double(c) > hi; }) - 1;
  count = total = 0;
  for (int64_t i = a; i <= b; ++i) {
    count += h[i];
    total += h[i] * i;
  }
}

// Count and sum of the grey levels i with g - s1 < i < g + s0 (bilateral_cy's g > i - s0 and g < i + s1).
template <class H>
NDIMG_HD void bilateral_band(const H& h, int64_t n, int64_t g, int64_t s0, int64_t s1, int64_t& count,
                             int64_t& total) {
  count = total = 0;
  const int64_t lo = g - s1 + 1 > 0 ? g - s1 + 1 : 0, hi = g + s0 - 1 < n - 1 ? g + s0 - 1 : n - 1;
  for (int64_t i = lo; i <= hi; ++i) {
    count += h[i];
    total += h[i] * i;
  }
}

// Calls f(i, count) for every nonzero bin from `from` up, in order, while f returns true.
template <class H, class F>
NDIMG_HD void for_nonzero(const H& h, int64_t from, int64_t n, F f) {
  for (int64_t j = from >> kGroupShift; j < groups_of(n); ++j) {
    if (!h.group(j)) continue;
    const int64_t end = (j + 1) * kGroup < n ? (j + 1) * kGroup : n;
    for (int64_t i = j * kGroup > from ? j * kGroup : from; i < end; ++i) {
      const int64_t c = h[i];
      if (c && !f(i, c)) return;
    }
  }
}

// Otsu's threshold of the window (generic_cy's _kernel_otsu): the between-class variance in double, each
// product rounded on its own.
template <class H>
NDIMG_HD int64_t otsu_level(const H& h, int64_t n, double pop, int64_t mu) {
  int64_t max_i = 0, q1 = h[0], mu1 = 0;
  double max_sigma = 0.0;
  for_nonzero(h, 1, n, [&](int64_t i, int64_t P) {
    q1 += P;
    if (double(q1) == pop) return false;
    mu1 += i * P;
    const int64_t mu2 = mu - mu1;
    const double rest = sub_rn(pop, double(q1));
    const double t = sub_rn(mul_rn(rest, double(mu1)), double(mu2 * q1));
    const double sigma = mul_rn(t, t) / mul_rn(double(q1), rest);
    if (sigma > max_sigma) {
      max_sigma = sigma;
      max_i = i;
    }
    return true;
  });
  return max_i;
}

// entropy's term of a bin holding c of the window's pop pixels: p log2(p) as scikit-image rounds it.
NDIMG_HD double entropy_term(int64_t c, double pop) {
  const double p = double(c) / pop;
  return mul_rn(p, log(p)) / 0.6931471805599453;
}

// The statistic of window histogram h (n bins) holding `popi` pixels whose grey levels sum to `wsum`, at
// a pixel of grey level g. windowed_histogram is written by its own loop (store below).
// `terms` (or nullptr): entropy_term(c, pop) for every c from 0 to pop, a table the CPU keeps.
template <class H>
NDIMG_HD Val statistic(const Geometry& q, const H& h, int64_t popi, int64_t wsum, int64_t g, const double* terms) {
  const int64_t n = q.n_bins;
  const double pop = double(popi);
  if (q.stat == kNoiseFilter) {  // the only kernel without the empty-window exit
    if (h[g] > 0) return ival(0);
    const int64_t down = prev_nonzero(h, g), up = next_nonzero(h, g, n);
    const int64_t below = g - (down >= 0 ? down : 0), above = (up < n ? up : n - 1) - g;
    return ival(above < below ? above : below);
  }
  if (popi == 0) return ival(0);
  switch (q.stat) {
    case kAutolevel: {
      const int64_t imax = last_nonzero(h, n), imin = first_nonzero(h, n), delta = imax - imin;
      return ival(delta > 0 ? (n - 1) * (g - imin) / delta : 0);
    }
    case kEqualize: {  // the count of bins 0 to g
      int64_t sum = 0;
      for (int64_t j = 0; j < (g >> kGroupShift); ++j) sum += h.group(j);
      for (int64_t i = g & ~(kGroup - 1); i <= g && i < n; ++i) sum += h[i];
      return fval(double((n - 1) * sum) / pop);
    }
    case kGradient: return ival(last_nonzero(h, n) - first_nonzero(h, n));
    case kMaximum: return ival(last_nonzero(h, n));
    case kMean: return fval(double(wsum) / pop);
    case kGeometricMean: {
      double m = 0.0;
      for_nonzero(h, 0, n, [&](int64_t i, int64_t c) {
        m += double(c) * q.log_levels[i];
        return true;
      });
      return ival(round_half_away(exp(m / pop) - 1.0));
    }
    case kSubtractMean: return fval((double(g) - double(wsum) / pop) / 2.0 + double(q.mid_bin) - 1.0);
    case kMedian: {  // the first level whose running count passes half the window (rest = pop / 2 - count < 0)
      const double half = pop / 2.0;
      const int64_t i = first_passing(h, n, [half](int64_t c) { return half - double(c) < 0; });
      return ival(i < n ? i : 0);
    }
    case kMinimum: return ival(first_nonzero(h, n));
    case kModal:
    case kMajority: {  // the first of the most frequent levels (empty groups stepped over)
      int64_t best = 0, level = 0;
      for (int64_t j = 0; j < groups_of(n); ++j) {
        if (!h.group(j)) continue;
        const int64_t end = (j + 1) * kGroup < n ? (j + 1) * kGroup : n;
        for (int64_t i = j * kGroup; i < end; ++i)
          if (h[i] > best) {
            best = h[i];
            level = i;
          }
      }
      return ival(level);
    }
    case kEnhanceContrast: {
      const int64_t imax = last_nonzero(h, n), imin = first_nonzero(h, n);
      return ival(imax - g < g - imin ? imax : imin);
    }
    case kPop: return fval(pop);
    case kSum: return ival(wsum);
    case kThreshold: return ival(double(g) > double(wsum) / pop);
    case kEntropy: {  // empty bins (p = 0) add nothing
      double e = 0.0;
      for_nonzero(h, 0, n, [&](int64_t, int64_t c) {
        e -= terms ? terms[c] : entropy_term(c, pop);
        return true;
      });
      return fval(e);
    }
    case kOtsu: return ival(otsu_level(h, n, pop, wsum));
    case kAutolevelP: {
      int64_t imin, imax;
      percentile_bounds<true>(h, n, pop, q.p0, q.p1, imin, imax);
      const int64_t delta = imax - imin;
      if (delta <= 0) return ival(delta);
      const int64_t c = g < imin ? imin : (g > imax ? imax : g);
      return ival((n - 1) * (c - imin) / delta);
    }
    case kGradientP: {
      int64_t imin, imax;
      percentile_bounds<false>(h, n, pop, q.p0, q.p1, imin, imax);
      return ival(imax - imin);
    }
    case kEnhanceContrastP: {
      int64_t imin, imax;
      percentile_bounds<true>(h, n, pop, q.p0, q.p1, imin, imax);
      return ival(imax - g < g - imin ? imax : imin);
    }
    case kMeanP:
    case kSumP:
    case kSubtractMeanP:
    case kPopP: {
      int64_t count, total;
      percentile_band(h, n, pop, q.p0, q.p1, count, total);
      if (q.stat == kPopP) return ival(count);
      if (count == 0) return ival(0);
      if (q.stat == kSumP) return ival(total);
      if (q.stat == kMeanP) return ival(total / count);
      return fval(double(g - total / count) * 0.5 + double(q.mid_bin));
    }
    case kPercentile: {
      if (q.p0 == 1) return ival(last_nonzero(h, n));
      const double lo = q.p0 * pop;
      const int64_t i = first_passing(h, n, [lo](int64_t c) { return double(c) > lo; });
      return ival(i < n ? i : n - 1);  // no level passes: the loop's last
    }
    case kThresholdP: {
      const double lo = q.p0 * pop;
      int64_t i = first_passing(h, n, [lo](int64_t c) { return double(c) >= lo; });
      if (i == n) i = n - 1;
      return ival((n - 1) * (g >= i));
    }
    case kMeanB:
    case kPopB:
    case kSumB: {
      int64_t count, total;
      bilateral_band(h, n, g, q.s0, q.s1, count, total);
      if (q.stat == kPopB) return ival(count);
      if (count == 0) return ival(0);
      return ival(q.stat == kSumB ? total : total / count);
    }
    default: return ival(0);
  }
}

// Writes the pixel's output (odepth values): windowed_histogram's normalised counts (0 past the window
// histogram's bins), else the one statistic.
template <class O, class H>
NDIMG_HD void store(const Geometry& q, const H& h, int64_t popi, int64_t wsum, int64_t g, O* out,
                    const double* terms = nullptr) {
  if (q.stat == kWindowedHistogram) {
    const double scale = popi ? 1.0 / double(popi) : 0.0;
    for (int64_t i = 0; i < q.odepth; ++i)
      out[i] = popi && i < q.n_bins ? O(double(h[i]) * scale) : O(0);
    return;
  }
  out[0] = convert<O>(statistic(q, h, popi, wsum, g, terms));
}

}  // namespace ndimg::rank::math

namespace ndimg::rank {
void rank_cpu(const View& image, const View& mask, const math::Offset* lists, const math::Geometry& q,
              const View& out);
#ifdef NDIMG_WITH_CUDA
void rank_cuda(const View& image, const View& mask, const math::Offset* lists, const math::Geometry& q,
               const View& out, StreamHandle s);
#endif
}  // namespace ndimg::rank
