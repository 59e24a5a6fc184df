// Whole-array reductions: the per-element math, written once for both engines (mergeable accumulators:
// identity, add, merge), and the engine schedules' declarations. The entries are in stats.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/reduce.hpp"

namespace ndimg::reduce {

// ---- stats ----
struct StatsAcc {
  double mn, mx, sum;
  int64_t imn, imx, n_nan, n_posinf, n_neginf, n_finite;
};
NDIMG_HD StatsAcc stats_identity() {
  return {INFINITY, -INFINITY, 0.0, INT64_MAX, INT64_MIN, 0, 0, 0, 0};
}
template <class T>
NDIMG_HD void stats_add(StatsAcc& a, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (v != v) { ++a.n_nan; return; }
    if (v == T(INFINITY)) { ++a.n_posinf; return; }
    if (v == T(-INFINITY)) { ++a.n_neginf; return; }
  } else {
    const int64_t iv = static_cast<int64_t>(v);  // uint64 beyond INT64_MAX wraps, as skimage's astype(int64)
    a.imn = iv < a.imn ? iv : a.imn;
    a.imx = iv > a.imx ? iv : a.imx;
  }
  const double d = static_cast<double>(v);
  a.mn = d < a.mn ? d : a.mn;
  a.mx = d > a.mx ? d : a.mx;
  a.sum += d;
  ++a.n_finite;
}
NDIMG_HD void stats_merge(StatsAcc& a, const StatsAcc& b) {
  a.mn = b.mn < a.mn ? b.mn : a.mn;
  a.mx = b.mx > a.mx ? b.mx : a.mx;
  a.imn = b.imn < a.imn ? b.imn : a.imn;
  a.imx = b.imx > a.imx ? b.imx : a.imx;
  a.sum += b.sum;
  a.n_nan += b.n_nan;
  a.n_posinf += b.n_posinf;
  a.n_neginf += b.n_neginf;
  a.n_finite += b.n_finite;
}
// ---- mean ----
// NumPy's mean() of n values, in R (the result's float type), from their IEEE double sum: a NaN or both
// infinities make it NaN, one infinity that infinity.
template <class R>
NDIMG_HD R mean_of(double sum, int64_t n) { return R(sum / double(n)); }
// The IEEE sum of the values a stats accumulator has seen (its own sum is over the finite ones).
inline double ieee_sum(const StatsAcc& a) {
  double s = a.sum;
  if (a.n_nan) s += NAN;
  if (a.n_posinf) s += INFINITY;
  if (a.n_neginf) s -= INFINITY;
  return s;
}
inline Stats stats_result(const StatsAcc& a) {
  Stats s;
  s.min = a.mn; s.max = a.mx; s.sum = a.sum; s.imin = a.imn; s.imax = a.imx;
  s.n_nan = a.n_nan; s.n_posinf = a.n_posinf; s.n_neginf = a.n_neginf; s.n_finite = a.n_finite;
  return s;
}

// ---- split sums ----
NDIMG_HD void split_sums_merge(SplitSums& a, const SplitSums& b) {
  a.sum_above += b.sum_above; a.sum_below += b.sum_below;
  a.n_above += b.n_above; a.n_below += b.n_below;
}
template <class T>
NDIMG_HD void split_sums_add(SplitSums& a, T v, T shift, T t) {
  if (!(v - v == T(0))) return;  // NaN or infinity
  const T y = v - shift;
  if (y > t) { a.sum_above += double(y); ++a.n_above; }
  else { a.sum_below += double(y); ++a.n_below; }
}

// ---- min gap: neighbours of the sorted shifted values (non-finite ones sort last) ----
template <class T>
NDIMG_HD T shifted_or_inf(T v, T shift) { return v - v == T(0) ? T(v - shift) : T(INFINITY); }
template <class T>
NDIMG_HD double sorted_gap(T a, T b) {
  const T g = b - a;
  return (b - b == T(0)) && g > T(0) ? double(g) : double(INFINITY);
}

