// The rank family: selection of the rank-th smallest value over a footprint, sliding 1-D min/max, and
// the register-resident selections of 9, 25 and 27 values used by the CUDA tiled path for 3x3, 5x5 and
// 3x3x3 boxes (and by the CPU for footprints of those sizes, so that CI exercises the GPU's selection code).
#pragma once
#include <algorithm>
#include <type_traits>

#include "ndimage/correlate1d.hpp"
#include "ndimage/footprint.hpp"

// Full unrolling keeps the small selection arrays in registers on the GPU.
#if defined(__CUDA_ARCH__)
#define NDIMG_UNROLL _Pragma("unroll")
#else
#define NDIMG_UNROLL
#endif

namespace ndimg::ndimage {

// The smaller (minimum) or the larger of a and b as scipy compares them: b replaces a only when it is
// strictly smaller (larger), so a NaN is kept where it comes first and skipped where it comes later.
template <bool Minimum, class T>
NDIMG_HD T extreme(T a, T b) {
  return (Minimum ? b < a : a < b) ? b : a;
}
template <class T>
NDIMG_HD T extreme(bool minimum, T a, T b) {
  return minimum ? extreme<true>(a, b) : extreme<false>(a, b);
}
// The selection networks below see no NaN (rank_value routes NaN elsewhere): on the GPU floats take the
// fmin/fmax instructions.
template <class T>
NDIMG_HD T vmin(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return fminf(a, b);
  else if constexpr (std::is_same_v<T, double>) return fmin(a, b);
  else
#endif
  return extreme<true>(a, b);
}
template <class T>
NDIMG_HD T vmax(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return fmaxf(a, b);
  else if constexpr (std::is_same_v<T, double>) return fmax(a, b);
  else
#endif
  return extreme<false>(a, b);
}

template <class T>
NDIMG_HD bool any_nan(const T* v, int64_t n) {
  bool nan = false;
  for (int64_t k = 0; k < n; ++k) nan |= !(v[k] == v[k]);
  return nan;
}

// Compare-exchange: afterwards a <= b, the pair's values kept.
template <class T>
NDIMG_HD void cmpx(T& a, T& b) {
  T lo = vmin(a, b);
  b = vmax(a, b);
  a = lo;
}

// Moves the minimum of v[lo..hi] to v[lo] and the maximum to v[hi], keeping the multiset. With constant
// bounds (unrolled callers) every index is static and v stays in registers.
template <class T>
NDIMG_HD void min_max_to_ends(T* v, int lo, int hi) {
  const int s = hi - lo + 1, half = s / 2;
  NDIMG_UNROLL
  for (int i = 0; i < half; ++i) cmpx(v[lo + i], v[hi - i]);  // small half first, large half last
  NDIMG_UNROLL
  for (int i = 1; i < half; ++i) cmpx(v[lo], v[lo + i]);
  NDIMG_UNROLL
  for (int i = 1; i < half; ++i) cmpx(v[hi - i], v[hi]);
  if (s & 1) {  // the unpaired middle may hold either extreme
    cmpx(v[lo], v[lo + half]);
    cmpx(v[lo + half], v[hi]);
  }
}

// Median of N (odd) values by forgetful selection: keep N/2 + 2 candidates, repeatedly drop the minimum
// and maximum (neither can be the median) and take in the next value. `next(j)` yields value j.
template <int N, class T, class Next>
NDIMG_HD T forgetful_median(Next&& next) {
  constexpr int R = N / 2 + 2;
  T v[R];
NDIMG_UNROLL
  for (int j = 0; j < R; ++j) v[j] = next(j);
NDIMG_UNROLL
  for (int j = R; j < N; ++j) {
    const int lo = j - R;  // window v[lo..R-1] shrinks by one per step
    min_max_to_ends(v, lo, R - 1);
    v[R - 1] = next(j);
  }
  // three candidates remain: v[R-3..R-1]
  T a = v[R - 3], b = v[R - 2], c = v[R - 1];
  return vmax(vmin(a, b), vmin(vmax(a, b), c));
}

// The k-th smallest of v[0..n) (v is reordered): quickselect with median-of-three pivots, insertion sort
// for short ranges. Exact for any comparable type; the result is one of the inputs.
template <class T>
NDIMG_HD T select_kth(T* v, int64_t n, int64_t k) {
  auto swap = [](T& a, T& b) { T t = a; a = b; b = t; };
  int64_t lo = 0, hi = n - 1;
  while (hi - lo >= 16) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (v[mid] < v[lo]) swap(v[mid], v[lo]);
    if (v[hi] < v[lo]) swap(v[hi], v[lo]);
    if (v[hi] < v[mid]) swap(v[hi], v[mid]);
    const T p = v[mid];
    int64_t i = lo, j = hi;
    while (i <= j) {
      while (i <= hi && v[i] < p) ++i;
      while (j >= lo && p < v[j]) --j;
      if (i <= j) {
        swap(v[i], v[j]);
        ++i;
        --j;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return v[k];  // between the two parts: equal to the pivot
  }
  for (int64_t i = lo + 1; i <= hi; ++i) {
    T x = v[i];
    int64_t j = i - 1;
    while (j >= lo && x < v[j]) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = x;
  }
  return v[k];
}

// The r-th smallest (r < B) of N values next(0..N): the B smallest so far kept sorted in registers, each
// further value bubbled through them (the largest of the B + 1 falls off the end).
template <int N, int B, class T, class Next>
NDIMG_HD T select_smallest(Next&& next, int r) {
  static_assert(B <= N);
  T v[B];
NDIMG_UNROLL
  for (int j = 0; j < B; ++j) {
    v[j] = next(j);
NDIMG_UNROLL
    for (int i = j; i > 0; --i) cmpx(v[i - 1], v[i]);
  }
NDIMG_UNROLL
  for (int j = B; j < N; ++j) {
    T x = next(j);
NDIMG_UNROLL
    for (int i = 0; i < B - 1; ++i) {
      const T lo = vmin(v[i], x);
      x = vmax(v[i], x);
      v[i] = lo;
    }
    v[B - 1] = vmin(v[B - 1], x);
  }
  T out = v[0];
NDIMG_UNROLL
  for (int i = 1; i < B; ++i)
    if (i == r) out = v[i];  // a select per candidate: v stays in registers
  return out;
}

// The rank-th smallest of N values next(0..N) without NaN, in registers: forgetful selection for the
// median, else the min(rank, N-1-rank) + 1 smallest (of the negated values for the upper ranks: negation
// is exact and reverses the order of float and double) kept in a compile-time-sized list.
template <int N, class T, class Next>
NDIMG_HD T select_rank(Next&& next, int rank) {
  static_assert(std::is_floating_point_v<T>);
  if constexpr (N % 2)
    if (rank == N / 2) return forgetful_median<N, T>(next);
  const bool top = rank > N - 1 - rank;
  const int r = top ? N - 1 - rank : rank;
  auto signed_next = [&](int j) { return top ? -T(next(j)) : T(next(j)); };
  auto pick = [&]<int B>() { return select_smallest<N, (B < N ? B : N), T>(signed_next, r); };
  const T x = r < 2 ? pick.template operator()<2>() : r < 3 ? pick.template operator()<3>()
            : r < 5 ? pick.template operator()<5>() : r < 8 ? pick.template operator()<8>()
                    : pick.template operator()<N / 2 + 1>();
  return top ? -x : x;
}

// scipy's selection of the k-th smallest of v[lo..hi] (v is reordered): Hoare partitions around the
// first value, then the part holding k.
template <class T>
NDIMG_HD T select_hoare(T* v, int64_t lo, int64_t hi, int64_t k) {
  while (lo < hi) {
    const T x = v[lo];
    int64_t i = lo - 1, j = hi + 1;
    for (;;) {
      do --j; while (v[j] > x);
      do ++i; while (v[i] < x);
      if (i >= j) break;
      const T t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
    const int64_t left = j - lo + 1;  // v[lo..j] holds the k-th when k < left
    if (k < left) {
      hi = j;
    } else {
      lo = j + 1;
      k -= left;
    }
  }
  return v[lo];
}

// The rank-th smallest of v[0..n) as scipy selects it: its ordered reduction for the extremes, else its
// Hoare selection. Their plain comparisons decide where NaN values go: the result with NaN present.
template <class T>
NDIMG_HD T rank_value_scipy(T* v, int64_t n, int64_t rank) {
  if (rank == 0 || rank == n - 1) {
    T r = v[0];
    for (int64_t k = 1; k < n; ++k) r = extreme(rank == 0, r, v[k]);
    return r;
  }
  return select_hoare(v, 0, n - 1, rank);
}

// The rank-th smallest of v[0..n): scipy's selection for the extremes and with NaN; otherwise the register
// selections for 9, 25 and 27 values and quickselect for other sizes (the same value as scipy's).
template <class T>
NDIMG_HD T rank_value(T* v, int64_t n, int64_t rank) {
  if (rank == 0 || rank == n - 1 || any_nan(v, n)) return rank_value_scipy(v, n, rank);
  auto at = [&](int j) { return v[j]; };
  if (n == 9) return select_rank<9, T>(at, int(rank));
  if (n == 25) return select_rank<25, T>(at, int(rank));
  if (n == 27) return select_rank<27, T>(at, int(rank));
  return select_kth(v, n, rank);
}

// scipy's sliding minimum (maximum) of `size` values over an extended line ext(0..n + size - 2), R.
// Harter's ascending-minima deque with its exact comparisons, which decide what NaN values do: ring
// (values) and death hold at least min(size, n + size - 1) entries. emit(i, value) for outputs i < n.
template <class T, class Ext, class Emit>
NDIMG_HD void sliding_extreme(bool minimum, int64_t n, int64_t size, const Ext& ext, T* ring, int64_t* death,
                              int64_t cap, Emit&& emit) {
  if (size == 1) {  // scipy copies (the deque would read its dead front)
    for (int64_t i = 0; i < n; ++i) emit(i, ext(i));
    return;
  }
  int64_t front = 0, last = 0;
  ring[0] = ext(0);
  death[0] = size;
  for (int64_t j = 1; j < n + size - 1; ++j) {
    const T x = ext(j);
    if (death[front] == j) front = front + 1 == cap ? 0 : front + 1;
    if (minimum ? x <= ring[front] : x >= ring[front]) {
      ring[front] = x;  // x replaces the whole deque
      death[front] = j + size;
      last = front;
    } else {
      while (minimum ? ring[last] >= x : ring[last] <= x) last = last == 0 ? cap - 1 : last - 1;
      last = last + 1 == cap ? 0 : last + 1;
      ring[last] = x;
      death[last] = j + size;
    }
    if (j >= size - 1) emit(j - size + 1, ring[front]);
  }
}

// A window reaching more than 2n beyond an index sees the same values as one reaching 2n (every mode
// repeats the line within 2n), which bounds a huge minimum/maximum window by the line's length.
inline Reach clip_reach(Reach r, int64_t n) {
  return {std::min(r.left, 2 * n), std::min(r.right, 2 * n)};
}
// A line holding NaN: the deque's result depends on the order of the values, not only on which values
// the window sees, so it runs over the whole window up to this size (scipy's result exactly), and over
// the clipped one beyond (a known difference, and memory stays bounded).
inline constexpr int64_t kExactNanWindow = int64_t(1) << 20;
inline Reach nan_reach(int64_t size, int origin, int64_t n) {
  const Reach r = filter_reach(size, origin);
  return size <= kExactNanWindow ? r : clip_reach(r, n);
}

#ifdef NDIMG_WITH_CUDA
void rank_filter_cuda(const View& in, const View& out, const Taps& t, int64_t rank, Mode mode, double cval,
                      StreamHandle stream);
void min_max_filter1d_cuda(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval,
                           int origin, bool minimum, StreamHandle stream);
#endif

}  // namespace ndimg::ndimage
