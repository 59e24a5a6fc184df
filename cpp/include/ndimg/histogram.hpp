// ndimg::histogram — counting every element of an array into bins, on either engine. `counts` is a
// contiguous 1-D int64 array of nbins on the device of `in`; the counts are added to what it holds.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::histogram {

// counts[v - lo] += 1 for every value v of an integer (or bool) array; values outside [lo, lo + nbins)
// are skipped (numpy.bincount after an offset).
void integer(const View& in, int64_t lo, const View& counts, StreamHandle stream = nullptr);

// numpy.histogram with len(edges) - 1 equal bins: the bin index is computed in float32 for float32
// input and in double otherwise, then corrected against `edges` exactly as NumPy does; the last bin
// includes its right edge, values outside [edges.front(), edges.back()] and NaN are skipped.
void uniform(const View& in, std::span<const double> edges, const View& counts, StreamHandle stream = nullptr);

}  // namespace ndimg::histogram
