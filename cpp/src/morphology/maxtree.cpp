// The max-tree on the host: a parallel stable radix argsort (the pixel order), then Berger's union-find and
// canonicalisation (serial within an image or a tile: each union depends on the ones before), tiles joined
// along their borders on the threads, and the attribute passes, each one linear walk over the order as
// scikit-image's.
#include "morphology/maxtree.hpp"
#include "morphology/maxtree_impl.hpp"
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
constexpr int64_t kTiledLevels = int64_t(1) << 16;
constexpr int64_t kTilePixels = int64_t(1) << 17;

// scikit-image's border mask: a pixel with a coordinate 0 or shape - 1 along some axis.
std::vector<uint8_t> border_flags(const View& v) {
  const int64_t n = v.size();
  std::vector<uint8_t> border(n, 0);
  parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) border[i] = on_border(i, v.ndim, v.shape.data());
  });
  return border;
}

template <class T>
bool has_nan(const T* img, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    bool any = false;
    parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) {
      bool f = false;
      for (int64_t i = b; i < e; ++i) f |= std::isnan(img[i]);
      if (f) __atomic_store_n(&any, true, __ATOMIC_RELAXED);
    });
    return any;
  } else {
    return false;
  }
}

template <class T>
void build_tree(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points, int64_t* parent,
                int64_t* order, int64_t tile_rows) {
  const T* img = image.ptr<T>();
  const int64_t n = image.size();
  const TreeGeometry g = tree_geometry(image, offsets, points);
  const int64_t levels = argsort_stable(img, n, order);
  const std::vector<uint8_t> border = border_flags(image);
  std::vector<int64_t> zpar(n, -1);
  std::fill(parent, parent + n, int64_t(-1));
  // Tiles of rows along axis 0, on the threads, where they are exact (tileable()). A join walks the
  // nodes between two border pixels' levels, all the pixels of that band in their component where the values
  // are all distinct (smooth float images: longer than building the tree serially), so only images of up to
  // kTiledLevels distinct values tile by themselves. Tiles of about kTilePixels (at least one per thread):
  // a tile's union-find stays in cache (several times faster than one pass over a large image, even on one
  // thread).
  const int64_t rows = image.shape[0];
  const int64_t stride = n / rows;
  if (tile_rows <= 0 && n >= 2 * kTilePixels && levels <= kTiledLevels) {
    const int64_t tiles = std::max<int64_t>(num_threads(), n / kTilePixels);
    tile_rows = (rows + tiles - 1) / tiles;
  }
  if (tile_rows <= 0 || tile_rows >= rows || !tileable(image, offsets, points) || has_nan(img, n)) {
    berger<T>(img, g, border.data(), order, n, 0, n, zpar.data(), parent);
    return;
  }
  const int64_t tiles = (rows + tile_rows - 1) / tile_rows;
  const int64_t tile_size = tile_rows * stride;
  // Each tile's pixels in the global order: a stable scatter of the order by tile, one chunk per thread.
  std::vector<int64_t> sub(n);
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(num_threads(), n / 65536));
  const int64_t step = (n + chunks - 1) / chunks;
  std::vector<int64_t> at(size_t(chunks * tiles), 0);
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t i = c * step, e = std::min(n, (c + 1) * step); i < e; ++i) ++at[c * tiles + order[i] / tile_size];
  });
  for (int64_t t = 0; t < tiles; ++t) {  // counts -> each chunk's first slot in each tile
    int64_t slot = t * tile_size;
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t count = at[c * tiles + t];
      at[c * tiles + t] = slot;
      slot += count;
    }
  }
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t i = c * step, e = std::min(n, (c + 1) * step); i < e; ++i)
        sub[at[c * tiles + order[i] / tile_size]++] = order[i];
  });
  parallel_for(tiles, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t lo = t * tile_size, hi = std::min(n, lo + tile_size);
      berger<T>(img, g, border.data(), sub.data() + lo, hi - lo, lo, hi, zpar.data(), parent);
    }
  });
  const TreeJoin<T> join{img, parent};
  const std::vector<int> across = across_offsets(points, image.ndim);
  for (int64_t s = 1; s < tiles; s *= 2)
    parallel_for(round_borders(s, tiles), 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        join_border(join, g, border.data(), across.data(), int(across.size()),
                    (round_border(s, r) + 1) * tile_size - stride, stride);
    });
  parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) join.finish(p);
  });
}

