// ndimg::reduce — whole-array reductions: one pass over every element, on either engine, returning a
// small host result. Floating-point sums are merged in an order fixed by the array's size, so a result is
// the same at every thread count.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::reduce {

// Floats: min/max/sum over the finite values, NaN and infinities counted apart. Integers (and bool):
// imin/imax exact, min/max/sum as doubles.
struct Stats {
  double min = 0, max = 0, sum = 0;
  int64_t imin = 0, imax = 0;
  int64_t n_nan = 0, n_posinf = 0, n_neginf = 0, n_finite = 0;
};
Stats stats(const View& in, StreamHandle stream = nullptr);

// The mean of a non-empty array as NumPy's mean() gives it, written to `out`, a 0-d float64 array on the
// input's device (or float32 for float32 input): on CUDA nothing crosses to the host, no sync.
void mean(const View& in, const View& out, StreamHandle stream = nullptr);

// With y = x - shift in the array's float type, over finite x: the sums and counts of y > t (above) and
// y <= t (below). Float arrays only.
struct SplitSums {
  double sum_above = 0, sum_below = 0;
  int64_t n_above = 0, n_below = 0;
};
SplitSums split_sums(const View& in, double shift, double t, StreamHandle stream = nullptr);

// The smallest positive difference between the sorted values x - shift (in the array's float type) over
// finite x; +inf when there are fewer than two distinct values. Float arrays only.
double min_gap(const View& in, double shift, StreamHandle stream = nullptr);

// Over two arrays of one shape and dtype, in the float type of the dtype (float32 for float32, double
// otherwise, as scikit-image's metrics promote): with d = a - b, the double sums of the rounded squares d*d
// and a*a (NumPy's mean(x * x, dtype=float64) of the squares).
struct DiffSums {
  double sum_sq_diff = 0, sum_sq_a = 0;
};
DiffSums diff_sums(const View& a, const View& b, StreamHandle stream = nullptr);

// NumPy's sum() of a C-contiguous float32/float64 array, to the last bit (its pairwise order), written to
// `out`, a 0-d array of the input's dtype on its device (0 for an empty array): on CUDA no sync. For
// iterations whose stopping test compares such sums, so that they stop where scikit-image's NumPy code does.
void numpy_sum(const View& in, const View& out, StreamHandle stream = nullptr);

}  // namespace ndimg::reduce
