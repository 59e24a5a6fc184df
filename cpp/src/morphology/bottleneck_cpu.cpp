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

template <class T>
int64_t forest(const T* mask, const int64_t* ids, int64_t n, std::span<const int64_t> offsets, int64_t* edges,
               double* weights, int64_t capacity) {
  std::vector<int64_t> order(n);
  argsort_stable(mask, n, order.data());
  std::vector<int64_t> zpar(n, -1), rep(n, -1);
  int64_t count = 0;
  for (int64_t t = n - 1; t >= 0; --t) {
    const int64_t p = order[t];
    if (ids[p] == -2) continue;
    zpar[p] = p;  // p stays the root of every component it joins while it is processed
    rep[p] = ids[p];
    for (int64_t o : offsets)
      for (const int64_t q : {p + o, p - o}) {
        if (q < 0 || q >= n || zpar[q] < 0) continue;
        int64_t r = q;  // find with path halving
        while (zpar[r] != r) {
          zpar[r] = zpar[zpar[r]];
          r = zpar[r];
        }
        if (r == p) continue;
        zpar[r] = p;
        if (rep[r] < 0) continue;
        if (rep[p] < 0) {
          rep[p] = rep[r];
        } else {
          if (count == capacity) throw ValueError("bottleneck: more edges than border elements");
          edges[2 * count] = rep[p];
          edges[2 * count + 1] = rep[r];
          weights[count++] = double(mask[p]);
        }
      }
  }
  return count;
}

}  // namespace

int64_t bottleneck_forest_cpu(const View& mask, const View& ids, std::span<const int64_t> offsets, const View& edges,
                              const View& weights) {
  const auto run = [&]<class T>() {
    return forest(mask.ptr<T>(), ids.ptr<int64_t>(), mask.size(), offsets, edges.ptr<int64_t>(),
                  weights.ptr<double>(), edges.shape[0]);
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
