// The Hamming distances' CPU schedule: rows of the first set split over the pool.
#include <algorithm>

#include "feature/match.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::feature {

void hamming_distances_cpu(const View& a, const View& b, int64_t nbits, const View& out) {
  const int64_t n2 = b.shape[0], words = a.shape[1];
  const uint64_t *pa = a.ptr<uint64_t>(), *pb = b.ptr<uint64_t>();
  double* o = out.ptr<double>();
  parallel_for(a.shape[0], std::max<int64_t>(1, 65536 / std::max<int64_t>(1, n2 * words)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < n2; ++j) o[i * n2 + j] = hamming_pair(pa + i * words, pb + j * words, words, double(nbits));
  });
}

}  // namespace ndimg::feature