void check_tree(const View& image, const View& parent, const View& traverser, const char* op) {
  const int64_t n = image.size();
  require_same_device(image, parent, op);
  require_same_device(image, traverser, op);
  if (parent.dtype != DType::I64 || traverser.dtype != DType::I64)
    throw ValueError(std::string(op) + ": parent and tree_traverser must be int64");
  if (parent.size() != n || traverser.size() != n)
    throw ValueError(std::string(op) + ": parent and tree_traverser must have one element per pixel");
  if (!parent.c_contiguous() || !traverser.c_contiguous() || !image.c_contiguous())
    throw ValueError(std::string(op) + ": arrays must be C-contiguous");
}

void check_tree_indices(const View& parent, const View& traverser, const char* op) {
  const int64_t n = parent.size();
  const int64_t* par = parent.ptr<int64_t>();
  const int64_t* ord = traverser.ptr<int64_t>();
  bool ok = true;
  for (int64_t i = 0; i < n && ok; ++i) ok = par[i] >= 0 && par[i] < n && ord[i] >= 0 && ord[i] < n;
  if (!ok) throw ValueError(std::string(op) + ": " + kBadTree);
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
    attr[q] = diameter_of(ext);
  }
  return attr;
}

}  // namespace

void max_tree_cpu(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
                  const View& parent, const View& traverser, int64_t tile_rows) {
  dispatch_dtype(image.dtype, [&]<class T>() {
    build_tree<T>(image, offsets, points, parent.ptr<int64_t>(), traverser.ptr<int64_t>(), tile_rows);
  });
}

void max_tree(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
              const View& parent, const View& traverser, int64_t tile_rows, StreamHandle stream) {
  const char* op = "max_tree";
  require_same_device(image, parent, op);
  require_same_device(image, traverser, op);
  if (image.ndim < 1) throw ValueError("max_tree: 0-d input");
  if (points.size() != offsets.size() * size_t(image.ndim)) throw ValueError("max_tree: one point per offset");
  if (parent.dtype != DType::I64 || traverser.dtype != DType::I64 || parent.size() != image.size() ||
      traverser.size() != image.size() || !parent.c_contiguous() || !traverser.c_contiguous() ||
      !image.c_contiguous())
    throw ValueError(std::string(op) + ": C-contiguous int64 outputs of the image's size expected");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, max_tree_cpu(image, offsets, points, parent, traverser, tile_rows),
              max_tree_cuda(image, offsets, points, parent, traverser, tile_rows, stream));
}

void max_tree_filter(const View& image, const View& parent, const View& traverser, int attribute, double threshold,
                     const View& out, StreamHandle stream) {
  const char* op = "max_tree_filter";
  check_tree(image, parent, traverser, op);
  require_same_device(image, out, op);
  if (out.dtype != image.dtype || out.size() != image.size() || !out.c_contiguous())
    throw ValueError("max_tree_filter: output must be C-contiguous, of the image's dtype and size");
  if (attribute != 0 && attribute != 1) throw ValueError("max_tree_filter: attribute is 0 (area) or 1 (diameter)");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, max_tree_filter_cpu(image, parent, traverser, attribute, threshold, out),
              max_tree_filter_cuda(image, parent, traverser, attribute, threshold, out, stream));
}

void max_tree_filter_cpu(const View& image, const View& parent, const View& traverser, int attribute,
                         double threshold, const View& out) {
  check_tree_indices(parent, traverser, "max_tree_filter");
  const int64_t n = image.size();
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
      o[p] = takes_parent(img[p], img[q], attr[p], threshold) ? o[q] : img[p];
    }
  });
}

void max_tree_local_maxima(const View& image, const View& parent, const View& traverser, const View& out,
                           StreamHandle stream) {
  const char* op = "max_tree_local_maxima";
  check_tree(image, parent, traverser, op);
  require_same_device(image, out, op);
  if (out.dtype != DType::U64 || out.size() != image.size() || !out.c_contiguous())
    throw ValueError("max_tree_local_maxima: output must be C-contiguous uint64 of the image's size");
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, max_tree_local_maxima_cpu(image, parent, traverser, out),
              max_tree_local_maxima_cuda(image, parent, traverser, out, stream));
}

void max_tree_local_maxima_cpu(const View& image, const View& parent, const View& traverser, const View& out) {
  check_tree_indices(parent, traverser, "max_tree_local_maxima");
  const int64_t n = image.size();
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
