// ndimg::morphology max-tree: scikit-image's component tree of an image (Berger's union-find over the pixels
// in order of value) and the attribute filters and local maxima read from it, on the host. The tree is
// scikit-image's exactly: the same stable order, the same canonical parents.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"

namespace ndimg::morphology {

// image: C-contiguous, any dtype but float16. parent and traverser: C-contiguous int64 of image.size()
// elements. traverser = the stable ascending order of the flattened image (NumPy's: NaN last, -0.0 == 0.0);
// parent = each pixel's parent in the canonical max-tree. Neighbours: `offsets` (flat index steps) and
// `points` (offsets.size() rows of image.ndim coordinate steps, tested against the shape only for pixels on
// the image border, as scikit-image does). Large images run over tiles of rows on the threads, joined along
// their borders (exact); tile_rows > 0 sets the tiles' depth (tests: tiles of small images), 0 chooses.
void max_tree(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
              const View& parent, const View& traverser, int64_t tile_rows = 0);

// scikit-image's direct filter: out (image's dtype and shape, C-contiguous, holding a copy of the image: roots
// other than traverser[0], in a disconnected neighbourhood, keep it) keeps each pixel's value where
// its component's attribute (0: area, 1: diameter, the largest bounding-box side) reaches `threshold`, else
// the value of its nearest ancestor that does (0 above the root).
void max_tree_filter(const View& image, const View& parent, const View& traverser, int attribute, double threshold,
                     const View& out);

// out (uint64): the leaves of the tree numbered 1.. in reverse tree order, 0 elsewhere.
void max_tree_local_maxima(const View& image, const View& parent, const View& traverser, const View& out);

}  // namespace ndimg::morphology
