// The max-tree on the host: a parallel stable radix argsort (the pixel order), then Berger's union-find
// (serial: each union depends on the ones before), canonicalisation, and the attribute passes, each one
// linear walk over the order as scikit-image's.
#include "morphology/maxtree.hpp"
#include "morphology/maxtree_sort.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::morphology {
namespace {

constexpr int64_t kAhead = 16;  // prefetch distance of the walks in value order

// scikit-image's border mask: a pixel with a coordinate 0 or shape - 1 along some axis.
std::vector<uint8_t> border_flags(const View& v) {
  const int64_t n = v.size();
  std::vector<uint8_t> border(n, 0);
  parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t r = i;
      uint8_t on = 0;
      for (int d = v.ndim - 1; d >= 0; --d) {
        const int64_t c = r % v.shape[d];
        r /= v.shape[d];
        on |= uint8_t(c == 0 || c == v.shape[d] - 1);
      }
      border[i] = on;
    }
  });
  return border;
}

template <class T>
void build_tree(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points, int64_t* parent,
                int64_t* order) {
  const T* img = image.ptr<T>();
  const int64_t n = image.size();
  const int nd = image.ndim;
  const size_t k = offsets.size();
  argsort_stable(img, n, order);
  const std::vector<uint8_t> border = border_flags(image);
  std::vector<int64_t> zpar(n, -1);
  std::fill(parent, parent + n, int64_t(-1));
  int64_t coord[kMaxDim];
  // The walks below jump around the image in value order: each prefetches the pixels it reaches kAhead
  // steps later (memory latency, not arithmetic, bounds them).
  for (int64_t t = n - 1; t >= 0; --t) {
    if (t >= kAhead) {
      const int64_t a = order[t - kAhead];
      for (size_t j = 0; j < k; ++j) {
        const int64_t q = a + offsets[j];
        if (q >= 0 && q < n) __builtin_prefetch(&zpar[q]);
      }
    }
    const int64_t p = order[t];
    parent[p] = p;
    zpar[p] = p;
    if (border[p]) {
      int64_t r = p;
      for (int d = nd - 1; d >= 0; --d) {
        coord[d] = r % image.shape[d];
        r /= image.shape[d];
      }
    }
    for (size_t j = 0; j < k; ++j) {
      const int64_t q = p + offsets[j];
      if (border[p]) {
        bool inside = true;
        for (int d = 0; d < nd && inside; ++d) {
          const int64_t c = coord[d] + points[j * nd + d];
          inside = c >= 0 && c < image.shape[d];
        }
        if (!inside) continue;
      }
      // zpar < 0: not reached yet; a footprint wider than the border is skipped as outside
      if (q < 0 || q >= n || zpar[q] < 0) continue;
      int64_t root = q;  // find with path halving
      while (zpar[root] != root) {
        zpar[root] = zpar[zpar[root]];
        root = zpar[root];
      }
      if (root != p) {
        zpar[root] = p;
        parent[root] = p;
      }
    }
  }
  for (int64_t t = 0; t < n; ++t) {  // canonical parents, in scikit-image's order
    if (t + 2 * kAhead < n) {
      const int64_t a = order[t + 2 * kAhead];
      __builtin_prefetch(&parent[a]);
      __builtin_prefetch(&img[a]);
    }
    if (t + kAhead < n) __builtin_prefetch(&img[parent[order[t + kAhead]]]);
    const int64_t p = order[t];
    const int64_t q = parent[p];
    if (img[q] == img[parent[q]]) parent[p] = parent[q];
  }
}

void check_tree(const View& image, const View& parent, const View& traverser, const char* op) {
  const int64_t n = image.size();
  if (parent.dtype != DType::I64 || traverser.dtype != DType::I64)
    throw ValueError(std::string(op) + ": parent and tree_traverser must be int64");
  if (parent.size() != n || traverser.size() != n)
    throw ValueError(std::string(op) + ": parent and tree_traverser must have one element per pixel");
  if (!parent.c_contiguous() || !traverser.c_contiguous() || !image.c_contiguous())
    throw ValueError(std::string(op) + ": arrays must be C-contiguous");
  const int64_t* par = parent.ptr<int64_t>();
  const int64_t* ord = traverser.ptr<int64_t>();
  bool ok = true;
  for (int64_t i = 0; i < n && ok; ++i) ok = par[i] >= 0 && par[i] < n && ord[i] >= 0 && ord[i] < n;
  if (!ok) throw ValueError(std::string(op) + ": parent and tree_traverser must hold pixel indices");
}

