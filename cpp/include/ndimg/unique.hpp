// ndimg::histogram::unique_inverse — numpy.unique(..., return_inverse=True, return_counts=True) without the
// values: which group of equal values each element belongs to, and each group's size.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"

namespace ndimg::histogram {

// For a C-contiguous array `in` of n elements (CPU engine): inverse[i] = the rank of in's i-th value among
// its distinct values (NumPy's sort order: -0.0 equal to 0.0, every NaN one group, last), counts[g] = the
// elements of group g; `inverse` is a contiguous int64 array of n elements, `counts` one of at least n.
// Returns the number of groups. A stable parallel radix sort of the values' keys.
int64_t unique_inverse(const View& in, const View& inverse, const View& counts);

}  // namespace ndimg::histogram
