// CPU schedules of the reductions: one partial result per part of the C-order indices, merged in part order.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "core/index.hpp"
#include "core/parts.hpp"
#include "reduce/stats.hpp"

namespace ndimg::reduce {
namespace {

// walk(acc, begin, end) adds the elements [begin, end) (C order) to an accumulator, one per part (each
// starting from `identity`); then merge(total, part) in part order. The parts depend on n alone (fixed_parts).
template <class Acc, class Walk, class Merge>
Acc reduce_cpu(int64_t n, const Acc& identity, Walk&& walk, Merge&& merge) {
  const int64_t parts = fixed_parts(n);
  std::vector<Acc> part(parts, identity);
  for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
    Acc acc = identity;
    walk(acc, a, b);
    part[p] = acc;
  });
  Acc total = identity;
  for (int64_t p = 0; p < parts; ++p) merge(total, part[p]);
  return total;
}

// reduce_cpu over the elements of one array: add(acc, offset).
template <class Acc, class Add, class Merge>
Acc reduce_cpu(const View& in, const Acc& identity, Add&& add, Merge&& merge) {
  return reduce_cpu(
      in.size(), identity,
      [&](Acc& acc, int64_t a, int64_t b) { for_range(in, a, b, [&](int64_t o) { add(acc, o); }); }, merge);
}

}  // namespace

// Contiguous elements [0, n) in kLanes interleaved lanes (independent chains that the compiler vectorizes),
// merged in lane order; the order depends on n alone. Each lane keeps the finite part of stats_add branch
// free: floats add 0 to the sum and +-inf to min/max for non-finite values, whose presence a lane sum of
// d - d (0, or NaN once one is met) tells; stats_add then counts them in a second pass (rare). Integers keep
// min/max in T, exact as int64 and double for these types; up to 32 bits, an int64 sum (exact, as a double
// sum of a part's at most 2^16 values is).
#if defined(__x86_64__) && defined(__GNUC__) && __has_builtin(__builtin_shufflevector) && \
    __has_builtin(__builtin_convertvector)
#define NDIMG_F32_BLOCKS 1
// float32 lanes 0-7 over the whole blocks of 8, on AVX2 only (GCC vector types, inlined into the AVX2 build):
// min/max in float (exact), the same double lane sums as add() (elements 0-3 and 4-7 of a block as two
// vectors of 4), and a float lane sum of v - v. Returns the elements done, or 0 where a value is NaN or
// infinite (stats_lanes then runs its masked lanes from the start); no selects, about 2.5x faster.
inline __attribute__((always_inline)) int64_t finite_f32_blocks(const float* p, int64_t n, double* lo, double* hi,
                                                                double* sum) {
  using F8 = float __attribute__((vector_size(32)));
  using D4 = double __attribute__((vector_size(32)));
  F8 vlo, vhi, vnon = {};
  for (int k = 0; k < 8; ++k) {
    vlo[k] = INFINITY;
    vhi[k] = -INFINITY;
  }
  D4 s0 = {}, s1 = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    F8 v;
    std::memcpy(&v, p + i, sizeof v);
    vlo = v < vlo ? v : vlo;
    vhi = v > vhi ? v : vhi;
    vnon += v - v;
    s0 += __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3), D4);
    s1 += __builtin_convertvector(__builtin_shufflevector(v, v, 4, 5, 6, 7), D4);
  }
  float any = 0;
  for (int k = 0; k < 8; ++k) any += vnon[k];
  if (any != 0) return 0;
  for (int k = 0; k < 8; ++k) {
    lo[k] = vlo[k];
    hi[k] = vhi[k];
    sum[k] = k < 4 ? s0[k] : s1[k - 4];
  }
  return i;
}
#endif

