// Minimum cost paths on an n-d lattice (skimage.graph.MCP and its subclasses): Dijkstra's front propagation
// over Fortran-order flat indices, with scikit-image's own priority queue so that ties, the order in which
// points freeze, and so every cumulative cost and traceback offset, come out as scikit-image's. A serial
// algorithm: it runs on the host for every engine. The hooks (travel cost, goal test, neighbour examination,
// node update) are a template parameter, so the plain classes run without any indirect call.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "ndimg/error.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::graph {

// The per-pixel arrays' fills, on the thread pool (the first touch of fresh pages, mostly).
template <class T>
void fill_on_pool(T* p, int64_t n, T value) {
  parallel_for(n, int64_t(1) << 16, [&](int64_t a, int64_t b) { std::fill(p + a, p + b, value); });
}

// scikit-image's FastUpdateBinaryHeap, in the order it pops: the values are kept in insertion order (a removed
// value is replaced by the last one) and the leftmost of the least is popped. Here the values are the leaves
// of a 4-ary tournament tree whose every node keeps its subtree's minimum and that one's slot (half the
// levels of a binary tree, a pop reads the slot at the root). A cross reference finds a reference's leaf.
// reset() empties the values and cross references but keeps the count and the references, as
// scikit-image's does: stale entries of an interrupted search stay in the tree as infinite values. NaN has
// no place in the order (scikit-image's heap then reads past its entries): pushing one raises.
class McpHeap {
 public:
  McpHeap(int64_t initial_capacity, int64_t max_reference) : max_ref_(max_reference) {
    while (capacity(levels_) < initial_capacity) ++levels_;
    min_levels_ = levels_;
    // left unset here: reset(), which every search starts with, fills it (a first pass over the pages)
    cross_.reset(new int64_t[size_t(max_reference + 1)]);
    resize(levels_);
  }
  void reset() {
    std::fill(values_.begin(), values_.end(), kInf);
    fill_on_pool(cross_.get(), max_ref_ + 1, int64_t(-1));
    update_all();   // all infinite: each node's leftmost leaf
  }
  int64_t count() const { return count_; }
  int64_t popped() const { return popped_ref_; }

