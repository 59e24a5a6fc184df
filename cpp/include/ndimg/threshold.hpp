// ndimg::threshold — the per-pixel parts of skimage.filters' thresholding that are no general primitive:
// Niblack/Sauvola local thresholds and the multi-Otsu search. Whole-image statistics, histograms and
// hysteresis labelling are the reduce, histogram and label families.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::threshold {

// Niblack (m - k s) and Sauvola (m (1 + k (s / r - 1))) with m, s the mean and standard deviation over an
// odd window (mirror boundary), as skimage computes them: window sums in double, then the float type of
// `out` (float32 or float64).
enum class LocalKind : int { Niblack = 0, Sauvola = 1 };
void local_threshold(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind, double k,
                     double r, StreamHandle stream = nullptr);

// Multi-Otsu on a normalized histogram (host, O(nbins^thresh_count)): the threshold indices maximizing
// the between-class variance, found by exhaustive search in lexicographic order in float32 arithmetic
// (Liao et al.'s lookup-table formulation, as skimage evaluates it).
std::vector<int64_t> multiotsu_indices(std::span<const float> prob, int thresh_count);

}  // namespace ndimg::threshold