template <class T, bool kAvx2 = false>
inline __attribute__((always_inline)) void stats_lanes(StatsAcc& acc, const T* p, int64_t n) {
  constexpr int64_t kLanes = 8;
  constexpr bool kFloat = std::is_floating_point_v<T>;
  using M = std::conditional_t<kFloat, double, T>;  // the type of the lanes' min/max
  M lo[kLanes], hi[kLanes];
  using S = std::conditional_t<!kFloat && sizeof(T) <= 4, int64_t, double>;
  S sum[kLanes] = {};
  double nonfinite[kLanes] = {};
  std::fill_n(lo, kLanes, std::numeric_limits<M>::has_infinity ? std::numeric_limits<M>::infinity()
                                                                  : std::numeric_limits<M>::max());
  std::fill_n(hi, kLanes, std::numeric_limits<M>::has_infinity ? -std::numeric_limits<M>::infinity()
                                                                  : std::numeric_limits<M>::lowest());
  auto add = [&](int64_t k, T v) {
    if constexpr (kFloat) {
      const double d = v;
      const bool finite = d - d == 0.0;
      const double l = finite ? d : INFINITY, h = finite ? d : -INFINITY;
      lo[k] = l < lo[k] ? l : lo[k];
      hi[k] = h > hi[k] ? h : hi[k];
      sum[k] += finite ? d : 0.0;  // the sum is never -0.0, so adding +0.0 leaves it as is
      nonfinite[k] += d - d;
    } else {
      lo[k] = v < lo[k] ? v : lo[k];
      hi[k] = v > hi[k] ? v : hi[k];
      sum[k] += static_cast<S>(v);
    }
  };
  int64_t i = 0;
#ifdef NDIMG_F32_BLOCKS
  if constexpr (kAvx2 && std::is_same_v<T, float>) i = finite_f32_blocks(p, n, lo, hi, sum);
#endif
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) add(k, p[i + k]);
  for (int64_t k = 0; i < n; ++i, ++k) add(k, p[i]);
  for (int64_t k = 0; k < kLanes; ++k) {
    const int64_t count = n / kLanes + (k < n % kLanes);
    if (count == 0) continue;
    StatsAcc lane = stats_identity();
    lane.mn = static_cast<double>(lo[k]);
    lane.mx = static_cast<double>(hi[k]);
    lane.sum = static_cast<double>(sum[k]);
    lane.n_finite = count;  // less the non-finite ones, below
    if constexpr (!kFloat) {
      lane.imn = static_cast<int64_t>(lo[k]);
      lane.imx = static_cast<int64_t>(hi[k]);
    }
    stats_merge(acc, lane);
  }
  if constexpr (kFloat) {
    double any = 0.0;
    for (int64_t k = 0; k < kLanes; ++k) any += nonfinite[k];
    if (any != 0.0) {
      StatsAcc counts = stats_identity();  // stats_add given only non-finite values counts them, nothing else
      for (int64_t j = 0; j < n; ++j)
        if (!(p[j] - p[j] == T(0))) stats_add(counts, p[j]);
      counts.n_finite = -(counts.n_nan + counts.n_posinf + counts.n_neginf);
      stats_merge(acc, counts);
    }
  }
}

// The lanes compiled for the baseline ISA and, on x86, for AVX2 (chosen at run time): the same operations
// in the same order; the float lanes' selects want SSE4.1's blends to vectorize (1.5x faster), and float32
// takes finite_f32_blocks.
template <class T>
void stats_lanes_base(StatsAcc& acc, const T* p, int64_t n) {
  stats_lanes(acc, p, n);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
__attribute__((target("avx2"))) void stats_lanes_avx2(StatsAcc& acc, const T* p, int64_t n) {
  stats_lanes<T, true>(acc, p, n);
}
template <class T>
auto stats_lanes_fn() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 ? &stats_lanes_avx2<T> : &stats_lanes_base<T>;
}
#else
template <class T>
auto stats_lanes_fn() {
  return &stats_lanes_base<T>;
}
#endif

StatsAcc stats_acc_cpu(const View& in) {
  return dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    // uint64 beyond INT64_MAX wraps in imin/imax (stats_add), not in a min kept in T: element by element.
    const bool lanes = in.c_contiguous() && !std::is_same_v<T, uint64_t>;
    const auto lanes_fn = stats_lanes_fn<T>();
    return reduce_cpu(
        in.size(), stats_identity(),
        [&](StatsAcc& acc, int64_t a, int64_t b) {
          if (lanes) lanes_fn(acc, src + a, b - a);
          else for_range(in, a, b, [&](int64_t o) { stats_add(acc, src[o]); });
        },
        stats_merge);
  });
}

void mean_cpu(const View& in, const View& out) {
  const StatsAcc a = stats_acc_cpu(in);
  if (out.dtype == DType::F32) *out.ptr<float>() = mean_of<float>(ieee_sum(a), in.size());
  else *out.ptr<double>() = mean_of<double>(ieee_sum(a), in.size());
}

SplitSums split_sums_cpu(const View& in, double shift, double t) {
  return dispatch_dtype(in.dtype, [&]<class T>() -> SplitSums {
    if constexpr (!std::is_floating_point_v<T>) {
      throw TypeError("split_sums: float image expected");
    } else {
      const T* src = in.ptr<T>();
      return reduce_cpu(
          in, SplitSums{}, [&](SplitSums& acc, int64_t o) { split_sums_add<T>(acc, src[o], T(shift), T(t)); },
          split_sums_merge);
    }
  });
}