  // Sets the reference's value, appending it when absent.
  void push(double value, int64_t ref) {
    if (ref < 0 || ref > max_ref_) return;
    if (std::isnan(value)) throw_nan();
    const int64_t ir = cross_[size_t(ref)];
    if (ir >= 0) {
      values_[size_t(base_ + ir)] = value;
      update_one(base_ + ir);
      return;
    }
    cross_[size_t(ref)] = append(value, ref);
  }
  // Appends the reference, or lowers its value; returns whether either happened.
  bool push_if_lower(double value, int64_t ref) {
    if (ref < 0 || ref > max_ref_) return false;
    if (std::isnan(value)) throw_nan();
    const int64_t ir = cross_[size_t(ref)];
    if (ir >= 0) {
      const int64_t i = base_ + ir;
      if (values_[size_t(i)] > value) {
        values_[size_t(i)] = value;
        update_one(i);
        return true;
      }
      return false;
    }
    cross_[size_t(ref)] = append(value, ref);
    return true;
  }
  // Marks a popped reference as searched (its cross reference, -1 once popped, becomes -2): the search then
  // tells a neighbour's state from this one array. Only with no stale entries: moving one of those rewrites
  // its reference's cross reference, which may have been searched.
  void freeze(int64_t ref) { cross_[size_t(ref)] = -2; }
  bool frozen(int64_t ref) const { return cross_[size_t(ref)] == -2; }
  // The reference a pop would give now (count() > 0), and where its cross reference lies.
  int64_t top() const { return refs_[size_t(slots_[1])]; }
  const int64_t* cross(int64_t ref) const { return cross_.get() + ref; }
  double pop() {
    const int64_t ir = slots_[1], i = base_ + ir;
    const double value = values_[size_t(i)];
    popped_ref_ = refs_[size_t(ir)];
    if (count_) remove(i);
    return value;
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  // Level k of the tree holds nodes [4^k, 2 * 4^k): the root is node 1, node n's children 4n .. 4n + 3 (one
  // aligned group), the leaves (slots) start at base_ = 4^levels_.
  static int64_t capacity(int levels) { return int64_t(1) << (2 * levels); }
  [[noreturn]] static void throw_nan() {
    throw ValueError("MCP: NaN costs cannot be ordered; replace them (e.g. by inf) first");
  }
  int64_t append(double value, int64_t ref) {
    if (count_ >= capacity(levels_)) resize(levels_ + 1);
    const int64_t at = count_;
    values_[size_t(base_ + at)] = value;
    refs_[size_t(at)] = ref;
    ++count_;
    update_one(base_ + at);
    return at;
  }
  // Sets node g / 4 to the least of group g (its leftmost on ties) and that one's slot; returns whether it
  // changed (kStop; without, it is set regardless).
  template <bool kStop>
  bool set_parent(int64_t g) {
    double* v = values_.data();
    // the minimum as min instructions and its place as flag arithmetic: no branch, no reload
    const double x0 = v[g], x1 = v[g + 1], x2 = v[g + 2], x3 = v[g + 3];
    const double m01 = x1 < x0 ? x1 : x0, m23 = x3 < x2 ? x3 : x2, m = m23 < m01 ? m23 : m01;
    const int64_t r01 = x1 < x0, r23 = x3 < x2, r = m23 < m01;
    const int64_t k = g + r01 + r * (2 + r23 - r01);
    const int64_t slot = slots_[size_t(k)], up = g >> 2;
    if (kStop && v[up] == m && slots_[size_t(up)] == slot) return false;
    v[up] = m;
    slots_[size_t(up)] = slot;
    return true;
  }
  // Refreshes the minima above leaf n. kStop: an ancestor whose value and slot do not change leaves those
  // above it as they are (values are only compared, so a zero of the other sign is no matter); without,
  // every ancestor is set (the popped leaf's, which all held its slot: no unpredictable exit).
  template <bool kStop = true>
  void update_one(int64_t n) {
    for (int level = levels_; level > 0; --level, n >>= 2)
      if (!set_parent<kStop>(n & ~int64_t(3)) && kStop) break;
  }
  void update_all() {
    for (int level = levels_; level > 0; --level)
      for (int64_t g = capacity(level); g < 2 * capacity(level); g += 4) set_parent<false>(g);
  }
  void remove(int64_t i1) {
    const int64_t i2 = base_ + count_ - 1, r1 = i1 - base_, r2 = count_ - 1;
    cross_[size_t(refs_[size_t(r2)])] = r1;
    cross_[size_t(refs_[size_t(r1)])] = -1;
    values_[size_t(i1)] = values_[size_t(i2)];
    refs_[size_t(r1)] = refs_[size_t(r2)];
    values_[size_t(i2)] = kInf;
    --count_;
    if (levels_ > min_levels_ && count_ < capacity(levels_) / 16) {
      resize(levels_ - 1);
    } else {
      update_one<false>(i1);
      update_one(i2);
    }
  }
  void resize(int new_levels) {
    const int64_t base = capacity(new_levels);
    std::vector<double> values(size_t(2 * base), kInf);
    std::vector<int64_t> refs(size_t(base), -1);
    const int64_t n = std::min<int64_t>(base, int64_t(refs_.size()));
    for (int64_t i = 0; i < n; ++i) values[size_t(base + i)] = values_[size_t(base_ + i)];
    for (int64_t i = 0; i < n; ++i) refs[size_t(i)] = refs_[size_t(i)];
    values_.swap(values);
    refs_.swap(refs);
    slots_.assign(values_.size(), 0);
    for (int64_t i = 0; i < base; ++i) slots_[size_t(base + i)] = i;   // a leaf's own
    levels_ = new_levels;
    base_ = base;
    update_all();
  }

  int levels_ = 0, min_levels_ = 0;
  int64_t base_ = 1, count_ = 0, max_ref_, popped_ref_ = -1;
  std::vector<double> values_;
  std::vector<int64_t> refs_, slots_;   // slots_: each node's least leaf's slot
  std::unique_ptr<int64_t[]> cross_;
};

enum class Travel : int { NewCost = 0, Geometric = 1, AbsDiff = 2, Hook = 3 };

struct McpSearch {
  const double* costs;          // flat, Fortran order
  double* cumulative;           // flat, Fortran order; written
  int16_t* traceback;           // flat, Fortran order; written
  int ndim;
  const int64_t* shape;         // ndim
  const int8_t* offsets;        // n_offsets x ndim
  const int64_t* flat_offsets;  // n_offsets
  const double* lengths;        // n_offsets
  int n_offsets;
  const int64_t* starts;        // flat indices
  int64_t n_starts;
  const int64_t* ends;          // flat indices, or nullptr
  int64_t n_ends;
  bool all_ends;
  int64_t max_iter;
  bool has_max_step;
  double max_step;
  bool use_start_cost;
  Travel travel;
};

// The hooks' defaults: what MCP itself does. A hooks type overrides those it needs (all are called as
// scikit-image calls them: goal after each pop, examine once per pair of frozen neighbours, update after
// each push or lowering).
struct McpHooks {
  static constexpr bool kGoal = false, kExamine = false, kUpdate = false;
  double travel(double, double new_cost, double) { return new_cost; }
  int goal(int64_t, double) { return 0; }
  void examine(int64_t, int64_t, double) {}
  void update(int64_t, int64_t, double) {}
};

// The front propagation from the pushed starts. kFreeze: a point is searched when the heap says so (one
// array read per neighbour), else when its cumulative cost is finite.
template <bool kFreeze, class Hooks>
void mcp_search(const McpSearch& s, McpHeap& heap, Hooks& hooks, int64_t size) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<int64_t> coord(size_t(s.ndim)), lo(size_t(s.ndim), 0), hi(size_t(s.ndim), 0);
  for (int i = 0; i < s.n_offsets; ++i)
    for (int d = 0; d < s.ndim; ++d) {
      lo[size_t(d)] = std::min<int64_t>(lo[size_t(d)], s.offsets[int64_t(i) * s.ndim + d]);
      hi[size_t(d)] = std::max<int64_t>(hi[size_t(d)], s.offsets[int64_t(i) * s.ndim + d]);
    }
  int64_t ends_found = 0;
  // an end counts once per pop however often it is listed (scikit-image scans its list to the first match);
  // a few ends are scanned as well, more looked up in a table (a cache miss a pop)
  constexpr int64_t kScanned = 16;
  const bool scan = s.n_ends <= kScanned;
  std::vector<uint8_t> is_end(s.ends && !scan ? size_t(size) : 0, 0);
  for (int64_t k = 0; k < (is_end.empty() ? 0 : s.n_ends); ++k) is_end[size_t(s.ends[k])] = 1;
  for (int64_t iter = 0; iter < s.max_iter; ++iter) {
    if (heap.count() == 0) break;
    const double cumcost = heap.pop();
    const int64_t index = heap.popped();
    s.cumulative[index] = cumcost;
    if constexpr (kFreeze)
      if (cumcost != inf) heap.freeze(index);
    if constexpr (Hooks::kGoal) {
      const int g = hooks.goal(index, cumcost);
      if (g > 0) {
        if (g == 1) continue;
        break;
      }
    }
    if (s.ends) {
      if (scan)
        ends_found += std::find(s.ends, s.ends + s.n_ends, index) != s.ends + s.n_ends;
      else
        ends_found += is_end[size_t(index)];
      if ((ends_found && !s.all_ends) || ends_found == s.n_ends) break;
    }
    // scikit-image's edge maps skip exactly the offsets that leave the array along some axis
    int64_t rest = index;
    bool at_edge = false;   // some offset could leave the array: check each one
    for (int d = 0; d < s.ndim; ++d) {
      coord[size_t(d)] = rest % s.shape[d];
      rest /= s.shape[d];
      at_edge |= coord[size_t(d)] + lo[size_t(d)] < 0 || coord[size_t(d)] + hi[size_t(d)] >= s.shape[d];
    }
    const double cost = s.costs[index];
    if (heap.count()) {   // most often the next pop: its neighbours' lines are fetched while these are searched
      const int64_t ahead = heap.top();
      for (int i = 0; i < s.n_offsets; ++i) {
        const int64_t next = ahead + s.flat_offsets[i];
        if (uint64_t(next) >= uint64_t(size)) continue;
        __builtin_prefetch(s.costs + next);
        __builtin_prefetch(heap.cross(next));
      }
    }
    for (int i = 0; i < s.n_offsets; ++i) {
      if (at_edge) {
        const int8_t* off = s.offsets + int64_t(i) * s.ndim;
        bool inside = true;
        for (int d = 0; d < s.ndim && inside; ++d) {
          const int64_t c = coord[size_t(d)] + off[d];
          inside = c >= 0 && c < s.shape[d];
        }
        if (!inside) continue;
      }
      const int64_t next = index + s.flat_offsets[i];
      const double length = s.lengths[i];
      if (kFreeze ? heap.frozen(next) : s.cumulative[next] != inf) {
        if constexpr (Hooks::kExamine) hooks.examine(index, next, length);
        continue;
      }
      const double new_cost = s.costs[next];
      if (new_cost < 0 || new_cost == inf || (s.has_max_step && new_cost > s.max_step)) continue;
      double step;
      switch (s.travel) {
        case Travel::NewCost: step = new_cost; break;
        case Travel::Geometric: step = length * 0.5 * (cost + new_cost); break;
        case Travel::AbsDiff: step = std::fabs(cost - new_cost); break;
        default: step = hooks.travel(cost, new_cost, length);
      }
      const double new_cumcost = cumcost + step;
      if (new_cumcost != inf && heap.push_if_lower(new_cumcost, next)) {
        s.traceback[next] = int16_t(i);
        if constexpr (Hooks::kUpdate) hooks.update(index, next, length);
      }
    }
  }
}

