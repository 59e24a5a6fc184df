// ndimg::morphology max-tree: scikit-image's component tree of an image (Berger's union-find over the pixels
// in order of value) and the attribute filters and local maxima read from it. The tree is scikit-image's
// exactly: the same stable order, the same canonical parents. The math is in maxtree_impl.hpp; the host
// schedule and the entries in maxtree.cpp, the CUDA schedule in maxtree_cuda.cu.
#pragma once
#include <cstdint>
#include <span>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"  // StreamHandle

namespace ndimg::morphology {

// image: C-contiguous, any dtype but float16. parent and traverser: C-contiguous int64 of image.size()
// elements. traverser = the stable ascending order of the flattened image (NumPy's: NaN last, -0.0 == 0.0);
// parent = each pixel's parent in the canonical max-tree. Neighbours: `offsets` (flat index steps) and
// `points` (offsets.size() rows of image.ndim coordinate steps, tested against the shape only for pixels on
// the image border, as scikit-image does). Images run over tiles of rows (threads, or a CUDA thread per
// tile), joined along their borders (exact); tile_rows > 0 sets the tiles' depth (tests: tiles of small
// images), 0 chooses.
void max_tree(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
              const View& parent, const View& traverser, int64_t tile_rows = 0, StreamHandle stream = nullptr);

// scikit-image's direct filter: out (image's dtype and shape, C-contiguous, holding a copy of the image: roots
// other than traverser[0], in a disconnected neighbourhood, keep it) keeps each pixel's value where
// its component's attribute (0: area, 1: diameter, the largest bounding-box side) reaches `threshold`, else
// the value of its nearest ancestor that does (0 above the root).
void max_tree_filter(const View& image, const View& parent, const View& traverser, int attribute, double threshold,
                     const View& out, StreamHandle stream = nullptr);

// out (uint64): the leaves of the tree numbered 1.. in reverse tree order, 0 elsewhere.
void max_tree_local_maxima(const View& image, const View& parent, const View& traverser, const View& out,
                           StreamHandle stream = nullptr);

inline constexpr const char* kBadTree = "parent and tree_traverser must hold pixel indices";

// ---- engine schedules (arguments validated by the entries) ----
void max_tree_cpu(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
                  const View& parent, const View& traverser, int64_t tile_rows);
void max_tree_filter_cpu(const View& image, const View& parent, const View& traverser, int attribute,
                         double threshold, const View& out);
void max_tree_local_maxima_cpu(const View& image, const View& parent, const View& traverser, const View& out);
#ifdef NDIMG_WITH_CUDA
void max_tree_cuda(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
                   const View& parent, const View& traverser, int64_t tile_rows, StreamHandle stream);
void max_tree_filter_cuda(const View& image, const View& parent, const View& traverser, int attribute,
                          double threshold, const View& out, StreamHandle stream);
void max_tree_local_maxima_cuda(const View& image, const View& parent, const View& traverser, const View& out,
                                StreamHandle stream);
#endif

}  // namespace ndimg::morphology