// Contiguous pairs are summed in kLanes interleaved accumulators (independent chains that the compiler
// vectorizes), merged in lane order; the order depends on n alone, like the parts.
DiffSums diff_sums_cpu(const View& a, const View& b) {
  constexpr int64_t kLanes = 8;
  const bool contiguous = a.c_contiguous() && b.c_contiguous();
  return dispatch_dtype(a.dtype, [&]<class T>() {
    const T *pa = a.ptr<T>(), *pb = b.ptr<T>();
    return reduce_cpu(
        a.size(), DiffSums{},
        [&](DiffSums& acc, int64_t i0, int64_t i1) {
          if (!contiguous) {
            for_range2(a, b, i0, i1, [&](int64_t oa, int64_t ob) { diff_sums_add(acc, pa[oa], pb[ob]); });
            return;
          }
          double sq_diff[kLanes] = {}, sq_a[kLanes] = {};
          int64_t i = i0;
          for (; i + kLanes <= i1; i += kLanes)
            for (int64_t k = 0; k < kLanes; ++k) {
              double d2, a2;
              diff_sums_terms(pa[i + k], pb[i + k], d2, a2);
              sq_diff[k] += d2;
              sq_a[k] += a2;
            }
          for (int64_t k = 0; i < i1; ++i, ++k) {
            double d2, a2;
            diff_sums_terms(pa[i], pb[i], d2, a2);
            sq_diff[k] += d2;
            sq_a[k] += a2;
          }
          for (int64_t k = 0; k < kLanes; ++k) diff_sums_merge(acc, DiffSums{sq_diff[k], sq_a[k]});
        },
        diff_sums_merge);
  });
}

// Each thread sorts its part; the parts are then merged pairwise (in parallel per level) and the gaps read.
double min_gap_cpu(const View& in, double shift) {
  return dispatch_dtype(in.dtype, [&]<class T>() -> double {
    if constexpr (!std::is_floating_point_v<T>) {
      throw TypeError("min_gap: float image expected");
    } else {
      const int64_t n = in.size();
      std::vector<T> y(n);
      const T* src = in.ptr<T>();
      const int64_t parts = parts_for(n);
      for_parts(n, parts, [&](int64_t, int64_t a, int64_t b) {
        int64_t i = a;
        for_range(in, a, b, [&](int64_t o) { y[i++] = shifted_or_inf(src[o], T(shift)); });
        std::sort(y.begin() + a, y.begin() + b);
      });
      for (int64_t width = 1; width < parts; width *= 2) {
        parallel_for((parts + 2 * width - 1) / (2 * width), 1, [&](int64_t g0, int64_t g1) {
          for (int64_t g = g0; g < g1; ++g) {
            const int64_t p0 = g * 2 * width, p1 = std::min(p0 + width, parts), p2 = std::min(p0 + 2 * width, parts);
            std::inplace_merge(y.begin() + n * p0 / parts, y.begin() + n * p1 / parts, y.begin() + n * p2 / parts);
          }
        });
      }
      const int64_t gparts = parts_for(n - 1);
      std::vector<double> part(gparts, INFINITY);
      for_parts(n - 1, gparts, [&](int64_t p, int64_t a, int64_t b) {
        double g = INFINITY;
        for (int64_t i = a; i < b; ++i) g = std::min(g, sorted_gap(y[i], y[i + 1]));
        part[p] = g;
      });
      return *std::min_element(part.begin(), part.end());
    }
  });
}

// The split's nodes summed on the pool (stats.hpp's pairwise_node), then added up the top levels.
void numpy_sum_cpu(const View& in, const View& out) {
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* a = in.ptr<T>();
      const int64_t n = in.size();
      const int depth = pairwise_depth(n);
      std::vector<T> sums(size_t(1) << depth);
      parallel_for(int64_t(sums.size()), 1, [&](int64_t k0, int64_t k1) {
        auto leaf = [a](int64_t off, int64_t len) { return pairwise_block(a + off, len); };
        for (int64_t k = k0; k < k1; ++k) {
          int64_t off, m;
          pairwise_node(n, depth, k, off, m);
          sums[size_t(k)] = pairwise_tree<T>(off, m, leaf);
        }
      });
      *out.ptr<T>() = pairwise_top(sums.data(), depth);
    }
  });
}

}  // namespace ndimg::reduce