template <class Hooks>
void mcp_find_costs(const McpSearch& s, McpHeap& heap, Hooks& hooks) {
  int64_t size = 1;
  for (int d = 0; d < s.ndim; ++d) size *= s.shape[d];
  heap.reset();
  fill_on_pool(s.traceback, size, int16_t(-2));
  fill_on_pool(s.cumulative, size, std::numeric_limits<double>::infinity());
  const bool stale = heap.count() > 0;   // left by an interrupted search
  for (int64_t k = 0; k < s.n_starts; ++k) {
    s.traceback[s.starts[k]] = -1;
    heap.push(s.use_start_cost ? s.costs[s.starts[k]] : 0.0, s.starts[k]);
  }
  if (stale)
    mcp_search<false>(s, heap, hooks, size);
  else
    mcp_search<true>(s, heap, hooks, size);
}

// The search without Python hooks (MCP, MCP_Geometric, shortest_path's differences), compiled with the core's
// optimisation in mcp_cpu.cpp.
void mcp_find_costs_plain(const McpSearch& s, McpHeap& heap);

// A C-order h x w costs array as the search reads it: doubles in Fortran order (out: h * w), converted on
// the thread pool.
void mcp_fortran_costs(const float* costs, int64_t h, int64_t w, double* out);
void mcp_fortran_costs(const double* costs, int64_t h, int64_t w, double* out);

