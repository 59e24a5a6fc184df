// Host schedules of bottleneck.hpp.
// The forest is Kruskal's over the elements in descending mask order (a max-tree's union-find): an element
// joins the components of its neighbours already seen, at its own value, the smallest on any path through
// it among those seen. Each component keeps one border element; when two components that both hold one
// meet, their border elements are joined by an edge of that value. Two border elements are then joined
// through the edges at exactly the value at which their components first met: their bottleneck. A component
// without one keeps its largest seed value, which reaches the border elements of the component it meets at
// most at the meeting value: each border element's value is raised to it there, and the widest paths over
// the forest from these values are the chunk's own reconstruction at its border elements.
// The widest paths are Dijkstra's with max-min in place of sum: each vertex is final when it leaves the heap.
#include <algorithm>
#include <limits>
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
template <class T, class Ix>
struct Node {
  Ix parent = -1;  // -1: not reached yet
  Ix rep = -1;     // a root's border element (-1: none)
  T best = 0;      // a root without one: its largest seed value
  uint8_t rank = 0;
};

template <class T, class Ix>
int64_t forest(const T* mask, const T* seed, const int32_t* ids, int64_t n, std::span<const int64_t> offsets,
               int64_t* edges, double* weights, int64_t capacity, double* values) {
  std::vector<int64_t> order(n);
  argsort_stable(mask, n, order.data());
  std::vector<Node<T, Ix>> node(n);
  const auto raise = [&](Ix k, T v) { values[k] = std::max(values[k], double(v)); };
  int64_t count = 0;
  for (int64_t t = n - 1; t >= 0; --t) {
    // the walk jumps around the image in value order: fetch what the element kAhead steps on reads
    if (t >= kAhead) {
      const int64_t a = order[t - kAhead];
      __builtin_prefetch(&ids[a]);
      __builtin_prefetch(&mask[a]);
      __builtin_prefetch(&seed[a]);
      __builtin_prefetch(&node[a]);
      for (int64_t o : offsets) {
        if (a + o < n) __builtin_prefetch(&node[a + o]);
        if (a - o >= 0) __builtin_prefetch(&node[a - o]);
      }
    }
    const int64_t p = order[t];
    if (ids[p] == -2) continue;
    const T level = mask[p];
    // a NaN seed stays where it is (it raises no neighbour): it joins as the lowest value
    const T own = seed[p] == seed[p] ? seed[p] : -std::numeric_limits<T>::infinity();
    Ix root = Ix(p);  // the root of p's component: union by rank keeps the trees shallow
    node[p].parent = root;
    node[p].rep = Ix(ids[p]);
    if (ids[p] >= 0) raise(Ix(ids[p]), own);
    else node[p].best = own;
    for (int64_t o : offsets)
      for (const int64_t q : {p + o, p - o}) {
        if (q < 0 || q >= n || node[q].parent < 0) continue;
        Ix r = Ix(q);  // find with path halving
        while (node[r].parent != r) {
          node[r].parent = node[node[r].parent].parent;
          r = node[r].parent;
        }
        if (r == root) continue;
        // the components meet at `level`: a seed of one reaches the other's border at most at it
        auto &x = node[root], &y = node[r];
        if (x.rep >= 0 && y.rep >= 0) {
          if (count == capacity) throw ValueError("bottleneck: more edges than border elements");
          edges[2 * count] = x.rep;
          edges[2 * count + 1] = y.rep;
          weights[count++] = double(level);
        } else if (x.rep >= 0) {
          raise(x.rep, std::min(y.best, level));
        } else if (y.rep >= 0) {
          raise(y.rep, std::min(x.best, level));
        }
        const Ix rep = x.rep >= 0 ? x.rep : y.rep;
        const T best = std::max(x.best, y.best);
        if (y.rank > x.rank) std::swap(r, root);
        node[r].parent = root;
        node[root].rank += node[root].rank == node[r].rank;
        node[root].rep = rep;
        node[root].best = best;
      }
  }
  return count;
}

}  // namespace

int64_t bottleneck_forest_cpu(const View& mask, const View& seed, const View& ids, std::span<const int64_t> offsets,
                              const View& edges, const View& weights, const View& values) {
  const bool small = mask.size() < (int64_t(1) << 31);
  double* v = values.ptr<double>();
  std::fill(v, v + values.size(), -std::numeric_limits<double>::infinity());
  const auto run = [&]<class T>() {
    const auto go = [&]<class Ix>() {
      return forest<T, Ix>(mask.ptr<T>(), seed.ptr<T>(), ids.ptr<int32_t>(), mask.size(), offsets,
                           edges.ptr<int64_t>(), weights.ptr<double>(), edges.shape[0], v);
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
