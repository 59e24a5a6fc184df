// Watershed flooding from markers (skimage.segmentation.watershed): the Python front pads the image, mask
// and markers by the footprint's reach and passes C-contiguous working buffers; neighbours are linear offsets
// into the padded buffers (scikit-image's own arithmetic, so its wrap across rows of a too-small padding is
// kept), every read checked against the buffer. The entry is in watershed.cpp; the CPU schedule in
// watershed_cpu.cpp, the CUDA one in watershed_cuda.cu.
#pragma once
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::segmentation {

// Floods `labels` (int64; nonzero: the markers) over the elements where `mask` (uint8) is nonzero, by
// scikit-image's priority (the image value, plus `compactness` times the Euclidean distance to the source
// marker where compactness > 0, never below the popped element's; then the age of the entry). With
// `watershed_line` the elements touching another label stay 0 and are cleared in `mask` (a marker keeps its
// label). `image` is float64; all three share one shape and one device.
void watershed(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
               double compactness, bool watershed_line, StreamHandle stream = nullptr);

// Raises the entry's ValueError where a neighbour of the flooded span [first, last] (elements in the mask or
// marked; first > last: none) lies outside the n elements (both engines find the span, the entry checks it).
void require_reach(int64_t first, int64_t last, int64_t n, std::span<const int64_t> offsets);

// ---- engine schedules (arguments validated by the entry) ----
void watershed_cpu(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
                   double compactness, bool watershed_line);
// The host's replay of scikit-image's heap for the plain flooding (no NaN, fewer than 2**31 - 1 elements) while
// markers of different labels share a value still to come: labels (and the mask, unchanged) as far as it
// went; `left` gets the entries left in its heap (element, age), all above the last such value; returns the
// age reached (above every age in `left`).
int64_t watershed_replay_cpu(const View& image, const View& mask, const View& labels,
                             std::span<const int64_t> offsets, std::vector<std::pair<int32_t, uint32_t>>& left);
#ifdef NDIMG_WITH_CUDA
void watershed_cuda(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
                    double compactness, bool watershed_line, StreamHandle stream);
#endif

// ---- the math, shared by both engines ----
namespace ws_math {

// The flooding order of a value (not NaN) as an unsigned integer: equal values (-0.0 and 0.0 too) one key,
// a smaller value a smaller key.
NDIMG_HD uint64_t order_key(double v) {
  v += 0.0;  // -0.0 -> 0.0
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b >> 63 ? ~b : b | (uint64_t(1) << 63);
}

// The claim of the front position r's neighbour j (of k) on an element: the smallest claim is the first of the
// front to reach it when the front leaves one entry after the other, each entry's neighbours in order.
NDIMG_HD uint64_t claim(int64_t r, int64_t j, int64_t k) { return uint64_t(r) * uint64_t(k) + uint64_t(j); }

// An element's chain: the (level, layer) of its entry (layer: its breadth-first step within the level, 0 for
// the entries waiting there), then its pusher's chain. Two entries whose order the markers' order may decide
// have equal chains; unequal chains order them by themselves. Hashed (a collision only flags an order as
// undecided): mixed with splitmix64's finaliser.
NDIMG_HD uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
NDIMG_HD uint64_t chain(uint64_t pusher, int64_t level, int64_t layer) {
  return mix(pusher + mix(uint64_t(level) << 32 | uint64_t(uint32_t(layer))));
}

}  // namespace ws_math
}  // namespace ndimg::segmentation
