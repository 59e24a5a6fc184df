// The hook-free minimum cost path search, instantiated here so that it gets the core library's optimisation
// (the Python bindings are built for size).
#include "graph/mcp.hpp"

namespace ndimg::graph {

void mcp_find_costs_plain(const McpSearch& s, McpHeap& heap) {
  McpHooks none;
  mcp_find_costs(s, heap, none);
}

}  // namespace ndimg::graph
