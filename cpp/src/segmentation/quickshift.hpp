// ndimg::segmentation quick shift (host engine): scikit-image 0.26's density and parent search with its
// arithmetic (each density term exp'd in double and added in the image's type), so parents, distances and
// labels equal its own.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"

namespace ndimg::segmentation {

// image: (H, W, C) float32/float64, C-contiguous; densities: (H, W) of its type, holding the tie-breaking
// noise, to which every pixel's Parzen density over the window of half-width ceil(3 * kernel_size) is
// added; then parent ((H, W) int64) gets the flat index of the nearest pixel of the window (in joint
// colour-space distance, first in raster order) of higher density, or the pixel itself, and dist_parent
// (of the image's type) the distance to it (infinity without one). Rows run in parallel (each pixel's sums
// are its own).
void quickshift(const View& image, double kernel_size, const View& densities, const View& parent,
                const View& dist_parent);

}  // namespace ndimg::segmentation
