// ndimg::segmentation SLIC superpixels (host engine): scikit-image 0.26's k-means loop and its connectivity
// pass with its arithmetic, so the labels equal its labels. The image is (Z, Y, X, C) and already scaled.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"

namespace ndimg::segmentation {

// Runs up to max_num_iter SLIC iterations in place on `segments` ((N, 3 + C), the image's float type:
// z, y, x, then the colour of each centre) and writes each voxel's segment + start_label to `labels`
// ((Z, Y, X) int64, filled by the caller with start_label - 1). Each voxel takes, among the centres whose
// window (2 * step_axis around the centre) holds it, the first of least distance in centre order; the
// distances are skimage's (spacing-weighted squared offsets times 1 / (step * step) with step rounded to
// float32, plus the colour distance unless ignore_color, divided by the centre's largest one in SLIC-zero).
// mask ((Z, Y, X) uint8) is read when use_mask. grid_steps: the seeds' steps along z, y, x.
void slic_iterate(const View& image, const View& mask, bool use_mask, const View& segments, double step,
                  std::span<const int64_t> grid_steps, int64_t max_num_iter, std::span<const double> spacing,
                  bool slic_zero, int64_t start_label, bool ignore_color, const View& labels);

// scikit-image's _enforce_label_connectivity_cython: connected pieces (6-connectivity) relabelled in raster
// order from start_label; a piece smaller than min_size joins the last labelled piece it touches (breadth
// first search stopped at max_size voxels). labels and out are (Z, Y, X) int64.
void slic_enforce_connectivity(const View& labels, int64_t min_size, int64_t max_size, int64_t start_label,
                               const View& out);

}  // namespace ndimg::segmentation
