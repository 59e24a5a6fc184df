// Reliability-sorted phase unwrapping (Herraez, Burton, Lalor and Gdeisat) on the CPU, in the order of
// scikit-image's 2-D and 3-D unwrappers so that results agree: every pixel's reliability starts as rand(),
// then the sum of squared wrapped second differences over the interior (and over the borders an axis wraps
// around, with the neighbour offsets scikit-image uses there), edges between unmasked neighbours in its
// creation order, its quicksort variant (not stable: the same algorithm gives the same order of ties), and
// groups merged smaller into larger along the sorted edges.
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numbers>
#include <utility>
#include <vector>

#include "ndimg/error.hpp"
#include "ndimg/parallel.hpp"
#include "ndimg/restoration.hpp"
#include "unwrap.hpp"

namespace ndimg::restoration {

namespace {

struct Offsets {
  int64_t a, b;   // the term wrap(v[p + a] - v[p]) - wrap(v[p] - v[p + b])
};

// The pixels [n0, n1) x [i0, i1) x [j0, j1) whose reliability is computed with `terms`.
struct Region {
  int64_t n0, n1, i0, i1, j0, j1;
  std::vector<Offsets> terms;
};

std::vector<Region> regions(int64_t D, int64_t H, int64_t W, bool is3d, bool wz, bool wy, bool wx) {
  const int64_t F = H * W, V = D * F;
  std::vector<Region> r;
  if (!is3d) {
    const int64_t L = (H - 1) * W;   // from the first row to the last
    r.push_back({0, 1, 1, H - 1, 1, W - 1, {{-1, 1}, {-W, W}, {-W - 1, W + 1}, {-W + 1, W - 1}}});
    if (wx) {
      r.push_back({0, 1, 1, H - 1, 0, 1, {{W - 1, 1}, {-W, W}, {-1, W + 1}, {-W + 1, 2 * W - 1}}});
      r.push_back({0, 1, 1, H - 1, W - 1, W, {{-1, -W + 1}, {-W, W}, {-W - 1, 1}, {-2 * W - 1, W - 1}}});
    }
    if (wy) {
      r.push_back({0, 1, 0, 1, 1, W - 1, {{-1, 1}, {L, W}, {L - 1, W + 1}, {L + 1, W - 1}}});
      r.push_back({0, 1, H - 1, H, 1, W - 1, {{-1, 1}, {-W, -L}, {-W - 1, -L + 1}, {-W + 1, -L - 1}}});
    }
    return r;
  }
  // terms H, V, N, D1..D10 of scikit-image's 3-D reliability, per region
  r.push_back({1, D - 1, 1, H - 1, 1, W - 1,
               {{-1, 1}, {-W, W}, {-F, F}, {-W - 1, W + 1}, {-W + 1, W - 1}, {-F - W - 1, F + W + 1},
                {-F - W, F + W}, {-F - W + 1, F + W - 1}, {-F - 1, F + 1}, {-F + 1, F - 1},
                {-F + W - 1, F - W + 1}, {-F + W, F - W}, {-F + W + 1, F - W - 1}}});
  if (wx) {
    r.push_back({1, D - 1, 1, H - 1, 0, 1,
                 {{W - 1, 1}, {-W, W}, {-F, F}, {-1, W + 1}, {-W + 1, 2 * W - 1}, {-F - 1, F + W + 1},
                  {-F - W, F + W}, {-F - W + 1, F + 2 * W - 1}, {-F + W - 1, F + 1}, {-F + 1, F + W - 1},
                  {-F + 2 * W - 1, F - W + 1}, {-F + W, F - W}, {-F + W + 1, F - 1}}});
    r.push_back({1, D - 1, 1, H - 1, W - 1, W,
                 {{-W + 1, -1}, {-W, W}, {-F, F}, {-W - 1, 1}, {W - 1, -2 * W + 1}, {-F - W - 1, F + 1},
                  {-F - 2 * W + 1, F + W - 1}, {-F - 1, F - W + 1}, {-F - W + 1, F - 1}, {-F - W, F + W},
                  {-F + W - 1, F - 2 * W + 1}, {-F + W, F - W}, {-F + 1, F - W - 1}}});
  }
  if (wy) {
    r.push_back({1, D - 1, 0, 1, 1, W - 1,
                 {{-1, 1}, {F - W, W}, {-F, F}, {F - W - 1, W + 1}, {F - W + 1, W - 1}, {-W - 1, F + W + 1},
                  {-W, F + W}, {-W + 1, F + W - 1}, {-F - 1, F + 1}, {-F + 1, F - 1},
                  {-F + W - 1, 2 * F - W + 1}, {-F + W, 2 * F - W}, {-F + W + 1, 2 * F - W - 1}}});
    r.push_back({1, D - 1, H - 1, H, 1, W - 1,
                 {{1, -1}, {-W, -F + W}, {-F, F}, {-W - 1, -F + W + 1}, {-W + 1, -F + W - 1}, {-F - W - 1, W + 1},
                  {-F - W + 1, W - 1}, {-F - W, W}, {-F - 1, F + 1}, {-F + 1, F - 1},
                  {-2 * F + W - 1, F - W + 1}, {-2 * F + W, F - W}, {-2 * F + W + 1, F - W - 1}}});
  }
  if (wz) {
    const int64_t B = V - F;   // from the first frame to the last
    r.push_back({0, 1, 1, H - 1, 1, W - 1,
                 {{-1, 1}, {-W, W}, {F, B}, {-W - 1, W + 1}, {-W + 1, W - 1}, {B - W - 1, F + W + 1},
                  {B - W, F + W}, {B - W + 1, F + W - 1}, {B - 1, F + 1}, {B + 1, F - 1},
                  {B + W - 1, F - W + 1}, {B + W, F - W}, {B + W + 1, F - W - 1}}});
    r.push_back({D - 1, D, 1, H - 1, 1, W - 1,
                 {{1, -1}, {-W, W}, {-F, -B}, {-W - 1, W + 1}, {-W + 1, W - 1}, {-F - W - 1, -B + W + 1},
                  {-F - W + 1, -B + W - 1}, {-F - W, -B + W}, {-F - 1, -B + 1}, {-F + 1, -B - 1},
                  {-F + W - 1, -B - W + 1}, {-F + W, -B - W}, {-F + W + 1, -B - W - 1}}});
  }
  return r;
}

struct Edge {
  double reliab;
  int64_t p1, p2;
  int increment;
};

// the sort's items: an edge's reliability and its index (half an edge's size to move)
struct Key {
  double reliab;
  int64_t edge;
};

// One step of scikit-image's quicksort on [left, right]: the pivot from the sorted first, middle and last
// reliabilities (or the larger of the first two distinct ones), a partition into < pivot and >= pivot.
// Returns the first index of the second part, or -1 where the range needs no sorting.
template <class E>
int64_t partition_step(std::vector<E>& e, int64_t left, int64_t right) {
  if (right <= left) return -1;
  double a = e[size_t(left)].reliab, b = e[size_t(left + (right - left) / 2)].reliab, c = e[size_t(right)].reliab;
  if (a > b) std::swap(a, b);
  if (a > c) std::swap(a, c);
  if (b > c) std::swap(b, c);
  double pivot;
  if (a < b) {
    pivot = b;
  } else if (b < c) {
    pivot = c;
  } else {
    int64_t p = left + 1;
    const double first = e[size_t(left)].reliab;
    while (p <= right && e[size_t(p)].reliab == first) ++p;
    if (p > right) return -1;   // all equal
    pivot = e[size_t(p)].reliab < first ? first : e[size_t(p)].reliab;
  }
  int64_t l = left, r = right;
  while (l <= r) {   // (reliabilities are never NaN here: unwrap_phase refuses them)
    while (e[size_t(l)].reliab < pivot) ++l;
    while (e[size_t(r)].reliab >= pivot) --r;
    if (l < r) std::swap(e[size_t(l++)], e[size_t(r--)]);
  }
  return l;
}

template <class E>
void sort_range(std::vector<E>& e, int64_t left, int64_t right) {
  std::vector<std::pair<int64_t, int64_t>> todo{{left, right}};
  while (!todo.empty()) {
    auto [l, r] = todo.back();
    todo.pop_back();
    const int64_t p = partition_step(e, l, r);
    if (p < 0) continue;
    todo.push_back({l, p - 1});
    todo.push_back({p, r});
  }
}

// The sort's ranges are disjoint once partitioned: the first partitions split the work, the thread pool
// sorts the parts (the same order as one thread gives).
template <class E>
void sort_edges(std::vector<E>& e) {
  std::vector<std::pair<int64_t, int64_t>> parts{{0, int64_t(e.size()) - 1}};
  const size_t want = size_t(4 * num_threads());
  for (size_t k = 0; k < parts.size() && parts.size() < want;) {
    auto [l, r] = parts[k];
    if (r - l < 4096) {
      ++k;
      continue;
    }
    const int64_t p = partition_step(e, l, r);
    if (p < 0) {
      ++k;
      continue;
    }
    parts[k] = {l, p - 1};
    parts.push_back({p, r});
  }
  parallel_for(int64_t(parts.size()), 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) sort_range(e, parts[size_t(k)].first, parts[size_t(k)].second);
  });
}

