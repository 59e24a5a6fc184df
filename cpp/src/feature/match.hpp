// Brute-force descriptor matching (skimage.feature.match_descriptors): the Hamming distance of two packed
// binary descriptors, written once for both engines; the schedules' declarations. The entry is in match.cpp.
#pragma once
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/feature_desc.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::feature {

NDIMG_HD int64_t popcount64(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __popcll(v);
#else
  return __builtin_popcountll(v);
#endif
}

// The share of differing bits of two descriptors of `words` words (count / nbits in double, both exact).
NDIMG_HD double hamming_pair(const uint64_t* a, const uint64_t* b, int64_t words, double nbits) {
  int64_t count = 0;
  for (int64_t k = 0; k < words; ++k) count += popcount64(a[k] ^ b[k]);
  return double(count) / nbits;
}

// ---- engine schedules (arguments validated by the entry) ----
void hamming_distances_cpu(const View& a, const View& b, int64_t nbits, const View& out);
#ifdef NDIMG_WITH_CUDA
void hamming_distances_cuda(const View& a, const View& b, int64_t nbits, const View& out, StreamHandle s);
#endif

}  // namespace ndimg::feature