// Per-node attribute, accumulated from the leaves to the root (scikit-image's float64 values).
std::vector<double> attribute_of(const View& image, const int64_t* parent, const int64_t* order, int attribute) {
  const int64_t n = image.size();
  const int64_t root = order[0];
  std::vector<double> attr(n, 1.0);
  if (attribute == 0) {
    for (int64_t t = n - 1; t >= 0; --t) {
      if (t >= 2 * kAhead) __builtin_prefetch(&parent[order[t - 2 * kAhead]]);
      if (t >= kAhead) {
        const int64_t a = order[t - kAhead];
        __builtin_prefetch(&attr[a]);
        __builtin_prefetch(&attr[parent[a]]);
      }
      const int64_t p = order[t];
      if (p != root) attr[parent[p]] += attr[p];
    }
    return attr;
  }
  const int nd = image.ndim;
  std::vector<int64_t> lo(size_t(n) * nd), hi(size_t(n) * nd);
  parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t r = i;
      for (int d = nd - 1; d >= 0; --d) {
        lo[size_t(i) * nd + d] = hi[size_t(i) * nd + d] = r % image.shape[d];
        r /= image.shape[d];
      }
    }
  });
  for (int64_t t = n - 1; t >= 0; --t) {
    const int64_t p = order[t];
    if (p == root) continue;
    const int64_t q = parent[p];
    int64_t ext = 0;
    for (int d = 0; d < nd; ++d) {
      int64_t& l = lo[size_t(q) * nd + d];
      int64_t& h = hi[size_t(q) * nd + d];
      l = std::min(l, lo[size_t(p) * nd + d]);
      h = std::max(h, hi[size_t(p) * nd + d]);
      ext = std::max(ext, h - l);
    }
    attr[q] = double(ext) + 1.0;
  }
  return attr;
}

}  // namespace

void max_tree(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
              const View& parent, const View& traverser) {
  const char* op = "max_tree";
  if (image.device != Device::CPU || parent.device != Device::CPU || traverser.device != Device::CPU)
    throw ValueError("max_tree: host arrays only");
  if (image.ndim < 1) throw ValueError("max_tree: 0-d input");
  if (points.size() != offsets.size() * size_t(image.ndim)) throw ValueError("max_tree: one point per offset");
  if (parent.dtype != DType::I64 || traverser.dtype != DType::I64 || parent.size() != image.size() ||
      traverser.size() != image.size() || !parent.c_contiguous() || !traverser.c_contiguous() ||
      !image.c_contiguous())
    throw ValueError(std::string(op) + ": C-contiguous int64 outputs of the image's size expected");
  if (image.size() == 0) return;
  dispatch_dtype(image.dtype, [&]<class T>() {
    build_tree<T>(image, offsets, points, parent.ptr<int64_t>(), traverser.ptr<int64_t>());
  });
}

void max_tree_filter(const View& image, const View& parent, const View& traverser, int attribute, double threshold,
                     const View& out) {
  const char* op = "max_tree_filter";
  check_tree(image, parent, traverser, op);
  if (out.dtype != image.dtype || out.size() != image.size() || !out.c_contiguous())
    throw ValueError("max_tree_filter: output must be C-contiguous, of the image's dtype and size");
  if (attribute != 0 && attribute != 1) throw ValueError("max_tree_filter: attribute is 0 (area) or 1 (diameter)");
  const int64_t n = image.size();
  if (n == 0) return;
  const int64_t* par = parent.ptr<int64_t>();
  const int64_t* ord = traverser.ptr<int64_t>();
  const std::vector<double> attr = attribute_of(image, par, ord, attribute);
  dispatch_dtype(image.dtype, [&]<class T>() {
    const T* img = image.ptr<T>();
    T* o = out.ptr<T>();
    const int64_t root = ord[0];
    o[root] = attr[root] < threshold ? T(0) : img[root];
    for (int64_t t = 0; t < n; ++t) {
      if (t + 2 * kAhead < n) {
        const int64_t a = ord[t + 2 * kAhead];
        __builtin_prefetch(&par[a]);
        __builtin_prefetch(&img[a]);
        __builtin_prefetch(&attr[a]);
      }
      if (t + kAhead < n) {
        const int64_t b = par[ord[t + kAhead]];
        __builtin_prefetch(&o[b]);
        __builtin_prefetch(&img[b]);
      }
      const int64_t p = ord[t];
      if (p == root) continue;
      const int64_t q = par[p];
      o[p] = (img[p] == img[q] || attr[p] < threshold) ? o[q] : img[p];
    }
  });
}

void max_tree_local_maxima(const View& image, const View& parent, const View& traverser, const View& out) {
  check_tree(image, parent, traverser, "max_tree_local_maxima");
  if (out.dtype != DType::U64 || out.size() != image.size() || !out.c_contiguous())
    throw ValueError("max_tree_local_maxima: output must be C-contiguous uint64 of the image's size");
  const int64_t n = image.size();
  if (n == 0) return;
  const int64_t* par = parent.ptr<int64_t>();
  const int64_t* ord = traverser.ptr<int64_t>();
  dispatch_dtype(image.dtype, [&]<class T>() {
    const T* img = image.ptr<T>();
    uint64_t* o = out.ptr<uint64_t>();
    std::fill(o, o + n, uint64_t(1));
    const int64_t root = ord[0];
    uint64_t label = 1;
    for (int64_t t = n - 1; t >= 0; --t) {  // a canonical node with a canonical child is no leaf
      const int64_t p = ord[t];
      if (p == root) continue;
      const int64_t q = par[p];
      if (img[p] != img[q]) {
        o[q] = 0;
        if (o[p] > 0) o[p] = label++;
      }
    }
    for (int64_t t = n - 1; t >= 0; --t) {  // the other pixels of a node take its number
      const int64_t p = ord[t];
      if (p == root) continue;
      const int64_t q = par[p];
      if (img[p] == img[q]) o[p] = o[q];
    }
  });
}

}  // namespace ndimg::morphology
