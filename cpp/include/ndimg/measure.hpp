// ndimg::measure — statistics per label (scipy.ndimage's measurements), on either engine. A label image is
// first mapped to slots (slots()): one int32 per element, the index of the result its element counts
// towards, or -1. Every statistic is then one pass over the image for all slots at once, into tables of
// nslots entries that the caller allocates on the image's device (zeroed where they are added to).
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::measure {

// How labels map to slots.
enum class Map : int {
  all = 0,       // every element: slot 0
  positive = 1,  // labels > 0: slot 0
  dense = 2,     // integral labels l in [lo, lo + len(table)): slot table[l - lo] (int32, -1: none)
  sorted = 3,    // labels equal to a key of `table` (sorted, distinct; int64 for integer and bool labels,
                 // float64 for float labels): slot = the key's position
};

// out (int32, C-contiguous, of labels' shape) = the slot of each label, -1 where it has none.
void slots(const View& labels, Map map, int64_t lo, const View& table, const View& out, StreamHandle stream = nullptr);

// Over the elements x of `in` whose slot s (`slots`: int32, C-contiguous, of in's shape; or an empty array:
// every element in slot 0) is >= 0:
// counts[s] += 1 (int64), sums[s] += x (float64) and, for integer and bool input, isums[s] += x (int64,
// wrapping: an exact integer sum, bit for bit that of uint64 for unsigned input). On the CPU engine float sums
// of few slots are merged in an order fixed by the sizes (the same bits at every thread count).
void moments(const View& in, const View& slots, const View& counts, const View& sums, const View& isums,
             StreamHandle stream = nullptr);

// sq[s] += (x - means[s])^2 in float64: the second pass of a variance (means: float64 per slot).
void centered(const View& in, const View& slots, const View& means, const View& sq, StreamHandle stream = nullptr);

// coords (nslots, ndim), float64, C-contiguous: coords[s, d] += x * (the element's index along axis d).
void weighted_coords(const View& in, const View& slots, const View& coords, StreamHandle stream = nullptr);

// Per slot, over its values that are not NaN: the smallest and largest (mins, maxs: in's dtype) and the
// C-order flat index of the first element holding each (minpos, maxpos: int64); a slot without such values
// gets 0 for the values and -1 for the positions. nans[s] (int64) = its count of NaN values, nanpos[s] the
// index of the first (-1 if none).
// All tables are written whole.
void extrema(const View& in, const View& slots, const View& mins, const View& maxs, const View& minpos,
             const View& maxpos, const View& nans, const View& nanpos, StreamHandle stream = nullptr);

// hist (nslots, nbins), int64, C-contiguous: hist[s, b] += the count of the slot's values in
// [edges[b], edges[b + 1]) (the last bin closed), compared in float64 (numpy.histogram with these edges).
void histogram(const View& in, const View& slots, std::span<const double> edges, const View& hist,
               StreamHandle stream = nullptr);

// out (int64, sum(counts) elements) = the flat indices of the elements with a slot >= 0, grouped by slot in
// slot order, in C order within a slot (a stable counting sort; counts as moments() gives them, checked).
// CPU engine (the CUDA engine sorts with CuPy).
void order(const View& slots, const View& counts, const View& out, StreamHandle stream = nullptr);

// out[s] = the median of the slot's values, NaN sorted above every number, for the slots holding values (out
// untouched elsewhere): the mean of the two middle values, in float for float32 input (out float32) and in
// float64 otherwise (out float64). propagate_nan: NaN for a slot that holds a NaN (numpy.median's rule). CPU
// engine.
void median(const View& in, const View& slots, const View& out, bool propagate_nan, StreamHandle stream = nullptr);

}  // namespace ndimg::measure
