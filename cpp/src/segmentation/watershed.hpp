// Watershed flooding from markers (skimage.segmentation.watershed): the Python front pads the image, mask
// and markers by the footprint's reach and passes C-contiguous working buffers; neighbours are linear offsets
// into the padded buffers (scikit-image's own arithmetic, so its wrap across rows of a too-small padding is
// kept), every read checked against the buffer. The entry is in watershed.cpp.
#pragma once
#include <cstdint>
#include <span>

#include "core/engine.hpp"

namespace ndimg::segmentation {

// Floods `labels` (int64; nonzero: the markers) over the elements where `mask` (uint8) is nonzero, by
// scikit-image's priority (the image value, plus `compactness` times the Euclidean distance to the source
// marker where compactness > 0, never below the popped element's; then the age of the entry). With
// `watershed_line` the elements touching another label stay 0 and are cleared in `mask` (a marker keeps its
// label). `image` is float64; all three share one shape.
void watershed(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
               double compactness, bool watershed_line);

// ---- engine schedules (arguments validated by the entry) ----
void watershed_cpu(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
                   double compactness, bool watershed_line);

}  // namespace ndimg::segmentation
