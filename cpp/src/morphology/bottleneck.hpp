// Max-min ("bottleneck") connectivity for reconstruction over Dask chunks (python/ndimg/morphology/
// _reconstruction_dask.py): the widest-path structure between a chunk's border elements, and widest-path
// values over the graph those structures form across chunks. Host only: the summaries are small. The
// entries are in bottleneck.cpp, the schedules in bottleneck_cpu.cpp.
#pragma once
#include <cstdint>
#include <span>

#include "core/engine.hpp"

namespace ndimg::morphology {

// A maximum spanning forest of the border elements of `mask` (float32 or float64, C-contiguous) under the
// bottleneck metric: the largest, over paths joining two elements, of the smallest mask value on the path.
// Elements are joined by `offsets` (linear steps, each taken both ways). `ids` (int32, mask's shape):
// -2 marks elements left out (never joined; padding must surround the rest by the offsets' reach), -1 an
// element, k >= 0 the k-th border element. Writes up to edges.shape[0] rows (int64 pairs of border ids) and
// their weights (float64: the bottleneck of the pair, which equals the bottleneck of any two border elements
// through the forest) and returns their count.
int64_t bottleneck_forest(const View& mask, const View& ids, std::span<const int64_t> offsets, const View& edges,
                          const View& weights);
// Widest paths from every vertex: values (float64, one per vertex) become the largest, over vertices u and
// paths u -> v of the undirected `edges` (int64 pairs) weighted by `weights` (float64), of min(values[u],
// the smallest weight on the path).
void widest_paths(const View& values, const View& edges, const View& weights);

// ---- engine schedules (arguments validated by the entries) ----
int64_t bottleneck_forest_cpu(const View& mask, const View& ids, std::span<const int64_t> offsets, const View& edges,
                              const View& weights);
void widest_paths_cpu(const View& values, const View& edges, const View& weights);

}  // namespace ndimg::morphology