// The minimum cost path to `end` (a flat index) back through the traceback offsets: the positions (ndim
// each, start first) appended to `path`.
inline void mcp_traceback(const McpSearch& s, int64_t end, std::vector<int64_t>& path) {
  std::vector<int64_t> pos(size_t(s.ndim));
  int64_t rest = end;
  for (int d = 0; d < s.ndim; ++d) {
    pos[size_t(d)] = rest % s.shape[d];
    rest /= s.shape[d];
  }
  int64_t size = 1;
  for (int d = 0; d < s.ndim; ++d) size *= s.shape[d];
  std::vector<int64_t> rev(pos);
  int64_t flat = end;
  for (int64_t steps = 0;; ++steps) {
    const int16_t o = s.traceback[flat];
    if (o < 0) break;   // -1: a start (-2, never reached, cannot occur on a path)
    // a traceback array that no search wrote could lead anywhere, or round in circles
    if (o >= s.n_offsets || steps >= size) throw ValueError("traceback: the traceback array holds no path to this point");
    flat -= s.flat_offsets[o];
    if (flat < 0 || flat >= size) throw ValueError("traceback: the traceback array holds no path to this point");
    for (int d = 0; d < s.ndim; ++d) pos[size_t(d)] -= s.offsets[int64_t(o) * s.ndim + d];
    rev.insert(rev.end(), pos.begin(), pos.end());
  }
  for (size_t k = rev.size() / size_t(s.ndim); k-- > 0;) path.insert(path.end(), rev.begin() + k * s.ndim, rev.begin() + (k + 1) * s.ndim);
}

}  // namespace ndimg::graph
