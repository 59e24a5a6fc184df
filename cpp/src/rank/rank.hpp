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

// A schedule forced by NDIMG_RANK_SCHEDULE (tests): the histogram or, where a statistic has it, the direct
// window.
enum Schedule : int { kAuto, kForceHistogram, kForceDirect };

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
  int schedule = kAuto;
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

// The window queries the statistics read, answered by a histogram's bin scans (HistWindow) or by loops over
// the window's values (ValueWindow), so that each statistic is written once:
//   lowest(), highest(): the least and greatest value of a nonempty window
//   count_le(i): how many values are <= i
//   first_passing<Down>(pass): the first bin whose running count from bin 0 (Down: from bin n - 1)
//     satisfies pass, a condition that stays true once true as the count grows (n, or -1 Down, if none)
//   band(a, b, count, total): how many values lie in [a, b] and their sum
//   has(g), below(g), above(g): whether g is in the window, its greatest value <= g (-1 if none), its
//     least value >= g (n if none)
// kHistogram says whether the bins themselves (w.h) are there for the statistics that read every bin.
template <class H>
struct HistWindow {
  static constexpr bool kHistogram = true, summed = true;
  const H& h;
  int64_t n;
  NDIMG_HD int64_t lowest() const { return first_nonzero(h, n); }
  NDIMG_HD int64_t highest() const { return last_nonzero(h, n); }
  NDIMG_HD int64_t count_le(int64_t g) const {
    int64_t sum = 0;
    for (int64_t j = 0; j < (g >> kGroupShift); ++j) sum += h.group(j);
    for (int64_t i = g & ~(kGroup - 1); i <= g && i < n; ++i) sum += h[i];
    return sum;
  }
  template <bool Down, class P>
  NDIMG_HD int64_t first_passing(P pass) const { return math::first_passing<Down>(h, n, pass); }
  NDIMG_HD void band(int64_t a, int64_t b, int64_t& count, int64_t& total) const {
    count = total = 0;
    for (int64_t i = a > 0 ? a : 0; i <= b && i < n; ++i) {
      count += h[i];
      total += h[i] * i;
    }
  }
  NDIMG_HD bool has(int64_t g) const { return h[g] > 0; }
  NDIMG_HD int64_t below(int64_t g) const { return prev_nonzero(h, g); }
  NDIMG_HD int64_t above(int64_t g) const { return next_nonzero(h, g, n); }
};

// A window read value by value: taps.each(m, f) calls f with each of its m values (at most kMaxDirect), a
// grey level or -1 for a place outside the image or the mask. scan() makes the one pass every statistic
// needs: the population and, as the statistic reads them (Parts), the sum and the extremes; the rank
// queries count over the values, the k-th smallest found by bisection between the extremes. Counts and
// sums fit 32 bits (kMaxDirect values below 65536).
constexpr int64_t kMaxDirect = 32767;
enum ScanPart : int { kScanSum = 1, kScanExtremes = 2, kScanAll = 3 };

// The values gathered in an array (none -1).
struct ValueArray {
  const int32_t* v;
  template <class F>
  NDIMG_HD void each(int32_t m, F f) const {
    for (int32_t k = 0; k < m; ++k) f(v[k]);
  }
};