std::mutex rand_lock;   // C's generator is the process's: one unwrap draws its sequence at a time

}  // namespace

void unwrap_phase(const View& image, const View& mask, const View& out, bool wrap_z, bool wrap_y, bool wrap_x,
                  bool reseed) {
  if (image.device != Device::CPU || mask.device != Device::CPU || out.device != Device::CPU)
    throw ValueError("unwrap_phase: CPU arrays only");
  if (image.dtype != DType::F64 || out.dtype != DType::F64 || mask.dtype != DType::U8)
    throw TypeError("unwrap_phase: float64 image and output, uint8 mask expected");
  if (image.ndim != 2 && image.ndim != 3) throw ValueError("unwrap_phase: 2-D or 3-D images only");
  require_same_shape(image, out, "unwrap_phase");
  require_same_shape(image, mask, "unwrap_phase");
  if (!image.c_contiguous() || !mask.c_contiguous() || !out.c_contiguous())
    throw ValueError("unwrap_phase: C-contiguous arrays only");
  const bool is3d = image.ndim == 3;
  const int64_t D = is3d ? image.shape[0] : 1, H = image.shape[image.ndim - 2], W = image.shape[image.ndim - 1];
  const int64_t F = H * W, V = D * F;
  if (V == 0) return;
  const double* v = image.ptr<double>();
  const uint8_t* m = mask.ptr<uint8_t>();
  double* u = out.ptr<double>();
  auto at = [&](int64_t q) { return q >= 0 && q < V ? v[q] : 0.0; };   // scikit-image reads past the edges here

  std::vector<double> rel(static_cast<size_t>(V));
  {
    std::lock_guard<std::mutex> hold(rand_lock);
    if (reseed) std::srand(0);
    for (int64_t p = 0; p < V; ++p) rel[size_t(p)] = double(std::rand());
  }
  for (const Region& g : regions(D, H, W, is3d, wrap_z, wrap_y, wrap_x))
    for (int64_t n = g.n0; n < g.n1; ++n)
      for (int64_t i = g.i0; i < g.i1; ++i)
        for (int64_t j = g.j0; j < g.j1; ++j) {
          const int64_t p = (n * H + i) * W + j;
          double s = 0;
          for (const Offsets& t : g.terms) {
            const double d = second_difference(at(p + t.a), v[p], at(p + t.b));
            s += d * d;
          }
          rel[size_t(p)] = s;
        }

  // edges in scikit-image's order: along x, x's wrap, along y, y's wrap, along z, z's wrap
  std::vector<Edge> edges;
  edges.reserve(size_t(3 * V));
  auto add = [&](int64_t p, int64_t q) {
    if (m[p] == 0 && m[q] == 0) edges.push_back({rel[size_t(p)] + rel[size_t(q)], p, q, edge_periods(v[p], v[q])});
  };
  for (int64_t n = 0; n < D; ++n)
    for (int64_t i = 0; i < H; ++i)
      for (int64_t j = 0; j + 1 < W; ++j) add((n * H + i) * W + j, (n * H + i) * W + j + 1);
  if (wrap_x)
    for (int64_t n = 0; n < D; ++n)
      for (int64_t i = 0; i < H; ++i) add((n * H + i) * W + W - 1, (n * H + i) * W);
  for (int64_t n = 0; n < D; ++n)
    for (int64_t i = 0; i + 1 < H; ++i)
      for (int64_t j = 0; j < W; ++j) add((n * H + i) * W + j, (n * H + i + 1) * W + j);
  if (wrap_y)
    for (int64_t n = 0; n < D; ++n)
      for (int64_t j = 0; j < W; ++j) add(n * F + (H - 1) * W + j, n * F + j);
  for (int64_t p = 0; p + F < V; ++p) add(p, p + F);
  if (wrap_z)
    for (int64_t p = V - F; p < V; ++p) add(p, p - (V - F));
  for (const Edge& e : edges)
    if (std::isnan(e.reliab))
      throw ValueError("unwrap_phase: non-finite phase values give NaN reliabilities, on which the edge sort "
                       "never ends (scikit-image's does not return)");
  std::vector<Key> order(edges.size());
  for (size_t k = 0; k < edges.size(); ++k) order[k] = {edges[k].reliab, int64_t(k)};
  sort_edges(order);

  // groups as linked lists: each pixel's head, the next pixel of its group, a head's last pixel and size
  std::vector<int64_t> head(static_cast<size_t>(V)), next(static_cast<size_t>(V), -1), last(static_cast<size_t>(V)),
      count(static_cast<size_t>(V), 1);
  std::vector<int> inc(static_cast<size_t>(V), 0);
  for (int64_t p = 0; p < V; ++p) head[size_t(p)] = last[size_t(p)] = p;
  auto alone = [&](int64_t p) { return next[size_t(p)] < 0 && head[size_t(p)] == p; };
  for (const Key& key : order) {
    const Edge& e = edges[size_t(key.edge)];
    const int64_t p1 = e.p1, p2 = e.p2, h1 = head[size_t(p1)], h2 = head[size_t(p2)];
    if (h1 == h2) continue;
    if (alone(p2)) {
      next[size_t(last[size_t(h1)])] = p2;
      last[size_t(h1)] = p2;
      ++count[size_t(h1)];
      head[size_t(p2)] = h1;
      inc[size_t(p2)] = inc[size_t(p1)] - e.increment;
    } else if (alone(p1)) {
      next[size_t(last[size_t(h2)])] = p1;
      last[size_t(h2)] = p1;
      ++count[size_t(h2)];
      head[size_t(p1)] = h2;
      inc[size_t(p1)] = inc[size_t(p2)] + e.increment;
    } else {
      // the smaller group (the first's on a tie) joins the other, its periods shifted to continue it
      const bool first_larger = count[size_t(h1)] > count[size_t(h2)];
      const int64_t keep = first_larger ? h1 : h2, join = first_larger ? h2 : h1;
      const int shift = first_larger ? inc[size_t(p1)] - e.increment - inc[size_t(p2)]
                                     : inc[size_t(p2)] + e.increment - inc[size_t(p1)];
      next[size_t(last[size_t(keep)])] = join;
      last[size_t(keep)] = last[size_t(join)];
      count[size_t(keep)] += count[size_t(join)];
      for (int64_t q = join; q >= 0; q = next[size_t(q)]) {
        head[size_t(q)] = keep;
        inc[size_t(q)] += shift;
      }
    }
  }

  double lowest = DBL_MAX;
  for (int64_t p = 0; p < V; ++p) {
    u[p] = v[p] + 2 * std::numbers::pi * double(inc[size_t(p)]);
    if (m[p] == 0 && u[p] < lowest) lowest = u[p];
  }
  for (int64_t p = 0; p < V; ++p)
    if (m[p] != 0) u[p] = lowest;
}

}  // namespace ndimg::restoration
