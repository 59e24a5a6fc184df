// The hook-free minimum cost path search, instantiated here so that it gets the core library's optimisation
// (the Python bindings are built for size).
#include "graph/mcp.hpp"

#include <algorithm>

#include "ndimg/parallel.hpp"

namespace ndimg::graph {

void mcp_find_costs_plain(const McpSearch& s, McpHeap& heap) {
  McpHooks none;
  mcp_find_costs(s, heap, none);
}

}  // namespace ndimg::graph

namespace ndimg::graph {

namespace {

// A blocked transpose on the pool: each task reads a band of 64 columns, row block by row block.
template <class T>
void fortran_of(const T* in, int64_t h, int64_t w, double* out) {
  constexpr int64_t kBlock = 64;
  parallel_for((w + kBlock - 1) / kBlock, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t j0 = b0 * kBlock; j0 < std::min(w, b1 * kBlock); j0 += kBlock)
      for (int64_t i0 = 0; i0 < h; i0 += kBlock)
        for (int64_t j = j0; j < std::min(w, j0 + kBlock); ++j)
          for (int64_t i = i0; i < std::min(h, i0 + kBlock); ++i) out[j * h + i] = double(in[i * w + j]);
  });
}

}  // namespace

void mcp_fortran_costs(const float* costs, int64_t h, int64_t w, double* out) { fortran_of(costs, h, w, out); }
void mcp_fortran_costs(const double* costs, int64_t h, int64_t w, double* out) { fortran_of(costs, h, w, out); }

}  // namespace ndimg::graph
