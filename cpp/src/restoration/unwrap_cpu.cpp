// Reliability-sorted phase unwrapping (Herraez, Burton, Lalor and Gdeisat) on the CPU, in the order of
// scikit-image's 2-D and 3-D unwrappers so that results agree: every pixel's reliability starts as rand(),
// then the sum of squared wrapped second differences over the interior (and over the borders an axis wraps
// around, with the neighbour offsets scikit-image uses there), edges between unmasked neighbours in its
// creation order, sorted in the order of its quicksort variant (a radix sort where reliabilities are
// distinct; where some tie, the same quicksort, which is not stable, so that ties keep its order), and groups
// merged smaller into larger along the sorted edges. The host steps the CUDA schedule shares are here.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numbers>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "morphology/maxtree_sort.hpp"
#include "ndimg/error.hpp"
#include "ndimg/parallel.hpp"
#include "ndimg/restoration.hpp"
#include "unwrap.hpp"

namespace ndimg::restoration {

namespace unwrap_math {

namespace {

// a region from its box and its terms
Region region(Box box, std::initializer_list<Offsets> terms) {
  Region g{box, int(terms.size()), {}};
  int t = 0;
  for (const Offsets& o : terms) g.terms[t++] = o;
  return g;
}

}  // namespace

std::vector<Region> reliability_regions(int64_t D, int64_t H, int64_t W, bool is3d, bool wz, bool wy, bool wx) {
  const int64_t F = H * W, V = D * F;
  std::vector<Region> r;
  if (!is3d) {
    const int64_t L = (H - 1) * W;   // from the first row to the last
    r.push_back(region({0, 1, 1, H - 1, 1, W - 1}, {{-1, 1}, {-W, W}, {-W - 1, W + 1}, {-W + 1, W - 1}}));
    if (wx) {
      r.push_back(region({0, 1, 1, H - 1, 0, 1}, {{W - 1, 1}, {-W, W}, {-1, W + 1}, {-W + 1, 2 * W - 1}}));
      r.push_back(region({0, 1, 1, H - 1, W - 1, W}, {{-1, -W + 1}, {-W, W}, {-W - 1, 1}, {-2 * W - 1, W - 1}}));
    }
    if (wy) {
      r.push_back(region({0, 1, 0, 1, 1, W - 1}, {{-1, 1}, {L, W}, {L - 1, W + 1}, {L + 1, W - 1}}));
      r.push_back(region({0, 1, H - 1, H, 1, W - 1}, {{-1, 1}, {-W, -L}, {-W - 1, -L + 1}, {-W + 1, -L - 1}}));
    }
    return r;
  }
  // terms H, V, N, D1..D10 of scikit-image's 3-D reliability, per region
  r.push_back(region({1, D - 1, 1, H - 1, 1, W - 1},
                     {{-1, 1}, {-W, W}, {-F, F}, {-W - 1, W + 1},
                      {-W + 1, W - 1}, {-F - W - 1, F + W + 1}, {-F - W, F + W}, {-F - W + 1, F + W - 1},
                      {-F - 1, F + 1}, {-F + 1, F - 1}, {-F + W - 1, F - W + 1}, {-F + W, F - W},
                      {-F + W + 1, F - W - 1}}));
  if (wx) {
    r.push_back(region({1, D - 1, 1, H - 1, 0, 1},
                       {{W - 1, 1}, {-W, W}, {-F, F}, {-1, W + 1},
                        {-W + 1, 2 * W - 1}, {-F - 1, F + W + 1}, {-F - W, F + W}, {-F - W + 1, F + 2 * W - 1},
                        {-F + W - 1, F + 1}, {-F + 1, F + W - 1}, {-F + 2 * W - 1, F - W + 1}, {-F + W, F - W},
                        {-F + W + 1, F - 1}}));
    r.push_back(region({1, D - 1, 1, H - 1, W - 1, W},
                       {{-W + 1, -1}, {-W, W}, {-F, F}, {-W - 1, 1},
                        {W - 1, -2 * W + 1}, {-F - W - 1, F + 1}, {-F - 2 * W + 1, F + W - 1}, {-F - 1, F - W + 1},
                        {-F - W + 1, F - 1}, {-F - W, F + W}, {-F + W - 1, F - 2 * W + 1}, {-F + W, F - W},
                        {-F + 1, F - W - 1}}));
  }
  if (wy) {
    r.push_back(region({1, D - 1, 0, 1, 1, W - 1},
                       {{-1, 1}, {F - W, W}, {-F, F}, {F - W - 1, W + 1},
                        {F - W + 1, W - 1}, {-W - 1, F + W + 1}, {-W, F + W}, {-W + 1, F + W - 1},
                        {-F - 1, F + 1}, {-F + 1, F - 1}, {-F + W - 1, 2 * F - W + 1}, {-F + W, 2 * F - W},
                        {-F + W + 1, 2 * F - W - 1}}));
    r.push_back(region({1, D - 1, H - 1, H, 1, W - 1},
                       {{1, -1}, {-W, -F + W}, {-F, F}, {-W - 1, -F + W + 1},
                        {-W + 1, -F + W - 1}, {-F - W - 1, W + 1}, {-F - W + 1, W - 1}, {-F - W, W},
                        {-F - 1, F + 1}, {-F + 1, F - 1}, {-2 * F + W - 1, F - W + 1}, {-2 * F + W, F - W},
                        {-2 * F + W + 1, F - W - 1}}));
  }
  if (wz) {
    const int64_t B = V - F;   // from the first frame to the last
    r.push_back(region({0, 1, 1, H - 1, 1, W - 1},
                       {{-1, 1}, {-W, W}, {F, B}, {-W - 1, W + 1},
                        {-W + 1, W - 1}, {B - W - 1, F + W + 1}, {B - W, F + W}, {B - W + 1, F + W - 1},
                        {B - 1, F + 1}, {B + 1, F - 1}, {B + W - 1, F - W + 1}, {B + W, F - W},
                        {B + W + 1, F - W - 1}}));
    r.push_back(region({D - 1, D, 1, H - 1, 1, W - 1},
                       {{1, -1}, {-W, W}, {-F, -B}, {-W - 1, W + 1},
                        {-W + 1, W - 1}, {-F - W - 1, -B + W + 1}, {-F - W + 1, -B + W - 1}, {-F - W, -B + W},
                        {-F - 1, -B + 1}, {-F + 1, -B - 1}, {-F + W - 1, -B - W + 1}, {-F + W, -B - W},
                        {-F + W + 1, -B - W - 1}}));
  }
  return r;
}

std::vector<EdgeBlock> edge_blocks(int64_t D, int64_t H, int64_t W, bool wz, bool wy, bool wx) {
  const int64_t F = H * W, V = D * F;
  std::vector<EdgeBlock> b{{{0, D, 0, H, 0, W - 1}, 1}};
  if (wx) b.push_back({{0, D, 0, H, W - 1, W}, -(W - 1)});
  b.push_back({{0, D, 0, H - 1, 0, W}, W});
  if (wy) b.push_back({{0, D, H - 1, H, 0, W}, -(H - 1) * W});
  b.push_back({{0, D - 1, 0, H, 0, W}, F});
  if (wz) b.push_back({{D - 1, D, 0, H, 0, W}, -(V - F)});
  return b;
}

namespace {

// One step of scikit-image's quicksort on [left, right]: the pivot from the sorted first, middle and last
// reliabilities (or the larger of the first two distinct ones), a partition into < pivot and >= pivot.
// Returns the first index of the second part, or -1 where the range needs no sorting.
int64_t partition_step(std::vector<EdgeKey>& e, int64_t left, int64_t right) {
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

void sort_range(std::vector<EdgeKey>& e, int64_t left, int64_t right) {
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

std::mutex rand_lock;   // C's generator is the process's: one unwrap draws its sequence at a time

}  // namespace

// The sort's ranges are disjoint once partitioned: the first partitions split the work, the thread pool
// sorts the parts (the same order as one thread gives).
void sort_edges(std::vector<EdgeKey>& e) {
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

namespace {

// Whether two of a sample of the edges have equal reliabilities: many ties (flat or quantized phases) show
// in it, and the quicksort then runs without a radix sort first.
bool sample_ties(const std::vector<EdgeKey>& edges) {
  const size_t step = std::max<size_t>(1, edges.size() / 4096);
  std::vector<double> sample;
  for (size_t i = 0; i < edges.size(); i += step) sample.push_back(edges[i].reliab);
  std::sort(sample.begin(), sample.end());
  return std::adjacent_find(sample.begin(), sample.end()) != sample.end();
}

// The edges' codes in merge order. scikit-image's quicksort leaves distinct reliabilities in ascending order,
// which a radix sort on the engine's threads finds faster; only where some tie does the quicksort itself
// decide their order.
std::vector<int64_t> merge_order(std::vector<EdgeKey>& edges) {
  const int64_t n = int64_t(edges.size());
  std::vector<int64_t> order(static_cast<size_t>(n));
  bool tie = sample_ties(edges);
  if (!tie) {
    std::vector<uint64_t> keys(static_cast<size_t>(n));
    parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        keys[size_t(i)] = morphology::sort_key(edges[size_t(i)].reliab);
        order[size_t(i)] = edges[size_t(i)].code;   // the codes ride along the sort
      }
    });
    morphology::radix_argsort(keys, order.data(), /*identity=*/false);
    parallel_for(n - 1, 1 << 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        if (keys[size_t(i)] == keys[size_t(i + 1)]) {
          __atomic_store_n(&tie, true, __ATOMIC_RELAXED);
          return;
        }
    });
  }
  if (tie) {
    sort_edges(edges);
    parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) order[size_t(i)] = edges[size_t(i)].code;
    });
  }
  return order;
}

}  // namespace

