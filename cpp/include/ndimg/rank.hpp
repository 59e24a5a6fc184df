// ndimg::rank::rank_filter — scikit-image's local-histogram rank filters (skimage.filters.rank): one
// sliding-window histogram over a footprint and one per-pixel statistic of it, 2-D and 3-D, on either engine.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::rank {

// `image`: C-contiguous uint8 or uint16, 2-D or 3-D, every value below `n_bins`. `footprint`: C-contiguous
// uint8 of image's dimensionality (nonzero: in the window), on the host; `centre`: the footprint's element
// over the output pixel (inside it). `mask` (used when `use_mask`): C-contiguous uint8 of image's shape on
// its device, nonzero where a pixel may enter the window. `statistic` is the scikit-image function's name
// ("median", "mean_percentile", "pop_bilateral", "windowed_histogram", ...); p0/p1 and s0/s1 are its
// percentile and bilateral parameters. `out`: C-contiguous uint8/uint16/float32/float64 of image's shape
// plus one trailing axis (windowed_histogram: its bins; else 1), each value converted as C converts it.
void rank_filter(const View& image, const View& footprint, std::span<const int64_t> centre, const View& mask,
                 bool use_mask, const std::string& statistic, int64_t n_bins, double p0, double p1, int64_t s0,
                 int64_t s1, const View& out, StreamHandle stream = nullptr);

}  // namespace ndimg::rank
