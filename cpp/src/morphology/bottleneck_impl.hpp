// The host cores of bottleneck.hpp over raw buffers, shared by its entries (Dask chunks' summaries) and by
// the in-memory reconstruction's tiles (reconstruct_cpu.cpp), which summarise each tile's border the same way.
// The forest is Kruskal's over the elements in descending mask order (a max-tree's union-find): an element
// joins the components of its neighbours already seen, at its own value, the smallest on any path through
// it among those seen. Each component keeps one border element; when two components that both hold one
// meet, their border elements are joined by an edge of that value. Two border elements are then joined
// through the edges at exactly the value at which their components first met: their bottleneck.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "morphology/maxtree_sort.hpp"

namespace ndimg::morphology {

namespace detail {
// One union-find node per element, its fields together: the walk reaches nodes in random order, one cache
// line each. Ix: the index type (int32 while it holds every index: half the memory traffic).
template <class Ix>
struct ForestNode {
  Ix parent = -1;  // -1: not reached yet
  Ix rep = -1;     // a root's border element (-1: none)
  uint8_t rank = 0;
};

template <class T, class Ix, class Id, class Emit>
void forest_walk(const T* mask, int64_t n, std::span<const int64_t> offsets, Id&& id, Emit&& emit) {
  constexpr int64_t kAhead = 16;  // prefetch distance of the walk in value order
  // the joined elements in ascending mask order (the sort skips the others)
  using K = decltype(sort_key(T()));
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (id(i) != -2) order.push_back(i);
  std::vector<K> keys(order.size());
  parallel_for(int64_t(order.size()), 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) keys[i] = sort_key(mask[order[i]]);
  });
  radix_argsort(keys, order.data(), false);
  std::vector<ForestNode<Ix>> node(n);
  for (int64_t t = int64_t(order.size()) - 1; t >= 0; --t) {
    // the walk jumps around the image in value order: fetch what the element kAhead steps on reads
    if (t >= kAhead) {
      const int64_t a = order[t - kAhead];
      __builtin_prefetch(&mask[a]);
      for (int64_t o : offsets) {
        if (a + o < n) __builtin_prefetch(&node[a + o]);
        if (a - o >= 0) __builtin_prefetch(&node[a - o]);
      }
    }
    const int64_t p = order[t];
    Ix root = Ix(p);  // the root of p's component: union by rank keeps the trees shallow
    node[p].parent = root;
    node[p].rep = Ix(id(p));
    for (int64_t o : offsets)
      for (const int64_t q : {p + o, p - o}) {
        if (q < 0 || q >= n || node[q].parent < 0) continue;
        Ix r = Ix(q);  // find with path halving
        while (node[r].parent != r) {
          node[r].parent = node[node[r].parent].parent;
          r = node[r].parent;
        }
        if (r == root) continue;
        const Ix a = node[root].rep, b = node[r].rep;
        if (a >= 0 && b >= 0) emit(int64_t(a), int64_t(b), double(mask[p]));  // they meet at p's value
        if (node[r].rank > node[root].rank) std::swap(r, root);
        node[r].parent = root;
        node[root].rank += node[root].rank == node[r].rank;
        node[root].rep = a >= 0 ? a : b;
      }
  }
}
}  // namespace detail

// The forest of the n elements of `mask`: id(i) is -2 for an element left out, -1 for one joined, k >= 0 for
// the k-th border element (joined); elements are joined by `offsets` taken both ways, and a neighbour
// outside [0, n) is none. emit(a, b, weight) receives each edge between border elements. Called from inside
// a parallel_for chunk, its sort runs serially on that thread. Nodes are int32 while they index every element.
template <class T, class Id, class Emit>
void bottleneck_forest_walk(const T* mask, int64_t n, std::span<const int64_t> offsets, Id&& id, Emit&& emit) {
  if (n < (int64_t(1) << 31)) detail::forest_walk<T, int32_t>(mask, n, offsets, id, emit);
  else detail::forest_walk<T, int64_t>(mask, n, offsets, id, emit);
}

// Widest paths over n vertices and m undirected edges (pairs in e, weights w): val[v] becomes the largest,
// over u and paths u -> v, of min(val[u], the smallest weight on the path). Kruskal's in descending weight
// builds the maximum spanning forest as a tree of merges: the widest path between two vertices has the weight
// of the merge that first joins them, so a vertex receives from the other side of each merge above it its
// best value capped at that merge's weight, passed down the tree from the root.
inline void widest_paths_walk(double* val, int64_t n, const int64_t* e, const double* w, int64_t m) {
  std::vector<uint64_t> keys(m);
  std::vector<int64_t> order(m);
  for (int64_t i = 0; i < m; ++i) keys[i] = sort_key(w[i]);
  radix_argsort(keys, order.data());
  // merge nodes n, n + 1, ...: their children, weight and best value (the largest val below them)
  std::vector<int64_t> up(n), left, right;  // up: union-find over vertices and merges (path halving)
  std::vector<double> weight, best(val, val + n);
  for (int64_t v = 0; v < n; ++v) up[v] = v;
  const auto find = [&](int64_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  };
  for (int64_t k = m - 1; k >= 0; --k) {
    const int64_t i = order[k], a = find(e[2 * i]), b = find(e[2 * i + 1]);
    if (a == b) continue;
    const int64_t c = int64_t(up.size());
    up.push_back(c);
    up[a] = up[b] = c;
    left.push_back(a);
    right.push_back(b);
    weight.push_back(w[i]);
    best.push_back(std::max(best[a], best[b]));
  }
  // from each merge down to its two sides: what the rest of the tree and the other side give
  std::vector<double> in(up.size(), -INFINITY);
  for (int64_t c = int64_t(up.size()) - 1; c >= n; --c) {
    const int64_t k = c - n, a = left[k], b = right[k];
    in[a] = std::max(in[c], std::min(best[b], weight[k]));
    in[b] = std::max(in[c], std::min(best[a], weight[k]));
  }
  for (int64_t v = 0; v < n; ++v) val[v] = std::max(val[v], in[v]);
}

}  // namespace ndimg::morphology
