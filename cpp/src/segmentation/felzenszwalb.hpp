// ndimg::segmentation Felzenszwalb's graph segmentation (host engine): scikit-image 0.26's greedy merge over
// the 8-connected grid's edges, so the labels equal its labels.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"

namespace ndimg::segmentation {

// costs (float64, 4 H W - 3 H - 3 W + 2 of them): the edge weights of an (H, W) grid in skimage's order
// (right, down, down-right, up-right edges, each in C order); order (int64): the edges by increasing cost
// (skimage's numpy.argsort of costs, ties as it leaves them). Merges components in that order while the
// cost is below both components' internal cost + scale / size (taken in float32, as skimage's), then
// joins every edge's components while either is smaller than min_size; writes each pixel's component
// numbered by its first pixel in raster order (from 0) into labels ((H, W) int64).
// The edge weights of an (H, W, C) float64 image (C-contiguous, C < 8) into costs, in skimage's order: the
// square root of the sum over channels, in channel order, of the squared differences (NumPy's np.sum over
// fewer than 8 elements adds them in order, so these equal skimage's weights bit for bit).
void felzenszwalb_costs(const View& image, const View& costs);

void felzenszwalb_merge(const View& costs, const View& order, double scale, int64_t min_size, const View& labels);

}  // namespace ndimg::segmentation
