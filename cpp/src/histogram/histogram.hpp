// Histograms: the bin of one element, written once for both engines, and the engine schedules'
// declarations. The entries are in histogram.cpp.
#pragma once
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/histogram.hpp"

namespace ndimg::histogram {

// Bin type of numpy.histogram's equal-bin path: float32 for float32 data, double for everything else.
template <class T>
using bin_t = std::conditional_t<std::is_same_v<T, float>, float, double>;

// NumPy's equal-bin index: (x - first) / (last - first) * nbins in the bin type, truncated, then moved by
// one where the computed edge disagrees. -1 when x is outside [first, last] (or NaN).
template <class B>
NDIMG_HD int64_t uniform_bin(B x, B first, B last, int64_t nbins, const B* edges) {
  if (!(x >= first && x <= last)) return -1;
  int64_t i = static_cast<int64_t>((x - first) / (last - first) * B(nbins));
  if (i >= nbins) i = nbins - 1;
  if (x < edges[i]) --i;
  else if (i != nbins - 1 && x >= edges[i + 1]) ++i;
  return i;
}

template <class T>
NDIMG_HD int64_t integer_bin(T v, int64_t lo, int64_t nbins) {
  const int64_t b = static_cast<int64_t>(v) - lo;
  return b >= 0 && b < nbins ? b : -1;
}

// The flat bin of a pair of axis bins in a (n0, n1) table; -1 when either is outside its axis.
NDIMG_HD int64_t joint_bin(int64_t i0, int64_t i1, int64_t n1) { return i0 < 0 || i1 < 0 ? -1 : i0 * n1 + i1; }

// ---- engine schedules (arguments validated by the entries) ----
void integer_cpu(const View& in, int64_t lo, const View& counts);
void uniform_cpu(const View& in, std::span<const double> edges, const View& counts);
void joint_integer_cpu(const View& in0, int64_t lo0, const View& in1, int64_t lo1, const View& counts);
void joint_uniform_cpu(const View& in0, std::span<const double> edges0, const View& in1,
                       std::span<const double> edges1, const View& counts);
#ifdef NDIMG_WITH_CUDA
void integer_cuda(const View& in, int64_t lo, const View& counts, StreamHandle s);
void uniform_cuda(const View& in, std::span<const double> edges, const View& counts, StreamHandle s);
void joint_integer_cuda(const View& in0, int64_t lo0, const View& in1, int64_t lo1, const View& counts,
                        StreamHandle s);
void joint_uniform_cuda(const View& in0, std::span<const double> edges0, const View& in1,
                        std::span<const double> edges1, const View& counts, StreamHandle s);
#endif

}  // namespace ndimg::histogram
