// ndimg::histogram::clahe_maps / clahe_apply — contrast limited adaptive histogram equalization (Zuiderveld,
// Graphics Gems IV; scikit-image's equalize_adapthist), n-D, on either engine, in two steps: the tiles' maps,
// then the interpolation of every element between them (a block of a larger image at a time, for Dask).
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::histogram {

// `in`: a C-contiguous uint8 or uint16 array (any dimensionality); `bins`: a contiguous 1-D int32 table over
// every value of in's dtype (256 or 65536 entries) giving each value's grey bin in [0, nbins). The image is
// cut into tiles of `kernel` (one length per axis) from its first element, the tiles past its end filled
// by NumPy's 'reflect' padding; each tile's histogram is clipped at `clip_limit` counts, the excess spread
// over the bins as scikit-image spreads it, and cumulated into a map to [0, 16383]: `maps`, a C-contiguous
// uint16 array (ceil(shape[0] / kernel[0]), ..., nbins) on in's device.
void clahe_maps(const View& in, const View& bins, std::span<const int64_t> kernel, int64_t clip_limit,
                const View& maps, StreamHandle stream = nullptr);

// `in`: the block at `origin` of an image of `full_shape` whose tile `maps` clahe_maps gave (the same
// `bins` and `kernel`). Every element of `out` (uint16, in's shape) is the multilinear interpolation of the
// maps of the 2^ndim tiles around it, its terms rounded to float32 and summed in float32, then truncated.
void clahe_apply(const View& in, const View& bins, std::span<const int64_t> kernel, std::span<const int64_t> origin,
                 std::span<const int64_t> full_shape, const View& maps, const View& out, StreamHandle stream = nullptr);

}  // namespace ndimg::histogram