template <class Taps>
struct ValueWindow {
  static constexpr bool kHistogram = false;
  Taps taps;
  int64_t m, n;
  int64_t pop = 0, sum = 0, lo = 0, hi = -1;
  bool summed = false;  // sum scanned
  // Absent: whether -1 may be among the values. -1 adds -1 to the sum and its sign bit to the absent
  // count; as unsigned it passes every value (the least), as signed none (the greatest).
  template <int Parts = kScanAll, bool Absent = true>
  NDIMG_HD void scan() {
    int32_t s = 0, absent = 0;
    uint32_t mn = 0xffffffffu;
    int32_t mx = -1;
    taps.each(int32_t(m), [&](int32_t x) {
      if constexpr ((Parts & kScanSum) != 0) s += x;
      if constexpr (Absent) absent -= x >> 31;
      if constexpr ((Parts & kScanExtremes) != 0) {
        mn = uint32_t(x) < mn ? uint32_t(x) : mn;
        mx = x > mx ? x : mx;
      }
    });
    pop = m - absent;
    sum = s + absent;
    summed = (Parts & kScanSum) != 0;
    lo = mn;
    hi = mx;
  }
  NDIMG_HD int64_t lowest() const { return lo; }
  NDIMG_HD int64_t highest() const { return hi; }
  NDIMG_HD int64_t count_le(int64_t g) const {
    int32_t c = 0;
    taps.each(int32_t(m), [&](int32_t x) { c += uint32_t(x) <= uint32_t(g); });
    return c;
  }
  // the k-th smallest value, 1 <= k <= pop
  NDIMG_HD int64_t kth(int64_t k) const {
    if (k == 1) return lo;
    if (k == pop) return hi;
    int64_t a = lo, b = hi;  // count_le(b) >= k
    while (a < b) {
      const int64_t mid = (a + b) >> 1;
      if (count_le(mid) >= k) b = mid;
      else a = mid + 1;
    }
    return a;
  }
  // The first bin whose running count reaches the least passing count k: the k-th smallest value (Down:
  // the k-th greatest).
  template <bool Down, class P>
  NDIMG_HD int64_t first_passing(P pass) const {
    int64_t k;
    if (pass(int64_t(0))) k = 0;
    else if (!pass(pop)) k = pop + 1;
    else if (pass(int64_t(1))) k = 1;
    else if (!pass(pop - 1)) k = pop;
    else {
      int64_t a = 0, b = pop;  // pass(b), not pass(a)
      while (b - a > 1) {
        const int64_t mid = (a + b) >> 1;
        if (pass(mid)) b = mid;
        else a = mid;
      }
      k = b;
    }
    if (k == 0) return Down ? n - 1 : 0;
    if (k > pop) return Down ? -1 : n;
    return kth(Down ? pop - k + 1 : k);
  }
  NDIMG_HD void band(int64_t a, int64_t b, int64_t& count, int64_t& total) const {
    a = a > 0 ? a : 0;
    b = b < n - 1 ? b : n - 1;
    int32_t c = 0, t = 0;
    if (a <= b)
      taps.each(int32_t(m), [&](int32_t x) {
        const bool in = uint32_t(x - int32_t(a)) <= uint32_t(b - a);
        c += in;
        t += in ? x : 0;
      });
    count = c;
    total = t;
  }
  NDIMG_HD bool has(int64_t g) const {
    bool in = false;
    taps.each(int32_t(m), [&](int32_t x) { in |= x == g; });
    return in;
  }
  NDIMG_HD int64_t below(int64_t g) const {
    int32_t b = -1;
    taps.each(int32_t(m), [&](int32_t x) { b = x <= g && x > b ? x : b; });
    return b;
  }
  NDIMG_HD int64_t above(int64_t g) const {
    uint32_t a = 0xffffffffu;
    taps.each(int32_t(m), [&](int32_t v) {
      const uint32_t x = uint32_t(v);
      a = x >= uint32_t(g) && x < a ? x : a;
    });
    return a == 0xffffffffu ? n : int64_t(a);
  }
};

// The percentile kernels' lower and upper grey levels: the first bin whose running count from below passes
// p0 * pop (from above passes (1 - p1) * pop), strictly (autolevel, enhance_contrast) or not (gradient);
// 0 where none does.
template <bool Strict, class W>
NDIMG_HD void percentile_bounds(const W& w, int64_t n, double pop, double p0, double p1, int64_t& imin,
                                int64_t& imax) {
  const double lo = p0 * pop, hi = (1.0 - p1) * pop;
  imin = w.template first_passing<false>([lo](int64_t c) { return Strict ? double(c) > lo : double(c) >= lo; });
  imax = w.template first_passing<true>([hi](int64_t c) { return Strict ? double(c) > hi : double(c) >= hi; });
  if (imin == n) imin = 0;
  if (imax < 0) imax = 0;
}

