// Entries of bottleneck.hpp: validate once, run the host schedule.
#include "morphology/bottleneck.hpp"

#include <string>

namespace ndimg::morphology {
namespace {

void require_host_c(const View& v, const char* what) {
  if (v.device != Device::CPU) throw ValueError(std::string("bottleneck: host arrays only"));
  if (!v.c_contiguous()) throw ValueError(std::string("bottleneck: ") + what + " must be C-contiguous");
}
// edges (m, 2) int64 and weights (m,) float64
int64_t require_edges(const View& edges, const View& weights) {
  if (edges.dtype != DType::I64 || weights.dtype != DType::F64)
    throw TypeError("bottleneck: edges int64 and weights float64");
  if (edges.ndim != 2 || edges.shape[1] != 2 || weights.ndim != 1 || weights.shape[0] != edges.shape[0])
    throw ValueError("bottleneck: edges (m, 2) and weights (m,)");
  if (edges.shape[0]) {  // no edges: any strides
    require_host_c(edges, "edges");
    require_host_c(weights, "weights");
  }
  return edges.shape[0];
}

}  // namespace

int64_t bottleneck_forest(const View& mask, const View& ids, std::span<const int64_t> offsets, const View& edges,
                          const View& weights) {
  require_host_c(mask, "mask");
  require_host_c(ids, "ids");
  require_same_shape(mask, ids, "bottleneck");
  if (!is_float(mask.dtype) || ids.dtype != DType::I32) throw TypeError("bottleneck: float mask and int32 ids");
  const int64_t m = require_edges(edges, weights);
  // border ids index the edges' vertices: fewer than m + 2 of them
  const int32_t* id = ids.ptr<int32_t>();
  for (int64_t i = 0; i < ids.size(); ++i)
    if (id[i] < -2 || id[i] > m) throw ValueError("bottleneck: border id out of range");
  for (int64_t o : offsets)
    if (o == 0 || o >= mask.size() || -o >= mask.size()) throw ValueError("bottleneck: bad neighbour offset");
  if (mask.size() == 0) return 0;
  return bottleneck_forest_cpu(mask, ids, offsets, edges, weights);
}

void widest_paths(const View& values, const View& edges, const View& weights) {
  require_host_c(values, "values");
  if (values.dtype != DType::F64 || values.ndim != 1) throw TypeError("bottleneck: values float64 (n,)");
  const int64_t m = require_edges(edges, weights), n = values.shape[0];
  const int64_t* e = edges.ptr<int64_t>();
  for (int64_t i = 0; i < 2 * m; ++i)
    if (e[i] < 0 || e[i] >= n) throw ValueError("bottleneck: edge vertex out of range");
  widest_paths_cpu(values, edges, weights);
}

}  // namespace ndimg::morphology
