// CPU schedules of the histograms: per-part histograms summed at the end where they are small next to the
// data (integer counts: the part count, read once from the pool, does not change the result).
#include <vector>

#include "core/index.hpp"
#include "core/parts.hpp"
#include "histogram/histogram.hpp"

namespace ndimg::histogram {
namespace {

// Adds to `counts` the bin bin_of(offset) of every element of `in` (a negative bin is not counted).
template <class BinOf>
void histogram_cpu(const View& in, const View& counts, BinOf&& bin_of) {
  const int64_t n = in.size(), nbins = counts.shape[0];
  const int64_t parts = nbins * 8 <= n ? parts_for(n) : 1;
  std::vector<int64_t> local(parts * nbins, 0);
  for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
    int64_t* h = local.data() + p * nbins;
    for_range(in, a, b, [&](int64_t o) {
      const int64_t i = bin_of(o);
      if (i >= 0) ++h[i];
    });
  });
  int64_t* c = counts.ptr<int64_t>();
  parallel_for(nbins, 4096, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t p = 0; p < parts; ++p) c[b] += local[p * nbins + b];
  });
}

}  // namespace

void integer_cpu(const View& in, int64_t lo, const View& counts) {
  const int64_t nbins = counts.shape[0];
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      throw TypeError("histogram_integer: integer image expected");
    } else {
      const T* src = in.ptr<T>();
      histogram_cpu(in, counts, [&](int64_t o) { return integer_bin(src[o], lo, nbins); });
    }
  });
}

void uniform_cpu(const View& in, std::span<const double> edges, const View& counts) {
  const int64_t nbins = counts.shape[0];
  dispatch_dtype(in.dtype, [&]<class T>() {
    using B = bin_t<T>;
    std::vector<B> e(edges.begin(), edges.end());
    const B first = e.front(), last = e.back();
    const T* src = in.ptr<T>();
    histogram_cpu(in, counts, [&](int64_t o) {
      return uniform_bin<B>(static_cast<B>(src[o]), first, last, nbins, e.data());
    });
  });
}

}  // namespace ndimg::histogram
