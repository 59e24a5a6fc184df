// CPU schedules that keep one partial result per part of the data (reductions, histograms, sorts).
#pragma once
#include <algorithm>
#include <cstdint>

#include "ndimg/parallel.hpp"

namespace ndimg {

// How many parts (at most one per thread, each at least min_part long) to split n items into. The thread
// count is read here, once: callers size their per-part buffers from this value and never read
// num_threads() again, since another thread may change it at any moment.
inline int64_t parts_for(int64_t n, int64_t min_part = 1 << 15) {
  return std::max<int64_t>(1, std::min<int64_t>(num_threads(), n / std::max<int64_t>(min_part, 1)));
}
// Parts of a reduction whose merge depends on the order (floating-point sums): fixed by n alone, so that
// the result is the same bits at every thread count.
inline int64_t fixed_parts(int64_t n) { return std::max<int64_t>(1, n / (1 << 15)); }

// Splits [0, n) into `parts` ranges and calls fn(part, begin, end) on the pool.
template <class F>
void for_parts(int64_t n, int64_t parts, F&& fn) {
  parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) fn(p, n * p / parts, n * (p + 1) / parts);
  });
}

}  // namespace ndimg