// The statistic of window w (n bins) holding `popi` pixels whose grey levels sum to `wsum`, at a pixel of
// grey level g. windowed_histogram is written by its own loop (store below); modal, majority, geometric_mean,
// entropy and otsu read every bin, a histogram's only.
// `terms` (or nullptr): entropy_term(c, pop) for every c from 0 to pop, a table the CPU keeps.
template <class W>
NDIMG_HD Val statistic(const Geometry& q, const W& w, int64_t popi, int64_t wsum, int64_t g, const double* terms) {
  const int64_t n = q.n_bins;
  const double pop = double(popi);
  // count and (where want_total) sum of the values in [a, b]: every value where that spans the bins (and
  // the window's sum is at hand)
  auto band = [&](int64_t a, int64_t b, bool want_total, int64_t& count, int64_t& total) {
    if (a <= 0 && b >= n - 1 && (w.summed || !want_total)) {
      count = popi;
      total = wsum;
    } else {
      w.band(a, b, count, total);
    }
  };
  if (q.stat == kNoiseFilter) {  // the only kernel without the empty-window exit
    if (w.has(g)) return ival(0);
    const int64_t down = w.below(g), up = w.above(g);
    const int64_t below = g - (down >= 0 ? down : 0), above = (up < n ? up : n - 1) - g;
    return ival(above < below ? above : below);
  }
  if (popi == 0) return ival(0);
  switch (q.stat) {
    case kAutolevel: {
      const int64_t imax = w.highest(), imin = w.lowest(), delta = imax - imin;
      return ival(delta > 0 ? (n - 1) * (g - imin) / delta : 0);
    }
    case kEqualize: return fval(double((n - 1) * w.count_le(g)) / pop);
    case kGradient: return ival(w.highest() - w.lowest());
    case kMaximum: return ival(w.highest());
    case kMean: return fval(double(wsum) / pop);
    case kSubtractMean: return fval((double(g) - double(wsum) / pop) / 2.0 + double(q.mid_bin) - 1.0);
    case kMedian: {  // the first level whose running count passes half the window (rest = pop / 2 - count < 0)
      const double half = pop / 2.0;
      const int64_t i = w.template first_passing<false>([half](int64_t c) { return half - double(c) < 0; });
      return ival(i < n ? i : 0);
    }
    case kMinimum: return ival(w.lowest());
    case kEnhanceContrast: {
      const int64_t imax = w.highest(), imin = w.lowest();
      return ival(imax - g < g - imin ? imax : imin);
    }
    case kPop: return fval(pop);
    case kSum: return ival(wsum);
    case kThreshold: return ival(double(g) > double(wsum) / pop);
    case kAutolevelP: {
      int64_t imin, imax;
      percentile_bounds<true>(w, n, pop, q.p0, q.p1, imin, imax);
      const int64_t delta = imax - imin;
      if (delta <= 0) return ival(delta);
      const int64_t c = g < imin ? imin : (g > imax ? imax : g);
      return ival((n - 1) * (c - imin) / delta);
    }
    case kGradientP: {
      int64_t imin, imax;
      percentile_bounds<false>(w, n, pop, q.p0, q.p1, imin, imax);
      return ival(imax - imin);
    }
    case kEnhanceContrastP: {
      int64_t imin, imax;
      percentile_bounds<true>(w, n, pop, q.p0, q.p1, imin, imax);
      return ival(imax - g < g - imin ? imax : imin);
    }
    case kMeanP:
    case kSumP:
    case kSubtractMeanP:
    case kPopP: {  // the levels whose running count from below lies within [p0 * pop, p1 * pop]: from the
                   // first whose count reaches p0 * pop to the last whose count stays within p1 * pop
      const double lo = q.p0 * pop, hi = q.p1 * pop;
      const int64_t a = w.template first_passing<false>([lo](int64_t c) { return double(c) >= lo; });
      const int64_t b = w.template first_passing<false>([hi](int64_t c) { return double(c) > hi; }) - 1;
      int64_t count, total;
      band(a, b, q.stat != kPopP, count, total);
      if (q.stat == kPopP) return ival(count);
      if (count == 0) return ival(0);
      if (q.stat == kSumP) return ival(total);
      if (q.stat == kMeanP) return ival(total / count);
      return fval(double(g - total / count) * 0.5 + double(q.mid_bin));
    }
    case kPercentile: {
      if (q.p0 == 1) return ival(w.highest());
      const double lo = q.p0 * pop;
      const int64_t i = w.template first_passing<false>([lo](int64_t c) { return double(c) > lo; });
      return ival(i < n ? i : n - 1);  // no level passes: the loop's last
    }
    case kThresholdP: {
      const double lo = q.p0 * pop;
      int64_t i = w.template first_passing<false>([lo](int64_t c) { return double(c) >= lo; });
      if (i == n) i = n - 1;
      return ival((n - 1) * (g >= i));
    }
    case kMeanB:
    case kPopB:
    case kSumB: {  // the levels i with g - s1 < i < g + s0 (bilateral_cy's g > i - s0 and g < i + s1)
      int64_t count, total;
      band(g - q.s1 + 1, g + q.s0 - 1, q.stat != kPopB, count, total);
      if (q.stat == kPopB) return ival(count);
      if (count == 0) return ival(0);
      return ival(q.stat == kSumB ? total : total / count);
    }
    default: break;
  }
  if constexpr (W::kHistogram) {
    const auto& h = w.h;
    switch (q.stat) {
      case kGeometricMean: {
        double m = 0.0;
        for_nonzero(h, 0, n, [&](int64_t i, int64_t c) {
          m += double(c) * q.log_levels[i];
          return true;
        });
        return ival(round_half_away(exp(m / pop) - 1.0));
      }
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
      case kEntropy: {  // empty bins (p = 0) add nothing
        double e = 0.0;
        for_nonzero(h, 0, n, [&](int64_t, int64_t c) {
          e -= terms ? terms[c] : entropy_term(c, pop);
          return true;
        });
        return fval(e);
      }
      case kOtsu: return ival(otsu_level(h, n, pop, wsum));
      default: break;
    }
  }
  return ival(0);
}

