// Statistics per label: the mapping of a label to its slot and the orderable keys of values, written once
// for both engines, and the engine schedules' declarations. The entries are in measure.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/measure.hpp"

namespace ndimg::measure {

// The slot of a label of type L (see Map). Integer labels compare as integers (uint64 beyond int64 match no
// key), float labels as float64: a non-integral float label matches no dense entry.
template <class L>
struct Slotter {
  Map map;
  int64_t lo, n;       // dense: the table's first label and length; sorted: the number of keys
  const void* table;   // dense: int32 slots; sorted: int64 or float64 keys

  NDIMG_HD int32_t operator()(L v) const {
    if (map == Map::all) return 0;
    if (map == Map::positive) return v > L(0) ? 0 : -1;
    if constexpr (std::is_floating_point_v<L>) {
      const double d = double(v);
      if (map == Map::dense) {
        if (!(d >= double(lo) && d < double(lo) + double(n)) || d != floor(d)) return -1;
        return static_cast<const int32_t*>(table)[int64_t(d) - lo];
      }
      return find(static_cast<const double*>(table), d);
    } else {
      if constexpr (std::is_same_v<L, uint64_t>)
        if (v > uint64_t(INT64_MAX)) return -1;
      const int64_t i = static_cast<int64_t>(v);
      if (map == Map::dense) {
        // unsigned difference: one comparison, and no overflow for labels far below lo
        if (uint64_t(i) - uint64_t(lo) >= uint64_t(n)) return -1;
        return static_cast<const int32_t*>(table)[i - lo];
      }
      return find(static_cast<const int64_t*>(table), i);
    }
  }

  template <class K>
  NDIMG_HD int32_t find(const K* keys, K v) const {
    int64_t a = 0, b = n;  // the first key >= v
    while (a < b) {
      const int64_t m = (a + b) / 2;
      if (keys[m] < v) a = m + 1;
      else b = m;
    }
    return a < n && keys[a] == v ? int32_t(a) : -1;
  }
};

// A value as an unsigned 64-bit key of the same order (NaN excluded by the callers), and back: the CUDA
// engine's atomicMin/atomicMax of any dtype.
template <class T>
NDIMG_HD uint64_t order_key(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    double d = double(v);
    uint64_t b;
    memcpy(&b, &d, 8);
    return (b >> 63) ? ~b : b | (uint64_t(1) << 63);
  } else if constexpr (std::is_signed_v<T>) {
    return uint64_t(int64_t(v)) ^ (uint64_t(1) << 63);
  } else {
    return uint64_t(v);
  }
}
template <class T>
NDIMG_HD T from_order_key(uint64_t k) {
  if constexpr (std::is_floating_point_v<T>) {
    const uint64_t b = (k >> 63) ? k & ~(uint64_t(1) << 63) : ~k;
    double d;
    memcpy(&d, &b, 8);
    return T(d);
  } else if constexpr (std::is_signed_v<T>) {
    return T(int64_t(k ^ (uint64_t(1) << 63)));
  } else {
    return T(k);
  }
}

// The bin of x among nbins bins between edges[0] and edges[nbins] (the last closed), -1 outside or NaN: the
// bin is estimated with a multiplication by scale = nbins / (last - first), then moved to agree with the
// edges themselves (numpy.histogram's bins with these edges, compared in float64).
NDIMG_HD int64_t bin_of(double x, const double* edges, int64_t nbins, double scale) {
  const double first = edges[0], last = edges[nbins];
  if (!(x >= first && x <= last)) return -1;
  const double t = (x - first) * scale;   // NaN where first == last (scale inf): bin 0, then moved
  int64_t i = t >= double(nbins) ? nbins - 1 : (t >= 1 ? static_cast<int64_t>(t) : 0);
  while (i > 0 && x < edges[i]) --i;
  while (i < nbins - 1 && x >= edges[i + 1]) ++i;
  return i;
}

template <class T>
NDIMG_HD bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// ---- engine schedules (arguments validated by the entries) ----
void slots_cpu(const View& labels, Map map, int64_t lo, const View& table, const View& out);
void moments_cpu(const View& in, const View& slots, const View& counts, const View& sums, const View& isums);
void centered_cpu(const View& in, const View& slots, const View& means, const View& sq);
void weighted_coords_cpu(const View& in, const View& slots, const View& coords);
void extrema_cpu(const View& in, const View& slots, const View& mins, const View& maxs, const View& minpos,
                 const View& maxpos, const View& nans, const View& nanpos);
void histogram_cpu(const View& in, const View& slots, std::span<const double> edges, const View& hist);
void order_cpu(const View& slots, const View& counts, const View& out);
void median_cpu(const View& in, const View& slots, const View& out, bool propagate_nan);
#ifdef NDIMG_WITH_CUDA
void slots_cuda(const View& labels, Map map, int64_t lo, const View& table, const View& out, StreamHandle s);
void moments_cuda(const View& in, const View& slots, const View& counts, const View& sums, const View& isums,
                  StreamHandle s);
void centered_cuda(const View& in, const View& slots, const View& means, const View& sq, StreamHandle s);
void weighted_coords_cuda(const View& in, const View& slots, const View& coords, StreamHandle s);
void extrema_cuda(const View& in, const View& slots, const View& mins, const View& maxs, const View& minpos,
                  const View& maxpos, const View& nans, const View& nanpos, StreamHandle s);
void histogram_cuda(const View& in, const View& slots, std::span<const double> edges, const View& hist,
                    StreamHandle s);
#endif

}  // namespace ndimg::measure
