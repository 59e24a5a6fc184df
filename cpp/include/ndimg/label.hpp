// ndimg::label — connected components (union-find) of n-D arrays, on either engine.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::label {

// out (bool) = the elements with value > low whose face-connected component (scipy.ndimage.label's
// default structure) of {value > low} contains an element with value > high: hysteresis thresholding.
// Comparisons in double.
void seeded_components(const View& in, double low, double high, const View& out, StreamHandle stream = nullptr);

// seeded_components, and each element's component: roots (int64, C-contiguous) = -1 for the elements <= low,
// else the C-order index of the first element of its component. Per-block components whose labels are then
// merged across block faces (hysteresis and labels over chunked arrays).
void seeded_roots(const View& in, double low, double high, const View& out, const View& roots,
                  StreamHandle stream = nullptr);

// scipy.ndimage.label: out (C-contiguous int32 or int64) = 0 on the zeros of `in`, else the number of the
// element's component of nonzeros, joined by `structure` (3**ndim flags in C order; only the taps before the
// centre are read, as scipy does), numbered 1.. in C order of each component's first element. Returns the
// number of components. int32 output needs fewer than 2**31 elements.
int64_t label(const View& in, std::span<const uint8_t> structure, const View& out, StreamHandle stream = nullptr);

// skimage.measure.label of a non-bool image: as label, with members the elements != background (compared as
// numbers) and neighbours joined only where their values are equal (compared in the input's type).
int64_t label_values(const View& in, int64_t background, std::span<const uint8_t> structure, const View& out,
                     StreamHandle stream = nullptr);

// scipy.ndimage.find_objects' pass: boxes (C-contiguous int64, shape (max_label, 2, ndim)) = for each label
// 1..max_label its smallest and largest coordinate per axis, or -1 (both) where the label is absent. labels:
// an array of any type (values outside 1..max_label are ignored; floats truncated as scipy does).
void find_objects(const View& labels, int64_t max_label, const View& boxes, StreamHandle stream = nullptr);

// scipy.ndimage.value_indices' grouping on the host (a counting sort): for an integer array `in` (at least one
// dimension) whose values lie in lo .. lo + counts.size() - 1, counts (int64, C-contiguous) = the number of
// elements of each value, and coords (int64, C-contiguous, (ndim, in.size())) = the coordinates of the
// elements grouped by value, in C order within a value.
void value_groups(const View& in, int64_t lo, const View& counts, const View& coords);

// scipy.ndimage.watershed_ift on the host: in uint8/uint16, markers of a signed integer type, out of an
// integer type, structure 3**ndim flags in C order. scipy's image foresting transform exactly: a bucket
// queue by cost, markers first (negative ones last), neighbours found by flat index (so they wrap across
// lines, as scipy's do), labels of positive markers pushed to the front of a bucket, negative to the back.
void watershed_ift(const View& in, const View& markers, std::span<const uint8_t> structure, const View& out);

}  // namespace ndimg::label