// Writes the pixel's output (odepth values): windowed_histogram's normalised counts (0 past the window
// histogram's bins), else the one statistic.
template <class O, class W>
NDIMG_HD void store(const Geometry& q, const W& w, int64_t popi, int64_t wsum, int64_t g, O* out,
                    const double* terms = nullptr) {
  if constexpr (W::kHistogram)
    if (q.stat == kWindowedHistogram) {
      const double scale = popi ? 1.0 / double(popi) : 0.0;
      for (int64_t i = 0; i < q.odepth; ++i)
        out[i] = popi && i < q.n_bins ? O(double(w.h[i]) * scale) : O(0);
      return;
    }
  out[0] = convert<O>(statistic(q, w, popi, wsum, g, terms));
}

// Whether a statistic has its ValueWindow form for the footprint (the others read every bin).
inline bool has_direct(const Geometry& q) {
  const int stat = q.stat;
  return q.n_full > 0 && q.n_full <= kMaxDirect && stat != kModal && stat != kMajority && stat != kGeometricMean && stat != kEntropy && stat != kOtsu &&
         stat != kWindowedHistogram;
}

// About how many passes over the window's values a ValueWindow statistic makes: the scan, plus a counting
// pass (equalize, the bilateral band, noise_filter's three), plus a bisection over the levels for each rank
// the percentiles cannot read off the extremes or the population.
inline int64_t direct_passes(const Geometry& q) {
  int64_t bits = 0;
  while ((int64_t(1) << bits) < q.n_bins) ++bits;
  const bool whole = q.p0 <= 0 && q.p1 >= 1;  // the ranks are the extremes, the band everything
  switch (q.stat) {
    case kEqualize: case kMeanB: case kPopB: case kSumB: return 2;
    case kNoiseFilter: return 4;
    case kMedian: return 1 + bits;
    case kAutolevelP: case kGradientP: case kEnhanceContrastP: case kMeanP: case kSumP: case kSubtractMeanP:
    case kPopP: return whole ? 1 : 1 + 2 * bits;
    case kPercentile: return q.p0 <= 0 || q.p0 >= 1 ? 1 : 1 + bits;
    case kThresholdP: return q.p0 <= 0 || q.p0 > 1 ? 1 : 1 + bits;
    default: return 1;
  }
}

// The parts of the scan a ValueWindow statistic reads (the population always): the sum for the mean-like
// statistics and the percentile bands spanning every bin, the extremes for those that read a rank unless
// the percentiles' ranks are the band's ends. (A band without the sum counts it.)
inline int scan_parts(const Geometry& q) {
  switch (q.stat) {
    case kPop: case kEqualize: case kNoiseFilter: case kMeanB: case kPopB: case kSumB: return 0;
    case kMean: case kSubtractMean: case kSum: case kThreshold: return kScanSum;
    case kPopP: return q.p0 <= 0 && q.p1 >= 1 ? 0 : kScanExtremes;
    case kMeanP: case kSumP: case kSubtractMeanP: return q.p0 <= 0 && q.p1 >= 1 ? kScanSum : kScanAll;
    default: return kScanExtremes;
  }
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
