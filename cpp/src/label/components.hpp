// Connected components by union-find: the per-element classification and the structure's taps, written once
// for both engines, and the engine schedules' declarations. The entries are in components.cpp. The union-find
// itself differs per engine (serial slabs joined at their seams on the CPU, atomicMin on roots on CUDA), as
// graph algorithms do. Both link the larger root under the smaller, so a component's root is its first
// element in C order: numbering roots in C order is scipy.ndimage.label's raster numbering.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/label.hpp"

namespace ndimg::label {

// An element's class for seeded_components: 0 background, 1 member (> low), 2 seed (> high).
template <class T>
NDIMG_HD uint8_t seed_class(T v, double low, double high) {
  const double d = static_cast<double>(v);
  return d > high ? 2 : d > low ? 1 : 0;
}
// An element's class for label: 1 where nonzero (NaN included), as scipy.ndimage.label reads its input.
template <class T>
NDIMG_HD uint8_t nonzero_class(T v) {
  return v != T(0);
}

// An element's class for label_values: 1 where the value differs from the background as numbers (no
// wrap-around of the background into T's range: -1 is no uint8 value).
template <class T>
NDIMG_HD uint8_t foreground_class(T v, int64_t background) {
  if constexpr (std::is_floating_point_v<T>) return double(v) != double(background);
  else if constexpr (std::is_unsigned_v<T>) return background < 0 || uint64_t(v) != uint64_t(background);
  else return int64_t(v) != background;
}

// find_objects' box of a label value, as scipy computes it: the value minus one as a signed index (a float
// truncated towards zero, so 0.5 is label 1; uint64 beyond int64 wraps negative), or -1 outside 1..max_label.
template <class T>
NDIMG_HD int64_t box_index(T v, int64_t max_label) {
  if constexpr (std::is_floating_point_v<T>) {
    const double k = double(v) - 1;
    return k > -1 && k < double(max_label) ? int64_t(k) : -1;
  } else {
    const int64_t k = int64_t(v) - 1;
    return k >= 0 && k < max_label ? k : -1;
  }
}

// A neighbour offset per axis (-1, 0 or 1): the structure's taps earlier than the centre in C order. Joining
// every element to its earlier neighbours joins the same components as the whole structure when it is
// centrosymmetric; scipy's label reads only this half too, so other structures give scipy's result as well.
using Tap = std::array<int8_t, kMaxDim>;
// structure: 3**ndim flags in C order (validated by the caller)
inline std::vector<Tap> earlier_taps(int ndim, std::span<const uint8_t> structure) {
  std::vector<Tap> taps;
  const int64_t centre = int64_t(structure.size()) / 2;
  for (int64_t k = 0; k < centre; ++k) {
    if (!structure[k]) continue;
    Tap t{};
    for (int64_t d = ndim - 1, rem = k; d >= 0; --d, rem /= 3) t[d] = int8_t(rem % 3 - 1);
    taps.push_back(t);
  }
  return taps;
}
// The face taps of scipy's default structure (generate_binary_structure(ndim, 1)).
inline std::vector<Tap> face_taps(int ndim) {
  std::vector<Tap> taps(ndim, Tap{});
  for (int d = 0; d < ndim; ++d) taps[d][d] = -1;
  return taps;
}
// validates a structure of 3**ndim flags
void require_structure(int ndim, std::span<const uint8_t> structure, const char* op);

// ---- engine schedules (arguments validated by the entry) ----
// roots: nullptr, or the C-contiguous int64 roots of seeded_roots
void seeded_components_cpu(const View& in, double low, double high, const View& out, int64_t* roots = nullptr);
// out: C-contiguous int32 or int64
int64_t label_cpu(const View& in, const std::vector<Tap>& taps, const View& out);
// label's union-find joining only neighbours of equal value (compared as T) among the foreground_class members
int64_t label_values_cpu(const View& in, int64_t background, const std::vector<Tap>& taps, const View& out);
// boxes: C-contiguous int64 (max_label, 2, ndim), filled with the per-label minimum and maximum coordinates
void find_objects_cpu(const View& labels, int64_t max_label, const View& boxes);
void value_groups_cpu(const View& in, int64_t lo, const View& counts, const View& coords);
void watershed_ift_cpu(const View& in, const View& markers, std::span<const uint8_t> structure, const View& out);
#ifdef NDIMG_WITH_CUDA
void seeded_components_cuda(const View& in, double low, double high, const View& out, StreamHandle s,
                            int64_t* roots = nullptr);
int64_t label_cuda(const View& in, const std::vector<Tap>& taps, const View& out, StreamHandle s);
int64_t label_values_cuda(const View& in, int64_t background, const std::vector<Tap>& taps, const View& out,
                          StreamHandle s);
void find_objects_cuda(const View& labels, int64_t max_label, const View& boxes, StreamHandle s);
#endif

}  // namespace ndimg::label
