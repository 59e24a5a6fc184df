// ndimg::morphology local extrema over plateau labels (local_maxima's GPU formulation, on both engines): the
// plateaus (equal-valued components) are labelled by the label family first; one pass flags every plateau
// that an element rules out (it lies on the border, or has a strictly higher neighbour), a second writes the
// elements of the unflagged plateaus. The rules are here once; schedules in extrema_cpu.cpp and
// extrema_cuda.cu, entries in extrema.cpp.
#pragma once
#include <array>
#include <cstdint>
#include <span>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::morphology {

// whether C-order element i of an array of `shape` lies on its border (first or last along an axis)
NDIMG_HD bool on_border(int64_t i, int nd, const int64_t* shape) {
  for (int d = nd - 1; d >= 0; --d) {
    const int64_t c = i % shape[d];
    if (c == 0 || c == shape[d] - 1) return true;
    i /= shape[d];
  }
  return false;
}

// whether element i (off the border) has a strictly higher neighbour at one of the linear `offsets`
template <class T>
NDIMG_HD bool has_higher(const T* image, int64_t i, const int64_t* offsets, int64_t k) {
  const T v = image[i];
  for (int64_t e = 0; e < k; ++e)
    if (image[i + offsets[e]] > v) return true;
  return false;
}

// An element rules its plateau out: on the border, or below a neighbour.
template <class T>
NDIMG_HD bool rules_out(const T* image, int64_t i, int nd, const int64_t* shape, const int64_t* offsets, int64_t k) {
  return on_border(i, nd, shape) || has_higher(image, i, offsets, k);
}

// flags (uint8, one per label 0..flags.size - 1, zeroed by the caller) |= 1 at the label of every element of
// `image` (C-contiguous, n-D) that rules its plateau out; labels: int32 or int64 of image's shape (labels out
// of flags' range are skipped). offsets: the neighbourhood as linear offsets, each a step of at most one
// element along every axis.
void plateau_flags(const View& image, const View& labels, std::span<const int64_t> offsets, const View& flags,
                   StreamHandle stream = nullptr);
// out (bool, C-contiguous) = the elements off the border whose label is unflagged (flags as plateau_flags's).
void plateau_top(const View& labels, const View& flags, const View& out, StreamHandle stream = nullptr);

// ---- engine schedules (arguments validated by the entries) ----
void plateau_flags_cpu(const View& image, const View& labels, std::span<const int64_t> offsets, const View& flags);
void plateau_top_cpu(const View& labels, const View& flags, const View& out);
#ifdef NDIMG_WITH_CUDA
void plateau_flags_cuda(const View& image, const View& labels, std::span<const int64_t> offsets, const View& flags,
                        StreamHandle stream);
void plateau_top_cuda(const View& labels, const View& flags, const View& out, StreamHandle stream);
#endif

}  // namespace ndimg::morphology
