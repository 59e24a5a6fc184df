// Binary erosion over a tap list: the per-element math both engines run, over C-contiguous uint8 working
// buffers (values 0/1 in "eroded" terms: the complement for a dilation). The entry is binary.cpp.
#pragma once
#include <cstdint>

#include "core/engine.hpp"
#include "ndimage/footprint.hpp"
#include "ndimg/morphology.hpp"

namespace ndimg::morphology {

// Pass parameters; g describes the working buffer (C-contiguous, in == out shape) and the taps' extent.
struct BinaryPass {
  ndimage::Geometry g;
  uint8_t border;  // the value read outside the array, in eroded terms
  bool centre;     // scipy's center_is_true shortcut
};

// One element of a pass: the state is cur[] XOR flip (0/1 bytes; flip 1 reads a bool input as the
// complement a dilation erodes), `m` the mask or nullptr, c the coordinates of element i.
NDIMG_HD uint8_t erode_at(const BinaryPass& p, const uint8_t* cur, const uint8_t* m, int64_t i, const int64_t* c,
                          const int64_t* offsets, const int64_t* linear, int64_t count, uint8_t flip = 0) {
  const bool f = flip;
  auto value = [&](int64_t x) { return (cur[x] != 0) != f; };  // any nonzero byte of a bool input is true
  const uint8_t v = value(i);
  if ((m && !m[i]) || (p.centre && !v)) return v;
  if (ndimage::all_taps_inside(p.g, c)) {
    for (int64_t k = 0; k < count; ++k)
      if (!value(i + linear[k])) return 0;
    return 1;
  }
  for (int64_t k = 0; k < count; ++k) {
    const int64_t o = ndimage::tap_source(p.g, c, offsets + k * p.g.ndim, Mode::Constant);
    if (o == ndimage::kCval ? !p.border : !value(o)) return 0;
  }
  return 1;
}

// The tap list over the working buffer of `in`'s shape (validated: offsets match the dimensionality).
BinaryPass make_pass(const View& in, std::span<const int64_t> offsets, bool border_value, bool invert,
                     bool centre, ndimage::Taps& taps, const char* op);

// Iterations until stable whose passes cycle with period two (a structure without its centre); a finite
// count of such passes ends at the state of its parity.
inline constexpr const char* kCycle =
    "binary erosion: the passes cycle, so iterations < 1 (until nothing changes) would never end";

// ---- engine schedules (arguments validated by the entry) ----
void binary_erosion_cpu(const View& in, const View& out, const BinaryPass& p, const ndimage::Taps& t,
                        const View* mask, bool invert, int64_t iterations);
#ifdef NDIMG_WITH_CUDA
void binary_erosion_cuda(const View& in, const View& out, const BinaryPass& p, const ndimage::Taps& t,
                         const View* mask, bool invert, int64_t iterations, StreamHandle stream);
#endif

}  // namespace ndimg::morphology
