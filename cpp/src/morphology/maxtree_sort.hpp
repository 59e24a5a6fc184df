// Stable radix argsorts on the CPU engine's threads: the max-tree's pixel order (NumPy's stable argsort) and
// medial_axis's processing order (NumPy's lexsort).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "morphology/maxtree_impl.hpp"  // sort_key
#include "ndimg/parallel.hpp"

namespace ndimg::morphology {

// Stable LSD radix argsort of keys (8-bit digits; digits equal for every key are skipped): order = the
// indices (identity: 0..n-1, else order[i] is the item of keys[i], sorted again stably by these keys); the
// keys end sorted. Each pass splits
// the array into one contiguous chunk per thread: per-chunk histograms, then each chunk scatters in order.
template <class K>
void radix_argsort(std::vector<K>& keys, int64_t* order, bool identity = true) {
  const int64_t n = int64_t(keys.size());
  const int chunks = int(std::max<int64_t>(1, std::min<int64_t>(num_threads(), n / 65536)));
  const int64_t step = (n + chunks - 1) / chunks;
  std::vector<K> keys2(n);
  std::vector<int64_t> idx2(n);
  int64_t* idx = order;
  if (identity)
    for (int64_t i = 0; i < n; ++i) idx[i] = i;
  std::vector<int64_t> hist(size_t(chunks) * 256);
  K* src_k = keys.data();
  K* dst_k = keys2.data();
  int64_t* src_i = idx;
  int64_t* dst_i = idx2.data();
  for (int shift = 0; shift < int(8 * sizeof(K)); shift += 8) {
    std::fill(hist.begin(), hist.end(), 0);
    parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        int64_t* h = hist.data() + c * 256;
        for (int64_t i = c * step, e = std::min(n, (c + 1) * step); i < e; ++i) ++h[(src_k[i] >> shift) & 255];
      }
    });
    bool trivial = false;
    for (int d = 0; d < 256 && !trivial; ++d) {
      int64_t total = 0;
      for (int c = 0; c < chunks; ++c) total += hist[size_t(c) * 256 + d];
      trivial = total == n;
    }
    if (trivial) continue;
    int64_t sum = 0;  // exclusive prefix over (digit, chunk): each chunk's start for each digit
    for (int d = 0; d < 256; ++d)
      for (int c = 0; c < chunks; ++c) {
        int64_t& h = hist[size_t(c) * 256 + d];
        const int64_t t = h;
        h = sum;
        sum += t;
      }
    parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        int64_t* h = hist.data() + c * 256;
        for (int64_t i = c * step, e = std::min(n, (c + 1) * step); i < e; ++i) {
          const int64_t at = h[(src_k[i] >> shift) & 255]++;
          dst_k[at] = src_k[i];
          dst_i[at] = src_i[i];
        }
      }
    });
    std::swap(src_k, dst_k);
    std::swap(src_i, dst_i);
  }
  if (src_i != order) std::memcpy(order, src_i, size_t(n) * sizeof(int64_t));
  if (src_k != keys.data()) std::memcpy(keys.data(), src_k, size_t(n) * sizeof(K));
}

// Returns the number of distinct values (NaN one value, -0.0 and 0.0 one).
template <class T>
inline int64_t argsort_stable(const T* v, int64_t n, int64_t* order) {
  using K = decltype(sort_key(T()));
  std::vector<K> keys(n);
  parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) keys[i] = sort_key(v[i]);
  });
  radix_argsort(keys, order);
  int64_t distinct = n > 0;
  parallel_for(n - 1, 1 << 16, [&](int64_t b, int64_t e) {
    int64_t d = 0;
    for (int64_t i = b; i < e; ++i) d += keys[i + 1] != keys[i];
    __atomic_fetch_add(&distinct, d, __ATOMIC_RELAXED);
  });
  return distinct;
}

}  // namespace ndimg::morphology
