// CPU schedules of the histograms: per-part histograms summed at the end (integer counts: the part count,
// read once from the pool, does not change the result).
#include <algorithm>
#include <vector>

#include "core/index.hpp"
#include "core/parts.hpp"
#include "histogram/histogram.hpp"

namespace ndimg::histogram {
namespace {

// Adds to `counts` (all its elements: the bins, C order) every bin that walk(begin, end, add) passes to
// add(bin) for the elements [begin, end) of n; a negative bin is not counted. Each part counts into its
// own table of Local counters; there are at most n / nbins parts, so the tables never take more than 8
// bytes per element (atomic increments into one shared table measured 4x slower per element).
template <class Local, class Walk>
void count_parts(int64_t n, const View& counts, Walk&& walk) {
  const int64_t nbins = counts.size();
  int64_t* c = counts.ptr<int64_t>();
  const int64_t parts = std::max<int64_t>(1, std::min(parts_for(n), n / nbins));
  std::vector<Local> local(parts * nbins, 0);
  for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
    Local* h = local.data() + p * nbins;
    walk(a, b, [&](int64_t i) {
      if (i >= 0) ++h[i];
    });
  });
  parallel_for(nbins, 4096, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t p = 0; p < parts; ++p) c[b] += int64_t(local[p * nbins + b]);
  });
}
// 32-bit counters where no part can overflow them: half the tables' memory traffic.
template <class Walk>
void count_cpu(int64_t n, const View& counts, Walk&& walk) {
  if (n <= int64_t(UINT32_MAX)) count_parts<uint32_t>(n, counts, walk);
  else count_parts<int64_t>(n, counts, walk);
}

// count_cpu of bin_of(value) over one array.
template <class T, class BinOf>
void count_one(const View& in, const View& counts, BinOf&& bin_of) {
  const T* src = in.ptr<T>();
  count_cpu(in.size(), counts, [&](int64_t a, int64_t b, auto&& add) {
    for_range(in, a, b, [&](int64_t o) { add(bin_of(src[o])); });
  });
}

// count_cpu of the joint bin (bin0(value0), bin1(value1)) over two arrays read in step.
template <class T, class Bin0, class Bin1>
void count_pair(const View& in0, const View& in1, const View& counts, Bin0&& bin0, Bin1&& bin1) {
  const T *s0 = in0.ptr<T>(), *s1 = in1.ptr<T>();
  const int64_t n1 = counts.shape[1];
  count_cpu(in0.size(), counts, [&](int64_t a, int64_t b, auto&& add) {
    for_range2(in0, in1, a, b, [&](int64_t o0, int64_t o1) { add(joint_bin(bin0(s0[o0]), bin1(s1[o1]), n1)); });
  });
}

// Equal-bin edges in the bin type of T.
template <class T>
std::vector<bin_t<T>> edges_in_bin_type(std::span<const double> edges) {
  return std::vector<bin_t<T>>(edges.begin(), edges.end());
}

template <class T>
auto uniform_bin_of(const std::vector<bin_t<T>>& e) {
  using B = bin_t<T>;
  const int64_t nbins = int64_t(e.size()) - 1;
  return [&e, nbins, first = e.front(), last = e.back()](T v) {
    return uniform_bin<B>(static_cast<B>(v), first, last, nbins, e.data());
  };
}

}  // namespace

void integer_cpu(const View& in, int64_t lo, const View& counts) {
  const int64_t nbins = counts.shape[0];
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) throw TypeError("histogram_integer: integer image expected");
    else count_one<T>(in, counts, [&](T v) { return integer_bin(v, lo, nbins); });
  });
}

void uniform_cpu(const View& in, std::span<const double> edges, const View& counts) {
  dispatch_dtype(in.dtype, [&]<class T>() {
    const auto e = edges_in_bin_type<T>(edges);
    count_one<T>(in, counts, uniform_bin_of<T>(e));
  });
}

void joint_integer_cpu(const View& in0, int64_t lo0, const View& in1, int64_t lo1, const View& counts) {
  const int64_t n0 = counts.shape[0], n1 = counts.shape[1];
  dispatch_dtype(in0.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      throw TypeError("histogram_joint_integer: integer arrays expected");
    } else {
      count_pair<T>(in0, in1, counts, [&](T v) { return integer_bin(v, lo0, n0); },
                    [&](T v) { return integer_bin(v, lo1, n1); });
    }
  });
}

void joint_uniform_cpu(const View& in0, std::span<const double> edges0, const View& in1,
                       std::span<const double> edges1, const View& counts) {
  dispatch_dtype(in0.dtype, [&]<class T>() {
    const auto e0 = edges_in_bin_type<T>(edges0), e1 = edges_in_bin_type<T>(edges1);
    count_pair<T>(in0, in1, counts, uniform_bin_of<T>(e0), uniform_bin_of<T>(e1));
  });
}

}  // namespace ndimg::histogram
