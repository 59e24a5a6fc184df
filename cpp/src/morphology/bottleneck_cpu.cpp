// Host schedules of bottleneck.hpp.
// The forest is Kruskal's over the elements in descending mask order (a max-tree's union-find): an element
// joins the components of its neighbours already seen, at its own value, the smallest on any path through
// it among those seen. Each component keeps one border element; when two components that both hold one
// meet, their border elements are joined by an edge of that value. Two border elements are then joined
// through the edges at exactly the value at which their components first met: their bottleneck.
// The widest paths are Dijkstra's with max-min in place of sum: each vertex is final when it leaves the heap.
#include <algorithm>
#include <queue>
#include <utility>
#include <vector>

#include "morphology/bottleneck.hpp"
#include "morphology/maxtree_sort.hpp"

namespace ndimg::morphology {
namespace {

constexpr int64_t kAhead = 16;  // prefetch distance of the walk in value order

// One union-find node per element, its fields together: the walk reaches nodes in random order, one cache
// line each. Ix: the index type (int32 while it holds every index: half the memory traffic).
template <class Ix>
struct Node {
  Ix parent = -1;  // -1: not reached yet
  Ix rep = -1;     // a root's border element (-1: none)
  uint8_t rank = 0;
};

template <class T, class Ix>
int64_t forest(const T* mask, const int32_t* ids, int64_t n, std::span<const int64_t> offsets, int64_t* edges,
               double* weights, int64_t capacity) {
  // the joined elements in ascending mask order (the sort skips the others)
  using K = decltype(sort_key(T()));
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (ids[i] != -2) order.push_back(i);
  std::vector<K> keys(order.size());
  parallel_for(int64_t(order.size()), 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) keys[i] = sort_key(mask[order[i]]);
  });
  radix_argsort(keys, order.data(), false);
  std::vector<Node<Ix>> node(n);
  int64_t count = 0;
  for (int64_t t = int64_t(order.size()) - 1; t >= 0; --t) {
    // the walk jumps around the image in value order: fetch what the element kAhead steps on reads
    if (t >= kAhead) {
      const int64_t a = order[t - kAhead];
      __builtin_prefetch(&ids[a]);
      __builtin_prefetch(&mask[a]);
      for (int64_t o : offsets) {
        if (a + o < n) __builtin_prefetch(&node[a + o]);
        if (a - o >= 0) __builtin_prefetch(&node[a - o]);
      }
    }
    const int64_t p = order[t];
    Ix root = Ix(p);  // the root of p's component: union by rank keeps the trees shallow
    node[p].parent = root;
    node[p].rep = Ix(ids[p]);
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
        if (a >= 0 && b >= 0) {  // the components meet at p's value
          if (count == capacity) throw ValueError("bottleneck: more edges than border elements");
          edges[2 * count] = a;
          edges[2 * count + 1] = b;
          weights[count++] = double(mask[p]);
        }
        if (node[r].rank > node[root].rank) std::swap(r, root);
        node[r].parent = root;
        node[root].rank += node[root].rank == node[r].rank;
        node[root].rep = a >= 0 ? a : b;
      }
  }
  return count;
}

}  // namespace

int64_t bottleneck_forest_cpu(const View& mask, const View& ids, std::span<const int64_t> offsets, const View& edges,
                              const View& weights) {
  const bool small = mask.size() < (int64_t(1) << 31);
  const auto run = [&]<class T>() {
    const auto go = [&]<class Ix>() {
      return forest<T, Ix>(mask.ptr<T>(), ids.ptr<int32_t>(), mask.size(), offsets, edges.ptr<int64_t>(),
                           weights.ptr<double>(), edges.shape[0]);
    };
    return small ? go.template operator()<int32_t>() : go.template operator()<int64_t>();
  };
  return mask.dtype == DType::F32 ? run.template operator()<float>() : run.template operator()<double>();
}

void widest_paths_cpu(const View& values, const View& edges, const View& weights) {
  const int64_t n = values.shape[0], m = edges.shape[0];
  const int64_t* e = edges.ptr<int64_t>();
  const double* w = weights.ptr<double>();
  double* val = values.ptr<double>();
  std::vector<int64_t> start(n + 1, 0), nbr(2 * m), edge(2 * m);  // adjacency (CSR): neighbour and edge
  for (int64_t i = 0; i < 2 * m; ++i) ++start[e[i] + 1];
  for (int64_t v = 0; v < n; ++v) start[v + 1] += start[v];
  std::vector<int64_t> at(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < m; ++i) {
    nbr[at[e[2 * i]]] = e[2 * i + 1];
    edge[at[e[2 * i]]++] = i;
    nbr[at[e[2 * i + 1]]] = e[2 * i];
    edge[at[e[2 * i + 1]]++] = i;
  }
  std::priority_queue<std::pair<double, int64_t>> heap;
  for (int64_t v = 0; v < n; ++v) heap.emplace(val[v], v);
  while (!heap.empty()) {
    const auto [g, v] = heap.top();
    heap.pop();
    if (g < val[v]) continue;  // raised since it was pushed
    for (int64_t k = start[v]; k < start[v + 1]; ++k) {
      const int64_t u = nbr[k];
      const double c = std::min(g, w[edge[k]]);
      if (c > val[u]) {
        val[u] = c;
        heap.emplace(c, u);
      }
    }
  }
}

}  // namespace ndimg::morphology