void draw_reliabilities(double* rel, int64_t V, bool reseed) {
  std::lock_guard<std::mutex> hold(rand_lock);
  if (reseed) std::srand(0);
  for (int64_t p = 0; p < V; ++p) rel[p] = double(std::rand());
}

void refuse_nan_reliabilities() {
  throw ValueError("unwrap_phase: non-finite phase values give NaN reliabilities, on which the edge sort never "
                   "ends (scikit-image's does not return)");
}

}  // namespace unwrap_math

void unwrap_phase(const View& image, const View& mask, const View& out, bool wrap_z, bool wrap_y, bool wrap_x,
                  bool reseed, StreamHandle stream) {
  const char* op = "unwrap_phase";
  if (image.dtype != DType::F64 || out.dtype != DType::F64 || mask.dtype != DType::U8)
    throw TypeError("unwrap_phase: float64 image and output, uint8 mask expected");
  if (image.ndim != 2 && image.ndim != 3) throw ValueError("unwrap_phase: 2-D or 3-D images only");
  require_same_shape(image, out, op);
  require_same_shape(image, mask, op);
  require_same_device(image, out, op);
  require_same_device(image, mask, op);
  if (!image.c_contiguous() || !mask.c_contiguous() || !out.c_contiguous())
    throw ValueError("unwrap_phase: C-contiguous arrays only");
  if (image.size() == 0) return;
  if (image.device == Device::CUDA)
    NDIMG_ON_CUDA(op, return unwrap_phase_cuda(image, mask, out, wrap_z, wrap_y, wrap_x, reseed, stream));
  using namespace unwrap_math;
  const bool is3d = image.ndim == 3;
  const int64_t D = is3d ? image.shape[0] : 1, H = image.shape[image.ndim - 2], W = image.shape[image.ndim - 1];
  const int64_t V = D * H * W;
  const double* v = image.ptr<double>();
  const uint8_t* m = mask.ptr<uint8_t>();
  double* u = out.ptr<double>();

  std::vector<double> rel(static_cast<size_t>(V));
  draw_reliabilities(rel.data(), V, reseed);
  // then region by region (a later one overwrites an earlier one where they meet), rows of a region in parallel
  for (const Region& g : reliability_regions(D, H, W, is3d, wrap_z, wrap_y, wrap_x)) {
    const int64_t lines = g.box.size() / std::max<int64_t>(1, g.box.j1 - g.box.j0);
    parallel_for(lines, 8, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t row = g.box.pixel(r * (g.box.j1 - g.box.j0), H, W);
        for (int64_t p = row; p < row + g.box.j1 - g.box.j0; ++p) rel[size_t(p)] = reliability(v, V, p, g);
      }
    });
  }

  // edges between unmasked neighbours, block by block in scikit-image's creation order: each row of a
  // block's edges counted, then filled at its place, in parallel
  const std::vector<EdgeBlock> blocks = edge_blocks(D, H, W, wrap_z, wrap_y, wrap_x);
  struct Row {
    int64_t first, length;
    int block;
  };
  std::vector<Row> rows;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const Box& b = blocks[k].box;
    const int64_t length = b.j1 - b.j0, count = b.size() / std::max<int64_t>(1, length);
    for (int64_t r = 0; r < count; ++r) rows.push_back({b.pixel(r * length, H, W), length, int(k)});
  }
  std::vector<int64_t> start(rows.size() + 1, 0);
  auto unmasked = [&](int64_t p, int64_t q) { return m[p] == 0 && m[q] == 0; };
  parallel_for(int64_t(rows.size()), 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const Row& row = rows[size_t(r)];
      const int64_t delta = blocks[size_t(row.block)].delta;
      int64_t c = 0;
      for (int64_t p = row.first; p < row.first + row.length; ++p) c += unmasked(p, p + delta);
      start[size_t(r) + 1] = c;
    }
  });
  for (size_t r = 0; r < rows.size(); ++r) start[r + 1] += start[r];
  std::vector<EdgeKey> edges(static_cast<size_t>(start.back()));
  bool nan = false;
  parallel_for(int64_t(rows.size()), 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const Row& row = rows[size_t(r)];
      const int64_t delta = blocks[size_t(row.block)].delta;
      EdgeKey* out = edges.data() + start[size_t(r)];
      for (int64_t p = row.first; p < row.first + row.length; ++p) {
        const int64_t q = p + delta;
        if (!unmasked(p, q)) continue;
        const double reliab = rel[size_t(p)] + rel[size_t(q)];
        if (std::isnan(reliab)) __atomic_store_n(&nan, true, __ATOMIC_RELAXED);
        *out++ = {reliab, edge_code(p, row.block, edge_periods(v[p], v[q]))};
      }
    }
  });
  if (nan) refuse_nan_reliabilities();

  const std::vector<int64_t> order = merge_order(edges);
  const std::vector<int32_t> inc = merge_groups(V, order.size(), [&](size_t k) { return order[k]; }, blocks);

  double lowest = DBL_MAX;
  for (int64_t p = 0; p < V; ++p) {
    u[p] = v[p] + 2 * std::numbers::pi * double(inc[size_t(p)]);
    if (m[p] == 0 && u[p] < lowest) lowest = u[p];
  }
  for (int64_t p = 0; p < V; ++p)
    if (m[p] != 0) u[p] = lowest;
}

}  // namespace ndimg::restoration
