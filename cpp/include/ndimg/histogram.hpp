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

// Joint histograms of two arrays of one shape and dtype read in step: `counts` is a C-contiguous 2-D int64
// array (n0, n1) on their device, and counts[i0, i1] += 1 for every index whose first value falls in bin
// i0 and second in bin i1; an index with a value outside its axis' bins is not counted.
// Integer values: bins v - lo0 and v - lo1 (a 2-D numpy.bincount; a contingency table of two label images).
void joint_integer(const View& in0, int64_t lo0, const View& in1, int64_t lo1, const View& counts,
                   StreamHandle stream = nullptr);
// Equal bins between edges0 on the first axis and edges1 on the second, each binned as uniform() bins
// (numpy.histogramdd of the pairs with equally spaced edges).
void joint_uniform(const View& in0, std::span<const double> edges0, const View& in1, std::span<const double> edges1,
                   const View& counts, StreamHandle stream = nullptr);

}  // namespace ndimg::histogram
