// Felzenszwalb's merge on the CPU: one pass of union-find over the sorted edges (inherently sequential:
// each merge decides the next). The forest keeps every component's smallest pixel as its root, as
// skimage's join_trees does, so sizes and internal costs live at the same indices as there.
#include <string>
#include <vector>

#include "segmentation/felzenszwalb.hpp"

namespace ndimg::segmentation {
namespace {

struct Forest {
  std::vector<int64_t> parent;
  explicit Forest(int64_t n) : parent(size_t(n)) {
    for (int64_t i = 0; i < n; ++i) parent[size_t(i)] = i;
  }
  int64_t find(int64_t n) {
    int64_t r = n;
    while (parent[size_t(r)] != r) r = parent[size_t(r)];
    while (parent[size_t(n)] != r) {   // path compression leaves every root where it was
      const int64_t next = parent[size_t(n)];
      parent[size_t(n)] = r;
      n = next;
    }
    return r;
  }
  // joins the components of roots a and b under the smaller; returns it
  int64_t join(int64_t a, int64_t b) {
    const int64_t r = a < b ? a : b;
    parent[size_t(a)] = r;
    parent[size_t(b)] = r;
    return r;
  }
};

}  // namespace

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
  // the two pixels of edge e in skimage's edge order
  auto ends = [&](int64_t e, int64_t& a, int64_t& b) {
    if (e < nR) {
      a = e / (W - 1) * W + e % (W - 1);
      b = a + 1;
      return;
    }
    e -= nR;
    if (e < nD) {
      a = e;
      b = e + W;
      return;
    }
    e -= nD;
    const bool down_right = e < nX;
    if (!down_right) e -= nX;
    const int64_t p = e / (W - 1) * W + e % (W - 1);
    if (down_right) {
      a = p;
      b = p + W + 1;
    } else {
      a = p + 1;
      b = p + W;
    }
  };
  const int64_t n = H * W;
  Forest forest(n);
  std::vector<int64_t> size(size_t(n), 1);
  std::vector<double> cint(size_t(n), 0.0);
  for (int64_t i = 0; i < E; ++i) {
    int64_t a, b;
    ends(ord[i], a, b);
    const int64_t s0 = forest.find(a), s1 = forest.find(b);
    if (s0 == s1) continue;
    const float in0 = float(cint[size_t(s0)] + scale / double(size[size_t(s0)]));
    const float in1 = float(cint[size_t(s1)] + scale / double(size[size_t(s1)]));
    const double c = cost[ord[i]];
    if (c < double(in1 < in0 ? in1 : in0)) {
      const int64_t r = forest.join(s0, s1);
      size[size_t(r)] = size[size_t(s0)] + size[size_t(s1)];
      cint[size_t(r)] = c;
    }
  }
  for (int64_t i = 0; i < E; ++i) {
    int64_t a, b;
    ends(ord[i], a, b);
    const int64_t s0 = forest.find(a), s1 = forest.find(b);
    if (s0 == s1) continue;
    if (size[size_t(s0)] < min_size || size[size_t(s1)] < min_size) {
      const int64_t r = forest.join(s0, s1);
      size[size_t(r)] = size[size_t(s0)] + size[size_t(s1)];
    }
  }
  // numpy.unique(roots, return_inverse=True): a root is its component's first pixel, so numbering the
  // roots as they come in raster order numbers them in increasing order
  int64_t* out = labels.ptr<int64_t>();
  int64_t next = 0;
  for (int64_t p = 0; p < n; ++p) {
    const int64_t r = forest.find(p);
    out[p] = r == p ? next++ : out[r];
  }
}

}  // namespace ndimg::segmentation