// ---- sums of squared differences ----
// The terms one element pair adds: (d * d, a * a) rounded in the compute type, as doubles.
template <class T>
NDIMG_HD void diff_sums_terms(T a, T b, double& sq_diff, double& sq_a) {
  using C = compute_t<T>;
  const C x = static_cast<C>(a), d = x - static_cast<C>(b);
  sq_diff = double(square_rn(d));
  sq_a = double(square_rn(x));
}
template <class T>
NDIMG_HD void diff_sums_add(DiffSums& acc, T a, T b) {
  double sq_diff, sq_a;
  diff_sums_terms(a, b, sq_diff, sq_a);
  acc.sum_sq_diff += sq_diff;
  acc.sum_sq_a += sq_a;
}
NDIMG_HD void diff_sums_merge(DiffSums& a, const DiffSums& b) {
  a.sum_sq_diff += b.sum_sq_diff;
  a.sum_sq_a += b.sum_sq_a;
}

// ---- NumPy's sum of a contiguous float run (its pairwise_sum, bit for bit) ----
// Runs of at most kPairwiseBlock values are summed by eight interleaved accumulators (fewer than 8 values:
// in order from 0), longer runs split at half rounded down to a multiple of 8, the halves summed alike and
// added. np.sum of a C-contiguous array is 0 + this over every value.
constexpr int64_t kPairwiseBlock = 128;
NDIMG_HD int64_t pairwise_split(int64_t n) { return n / 2 - (n / 2) % 8; }
template <class T>
NDIMG_HD T pairwise_block(const T* a, int64_t n) {
  if (n < 8) {
    T res = T(0);
    for (int64_t i = 0; i < n; ++i) res = res + a[i];
    return res;
  }
  T r[8];
  for (int j = 0; j < 8; ++j) r[j] = a[j];
  int64_t i = 8;
  for (; i < n - n % 8; i += 8)
    for (int j = 0; j < 8; ++j) r[j] = r[j] + a[i + j];
  T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; ++i) res = res + a[i];
  return res;
}
// The sum of the run [off, off + n) by the split rule, each block's sum given by leaf(off, n), in order.
template <class T, class Leaf>
NDIMG_HD T pairwise_tree(int64_t off, int64_t n, Leaf& leaf) {
  if (n <= kPairwiseBlock) return leaf(off, n);
  const int64_t h = pairwise_split(n);
  const T left = pairwise_tree<T>(off, h, leaf);
  return left + pairwise_tree<T>(off + h, n - h, leaf);
}
// The schedules' parallel split: the tree's 2^D nodes at depth D = pairwise_depth(n) hold 2^14 to 2^15 values
// (every node above them splits); node k's run is found by descending the split rule along k's bits, and the
// nodes' sums are added pairwise up the top D levels (the tree's own additions, in its order).
constexpr int64_t kPairwiseNode = int64_t(1) << 14;
NDIMG_HD int pairwise_depth(int64_t n) {
  int depth = 0;
  while ((n >> (depth + 1)) >= kPairwiseNode) ++depth;
  return depth;
}
NDIMG_HD void pairwise_node(int64_t n, int depth, int64_t k, int64_t& off, int64_t& m) {
  off = 0;
  m = n;
  for (int d = depth - 1; d >= 0; --d) {
    const int64_t h = pairwise_split(m);
    if ((k >> d) & 1) {
      off += h;
      m -= h;
    } else {
      m = h;
    }
  }
}
template <class T>
NDIMG_HD T pairwise_top(T* node_sums, int depth) {
  for (int64_t w = int64_t(1) << depth; w > 1; w >>= 1)
    for (int64_t k = 0; k < w / 2; ++k) node_sums[k] = node_sums[2 * k] + node_sums[2 * k + 1];
  return T(0) + node_sums[0];
}

// ---- engine schedules (arguments validated by the entries) ----
StatsAcc stats_acc_cpu(const View& in);
inline Stats stats_cpu(const View& in) { return stats_result(stats_acc_cpu(in)); }
void mean_cpu(const View& in, const View& out);
SplitSums split_sums_cpu(const View& in, double shift, double t);
double min_gap_cpu(const View& in, double shift);
DiffSums diff_sums_cpu(const View& a, const View& b);
void numpy_sum_cpu(const View& in, const View& out);
#ifdef NDIMG_WITH_CUDA
Stats stats_cuda(const View& in, StreamHandle s);
void mean_cuda(const View& in, const View& out, StreamHandle s);
SplitSums split_sums_cuda(const View& in, double shift, double t, StreamHandle s);
double min_gap_cuda(const View& in, double shift, StreamHandle s);
DiffSums diff_sums_cuda(const View& a, const View& b, StreamHandle s);
void numpy_sum_cuda(const View& in, const View& out, StreamHandle s);
#endif

}  // namespace ndimg::reduce
