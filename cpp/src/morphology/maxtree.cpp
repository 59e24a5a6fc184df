// The max-tree on the host: a parallel stable radix argsort (the pixel order), then Berger's union-find and
// canonicalisation (serial within an image or a tile: each union depends on the ones before), tiles joined
// along their borders on the threads, and the attribute passes, each one linear walk over the order as
// scikit-image's.
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
constexpr int64_t kTiledLevels = int64_t(1) << 16;
constexpr int64_t kTilePixels = int64_t(1) << 17;

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

// Berger's union-find over the pixels order[0..m) (ascending: read from the end), neighbours inside the flat
// range [lo, hi) only (the whole image, or a tile of rows), then canonicalisation in the same order: each
// pixel's parent is its node's canonical element (the node's first pixel in order), a canonical element's is
// its parent node's. zpar and parent: -1 over [lo, hi) on entry.
template <class T>
void berger(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
            const uint8_t* border, const int64_t* order, int64_t m, int64_t lo, int64_t hi, int64_t* zpar,
            int64_t* parent) {
  const T* img = image.ptr<T>();
  const int nd = image.ndim;
  const size_t k = offsets.size();
  int64_t coord[kMaxDim];
  // The walks below jump around the image in value order: each prefetches the pixels it reaches kAhead
  // steps later (memory latency, not arithmetic, bounds them).
  for (int64_t t = m - 1; t >= 0; --t) {
    if (t >= kAhead) {
      const int64_t a = order[t - kAhead];
      for (size_t j = 0; j < k; ++j) {
        const int64_t q = a + offsets[j];
        if (q >= lo && q < hi) __builtin_prefetch(&zpar[q]);
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
      if (q < lo || q >= hi || zpar[q] < 0) continue;
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
  for (int64_t t = 0; t < m; ++t) {  // canonical parents, in scikit-image's order
    if (t + 2 * kAhead < m) {
      const int64_t a = order[t + 2 * kAhead];
      __builtin_prefetch(&parent[a]);
      __builtin_prefetch(&img[a]);
    }
    if (t + kAhead < m) __builtin_prefetch(&img[parent[order[t + kAhead]]]);
    const int64_t p = order[t];
    const int64_t q = parent[p];
    if (img[q] == img[parent[q]]) parent[p] = parent[q];
  }
}

// Canonical trees of tiles joined along their borders (Wilkinson et al. 2008, "Concurrent computation of
// attribute filters on shared memory parallel machines"): an edge (x, y) merges the two ancestor chains of
// nodes by level; two nodes of one level become one, whose canonical element is the lower index (the first
// in the stable order among equal values). Parent reads and writes are relaxed atomics: the final pass runs on
// all threads, every write there storing a value that is already final.
template <class T>
struct TreeJoin {
  const T* img;
  int64_t* par;

  int64_t get(int64_t x) const { return __atomic_load_n(&par[x], __ATOMIC_RELAXED); }
  void set(int64_t x, int64_t v) const { __atomic_store_n(&par[x], v, __ATOMIC_RELAXED); }

  // x's node's canonical element (the end of x's run of parents of its value); the run is pointed at it.
  int64_t level_root(int64_t x) const {
    int64_t r = x;
    for (int64_t q = get(r); q != r && img[q] == img[x]; q = get(r)) r = q;
    while (x != r) {
      const int64_t next = get(x);
      set(x, r);
      x = next;
    }
    return r;
  }

  void connect(int64_t x, int64_t y) const {
    x = level_root(x);
    y = level_root(y);
    while (x != y) {
      if (img[x] < img[y]) std::swap(x, y);
      if (img[x] == img[y]) {  // one node: the higher index joins the lower, the parent chains merge on
        if (x < y) std::swap(x, y);
        const int64_t px = get(x);
        set(x, y);
        if (px == x) return;
        x = y;
        y = level_root(px);
        continue;
      }
      const int64_t px = get(x);
      if (px == x) {  // x's chain ends above y
        set(x, y);
        return;
      }
      const int64_t z = level_root(px);
      if (img[z] >= img[y]) {
        x = z;
      } else {  // y falls between x and its parent
        set(x, y);
        x = y;
        y = z;
      }
    }
  }
};

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
  const int nd = image.ndim;
  const int64_t levels = argsort_stable(img, n, order);
  const std::vector<uint8_t> border = border_flags(image);
  std::vector<int64_t> zpar(n, -1);
  std::fill(parent, parent + n, int64_t(-1));
  // Tiles of rows along axis 0, on the threads. Exact where scikit-image's neighbours are the footprint's
  // (every side >= 3: smaller ones wrap, one-way) and equality is transitive (no NaN). A join walks the
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
  bool tiled = tile_rows > 0 && tile_rows < rows;
  for (int d = 0; d < nd && tiled; ++d) tiled = image.shape[d] >= 3;
  if (!tiled || has_nan(img, n)) {
    berger<T>(image, offsets, points, border.data(), order, n, 0, n, zpar.data(), parent);
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
      berger<T>(image, offsets, points, border.data(), sub.data() + lo, hi - lo, lo, hi, zpar.data(), parent);
    }
  });
  const TreeJoin<T> join{img, parent};
  // A border joins the last row of tile b to the first of tile b + 1 (a footprint reaches one row across);
  // borders join pairs of tiles, then pairs of pairs, each round's borders on the threads.
  std::vector<size_t> across;  // the offsets one row down
  for (size_t j = 0; j < offsets.size(); ++j)
    if (points[j * nd] == 1) across.push_back(j);
  for (int64_t s = 1; s < tiles; s *= 2) {
    std::vector<int64_t> round;
    for (int64_t b = 0; b + 1 < tiles; ++b)
      if ((b + 1) % (2 * s) == s) round.push_back(b);
    parallel_for(int64_t(round.size()), 1, [&](int64_t r0, int64_t r1) {
      int64_t coord[kMaxDim];
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t first = (round[r] + 1) * tile_size - stride;
        for (int64_t p = first; p < first + stride; ++p) {
          if (border[p]) {
            int64_t rem = p;
            for (int d = nd - 1; d >= 0; --d) {
              coord[d] = rem % image.shape[d];
              rem /= image.shape[d];
            }
          }
          for (size_t j : across) {
            if (border[p]) {
              bool inside = true;
              for (int d = 1; d < nd && inside; ++d) {
                const int64_t c = coord[d] + points[j * nd + d];
                inside = c >= 0 && c < image.shape[d];
              }
              if (!inside) continue;
            }
            join.connect(p, p + offsets[j]);
          }
        }
      }
    });
  }
  // Canonical again: a pixel points at its node's canonical element, a canonical element at its parent's.
  parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t r = join.level_root(p);
      const int64_t q = join.get(p);
      if (r != p) join.set(p, r);
      else if (q != p) join.set(p, join.level_root(q));
    }
  });
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
              const View& parent, const View& traverser, int64_t tile_rows) {
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
    build_tree<T>(image, offsets, points, parent.ptr<int64_t>(), traverser.ptr<int64_t>(), tile_rows);
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
