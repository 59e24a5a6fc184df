// Felzenszwalb on the CPU: the edge weights per row over the thread pool; the merge (both engines') one pass
// of union-find over the sorted edges (inherently sequential: each merge decides the next). The forest keeps
// every component's smallest pixel as its root, as skimage's join_trees does, so sizes and internal costs
// live at the same indices as there.
#include <string>
#include <vector>

#include "ndimg/parallel.hpp"
#include "segmentation/felzenszwalb.hpp"

namespace ndimg::segmentation {
namespace {

// I: the pixel index type (int32 where the pixels fit: half the memory the random accesses sweep).
template <class I>
struct Forest {
  std::vector<I> parent;
  explicit Forest(I n) : parent(static_cast<size_t>(n)) {
    for (I i = 0; i < n; ++i) parent[size_t(i)] = i;
  }
  I find(I n) {
    I r = n;
    while (parent[size_t(r)] != r) r = parent[size_t(r)];
    while (parent[size_t(n)] != r) {   // path compression leaves every root where it was
      const I next = parent[size_t(n)];
      parent[size_t(n)] = r;
      n = next;
    }
    return r;
  }
  // joins the components of roots a and b under the smaller; returns it
  I join(I a, I b) {
    const I r = a < b ? a : b;
    parent[size_t(a)] = r;
    parent[size_t(b)] = r;
    return r;
  }
};

template <class I>
void merge(const double* cost, const int64_t* ord, int64_t H_, int64_t W_, double scale, int64_t min_size,
           int64_t* out) {
  const I H = I(H_), W = I(W_);
  const auto grid = fz_math::Grid<I>::of(H, W);
  const int64_t E = grid.edges();
  const I n = H * W;
  Forest<I> forest(n);
  std::vector<I> size(static_cast<size_t>(n), I(1));
  std::vector<double> cint(static_cast<size_t>(n), 0.0);
  constexpr int64_t ahead = 16;   // the sorted edges hit the forest at random: fetch an edge's ends early
  auto prefetch = [&](int64_t i) {
    if (i >= E) return;
    I a, b;
    grid.ends(I(ord[i]), a, b);
    __builtin_prefetch(&forest.parent[size_t(a)]);
    __builtin_prefetch(&forest.parent[size_t(b)]);
    __builtin_prefetch(&cost[ord[i]]);
  };
  for (int64_t i = 0; i < E; ++i) {
    prefetch(i + ahead);
    I a, b;
    grid.ends(I(ord[i]), a, b);
    const I s0 = forest.find(a), s1 = forest.find(b);
    if (s0 == s1) continue;
    const float in0 = float(cint[size_t(s0)] + scale / double(size[size_t(s0)]));
    const float in1 = float(cint[size_t(s1)] + scale / double(size[size_t(s1)]));
    const double c = cost[ord[i]];
    if (c < double(in1 < in0 ? in1 : in0)) {
      const I r = forest.join(s0, s1);
      size[size_t(r)] = size[size_t(s0)] + size[size_t(s1)];
      cint[size_t(r)] = c;
    }
  }
  // the min_size pass: sizes only grow, so once no component is below min_size nothing more can merge
  int64_t small = 0;
  for (I p = 0; p < n; ++p) small += forest.parent[size_t(p)] == p && size[size_t(p)] < min_size;
  for (int64_t i = 0; i < E && small > 0; ++i) {
    prefetch(i + ahead);
    I a, b;
    grid.ends(I(ord[i]), a, b);
    const I s0 = forest.find(a), s1 = forest.find(b);
    if (s0 == s1) continue;
    const bool small0 = size[size_t(s0)] < min_size, small1 = size[size_t(s1)] < min_size;
    if (small0 || small1) {
      const I r = forest.join(s0, s1);
      size[size_t(r)] = size[size_t(s0)] + size[size_t(s1)];
      small += int64_t(size[size_t(r)] < min_size) - small0 - small1;
    }
  }
  // numpy.unique(roots, return_inverse=True): a root is its component's first pixel, so numbering the
  // roots as they come in raster order numbers them in increasing order
  int64_t next = 0;
  for (I p = 0; p < n; ++p) {
    const I r = forest.find(p);
    out[p] = r == p ? next++ : out[r];
  }
}

}  // namespace

void felzenszwalb_costs_cpu(const View& image, const View& costs) {
  const int64_t H = image.shape[0], W = image.shape[1], C = image.shape[2];
  const int64_t nR = H * (W - 1), nD = (H - 1) * W, nX = (H - 1) * (W - 1);
  const double* im = image.ptr<double>();
  double* out = costs.ptr<double>();
  auto weight = [&](int64_t a, int64_t b) { return fz_math::weight(im, C, a, b); };
  // four blocks of edges, each in C order over its grid: (later pixel, earlier pixel) as skimage subtracts
  parallel_for(H, 16, [&](int64_t y0, int64_t y1) {
    for (int64_t y = y0; y < y1; ++y) {
      for (int64_t x = 0; x + 1 < W; ++x) out[y * (W - 1) + x] = weight(y * W + x + 1, y * W + x);
      if (y + 1 >= H) continue;
      for (int64_t x = 0; x < W; ++x) out[nR + y * W + x] = weight((y + 1) * W + x, y * W + x);
      for (int64_t x = 0; x + 1 < W; ++x) {
        out[nR + nD + y * (W - 1) + x] = weight((y + 1) * W + x + 1, y * W + x);
        out[nR + nD + nX + y * (W - 1) + x] = weight((y + 1) * W + x, y * W + x + 1);
      }
    }
  });
}

void felzenszwalb_merge(const View& costs, const View& order, double scale, int64_t min_size, const View& labels) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw ValueError(std::string("felzenszwalb: ") + what);
  };
  require(labels.dtype == DType::I64 && labels.ndim == 2 && labels.c_contiguous() && labels.device == Device::CPU,
          "labels must be a C-contiguous (H, W) int64 host array");
  const int64_t H = labels.shape[0], W = labels.shape[1];
  const int64_t nR = H * (W - 1), nD = (H - 1) * W, nX = (H - 1) * (W - 1);
  const int64_t E = H == 0 || W == 0 ? 0 : nR + nD + 2 * nX;
  require(costs.dtype == DType::F64 && costs.ndim == 1 && costs.shape[0] == E && (E == 0 || costs.c_contiguous()) &&
              order.dtype == DType::I64 && order.ndim == 1 && order.shape[0] == E && (E == 0 || order.c_contiguous()) &&
              costs.device == Device::CPU && order.device == Device::CPU,
          "costs and order must be contiguous 1-D float64 and int64 host arrays, one per edge of the grid");
  const double* cost = costs.ptr<double>();
  const int64_t* ord = order.ptr<int64_t>();
  for (int64_t e = 0; e < E; ++e)
    require(ord[e] >= 0 && ord[e] < E, "order must index the edges");
  if (H == 0 || W == 0) return;
  // int32 indices while every edge index fits (sizes reach at most the pixel count)
  if (E < (int64_t(1) << 31))
    merge<int32_t>(cost, ord, H, W, scale, min_size, labels.ptr<int64_t>());
  else
    merge<int64_t>(cost, ord, H, W, scale, min_size, labels.ptr<int64_t>());
}

}  // namespace ndimg::segmentation
