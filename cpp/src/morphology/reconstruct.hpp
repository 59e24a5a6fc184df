// Geodesic reconstruction, plateau maxima, flood fill and equal-value components (skimage.morphology's
// reconstruction, local_maxima, flood and measure.label of non-bool images): host schedules over
// C-contiguous working buffers that the Python front pads and prepares. The entries are in reconstruct.cpp.
// Neighbours are linear offsets into the (padded) buffer: the caller pads by the footprint's reach, so no
// neighbour read leaves the buffer.
#pragma once
#include <cstdint>
#include <span>

#include "core/engine.hpp"

namespace ndimg::morphology {

// Reconstruction by dilation of `marker` (overwritten by the result) under `mask` (marker <= mask, both
// float32 or float64 of one shape): a value flows from p to p + offset. Only the interior (`lo` elements
// from each axis' start, `hi` from its end) is updated; the padding holds values no neighbour can raise.
// Large images run over tiles of rows on the threads (exact); tile_rows > 0 sets their depth (tests: tiles of
// small images; a symmetric neighbourhood only), 0 chooses, < 0 runs serially (Dask's chunks, already side by
// side).
void reconstruct_dilation(const View& marker, const View& mask, std::span<const int64_t> offsets,
                          std::span<const int64_t> lo, std::span<const int64_t> hi, int64_t tile_rows = 0);
// skimage's local maxima over a padded image: flags (uint8, same shape) is 3 on the border, 2 on the
// candidates and 0 elsewhere; on return 1 marks the elements of maximal plateaus. offsets: the footprint
// without its centre. With `line_candidates` (the footprint holds both neighbours along the last axis) the
// candidates are first narrowed to the plateaus of a line above both their ends.
void plateau_maxima(const View& image, const View& flags, std::span<const int64_t> offsets, bool line_candidates);
// Flood fill from `seed` (a linear index) over flags (uint8): 1 marks the candidates, 2 the padding that
// stops the fill; the reached candidates become 3.
void flood_flags(const View& flags, std::span<const int64_t> offsets, int64_t seed);

// ---- engine schedules (arguments validated by the entries) ----
void reconstruct_dilation_cpu(const View& marker, const View& mask, std::span<const int64_t> offsets,
                              std::span<const int64_t> lo, std::span<const int64_t> hi, int64_t tile_rows);
void plateau_maxima_cpu(const View& image, const View& flags, std::span<const int64_t> offsets, bool line_candidates);
void flood_flags_cpu(const View& flags, std::span<const int64_t> offsets, int64_t seed);

}  // namespace ndimg::morphology
