// Multi-Otsu's search over a normalized histogram: host code, the same for either engine.
#include <vector>

#include "ndimg/threshold.hpp"

namespace ndimg::threshold {

std::vector<int64_t> multiotsu_indices(std::span<const float> prob, int thresh_count) {
  const int64_t nbins = int64_t(prob.size());
  if (thresh_count < 1 || nbins < thresh_count + 1) throw ValueError("multiotsu: too few bins for the classes");
  // zeroth (P) and first (S) moments; S[0] = prob[0] as in the reference formulation
  std::vector<float> P(nbins), S(nbins);
  P[0] = prob[0];
  S[0] = prob[0];
  for (int64_t i = 1; i < nbins; ++i) {
    P[i] = P[i - 1] + prob[i];
    S[i] = S[i - 1] + float(i) * prob[i];
  }
  // between-class variance of the bins [i, j]
  auto var = [&](int64_t i, int64_t j) -> float {
    if (i == 0) {
      if (j == 0 || !(P[j] > 0)) return 0.f;
      return (S[j] * S[j]) / P[j];
    }
    const float p = P[j] - P[i - 1];
    if (!(p > 0)) return 0.f;
    const float s = S[j] - S[i - 1];
    return (s * s) / p;
  };
  const int k = thresh_count;
  std::vector<int64_t> cur(k), best(k, 0);
  for (int i = 0; i < k; ++i) cur[i] = i;
  float sigma_max = 0;
  while (true) {
    float sigma = var(0, cur[0]) + var(cur[k - 1] + 1, nbins - 1);
    for (int i = 0; i + 1 < k; ++i) sigma += var(cur[i] + 1, cur[i + 1]);
    if (sigma > sigma_max) {
      sigma_max = sigma;
      best = cur;
    }
    // next combination of k increasing indices in [0, nbins - 2], lexicographic
    int i = k - 1;
    while (i >= 0 && cur[i] == nbins - 1 - k + i) --i;
    if (i < 0) break;
    ++cur[i];
    for (int j = i + 1; j < k; ++j) cur[j] = cur[j - 1] + 1;
  }
  return best;
}

}  // namespace ndimg::threshold
