// The max-tree's math, once for both engines (NDIMG_HD): the pixel order's sort key, Berger's union-find over
// a tile with its canonicalisation, the join of two tiles' canonical trees along a border, and the rules of
// the filters read from the tree. The host runs these over its threads (maxtree.cpp), CUDA a thread per tile,
// per border or per pixel (maxtree_cuda.cu).
#pragma once
#include <bit>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "morphology/extrema.hpp"  // on_border
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"

#if defined(__CUDA_ARCH__)
#define NDIMG_MT_PREFETCH(p) ((void)(p))
#else
#define NDIMG_MT_PREFETCH(p) __builtin_prefetch(p)
#endif

namespace ndimg::morphology {

// An unsigned key whose order is NumPy's sort order of the values: signed values shifted, floats by their
// bits, -0.0 as 0.0, every NaN equal and above +inf.
template <class T>
NDIMG_HD auto sort_key(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return uint32_t(v);
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
    using UT = std::make_unsigned_t<T>;
    U k = U(UT(v));
    if constexpr (std::is_signed_v<T>) k ^= U(UT(1) << (8 * sizeof(T) - 1));
    return k;
  } else {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr U sign = U(1) << (8 * sizeof(T) - 1);
    if (v != v) return U(~U(0));
    if (v == T(0)) v = T(0);
    const U b = std::bit_cast<U>(v);
    return (b & sign) ? U(~b) : U(b | sign);
  }
}

// The image's geometry and scikit-image's neighbour list: flat `offsets` and, for pixels on the image border,
// `points` (k rows of nd coordinate steps) tested against the shape. Passed by value to CUDA kernels.
struct TreeGeometry {
  int nd = 0;
  int k = 0;
  int64_t shape[kMaxDim] = {};
  const int64_t* offsets = nullptr;
  const int64_t* points = nullptr;
};

// Whether tiles of rows joined along their borders give scikit-image's tree: every side at least 3 and every
// neighbour one step per axis (a wider footprint or a side below 3 wraps around a row, one way), a symmetric
// neighbour set (scikit-image reads an edge only from the pixel that comes later in the order; the joins read
// both ways), no NaN (equality not transitive: checked by the caller) and at least two rows.
inline bool tileable(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points) {
  if (image.ndim < 1 || image.shape[0] < 2) return false;
  for (int d = 0; d < image.ndim; ++d)
    if (image.shape[d] < 3) return false;
  for (int64_t s : points)
    if (s < -1 || s > 1) return false;
  for (int64_t o : offsets) {
    bool mirrored = false;
    for (int64_t m : offsets) mirrored |= m == -o;
    if (!mirrored) return false;
  }
  return true;
}

inline TreeGeometry tree_geometry(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
                                  const int64_t* device_offsets = nullptr, const int64_t* device_points = nullptr) {
  TreeGeometry g;
  g.nd = image.ndim;
  g.k = int(offsets.size());
  for (int d = 0; d < image.ndim; ++d) g.shape[d] = image.shape[d];
  g.offsets = device_offsets ? device_offsets : offsets.data();
  g.points = device_points ? device_points : points.data();
  return g;
}

// The joins: a border joins the last row of tile b to the first of tile b + 1 (a neighbour reaches one row
// across) by the neighbours one row down; round s = 1, 2, 4, ... < tiles joins the borders b + 1 = s, 3s,
// 5s, ... (pairs of tiles, then pairs of pairs), each round's borders concurrently.
inline std::vector<int> across_offsets(std::span<const int64_t> points, int nd) {
  std::vector<int> across;
  for (size_t j = 0; j * nd < points.size(); ++j)
    if (points[j * nd] == 1) across.push_back(int(j));
  return across;
}
inline int64_t round_borders(int64_t s, int64_t tiles) { return tiles - 1 >= s ? (tiles - 1 - s) / (2 * s) + 1 : 0; }
NDIMG_HD int64_t round_border(int64_t s, int64_t i) { return s * (2 * i + 1) - 1; }

// Relaxed loads and stores of parent links that other threads read and write (the joins' final pass).
NDIMG_HD int64_t load_link(const int64_t* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile int64_t*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}
NDIMG_HD void store_link(int64_t* p, int64_t v) {
#if defined(__CUDA_ARCH__)
  *static_cast<volatile int64_t*>(p) = v;
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

// Whether neighbour j of pixel p (coordinates coord, on the image border) lies inside the image; axes from
// `first` on (the joins: axis 0 is known inside).
NDIMG_HD bool neighbour_inside(const TreeGeometry& g, const int64_t* coord, int j, int first = 0) {
  for (int d = first; d < g.nd; ++d) {
    const int64_t c = coord[d] + g.points[j * g.nd + d];
    if (c < 0 || c >= g.shape[d]) return false;
  }
  return true;
}

NDIMG_HD void unravel(int64_t p, const TreeGeometry& g, int64_t* coord) {
  for (int d = g.nd - 1; d >= 0; --d) {
    coord[d] = p % g.shape[d];
    p /= g.shape[d];
  }
}

// Berger's union-find over the pixels order[0..m) (ascending: read from the end), neighbours inside the flat
// range [lo, hi) only (the whole image, or a tile of rows), then canonicalisation in the same order: each
// pixel's parent is its node's canonical element (the node's first pixel in order), a canonical element's is
// its parent node's. zpar and parent: -1 over [lo, hi) on entry. Serial: each union depends on the ones before.
template <class T>
NDIMG_HD void berger(const T* img, const TreeGeometry& g, const uint8_t* border, const int64_t* order, int64_t m,
                     int64_t lo, int64_t hi, int64_t* zpar, int64_t* parent) {
  constexpr int64_t ahead = 16;  // prefetch distance of the host's walks in value order (memory latency bound)
  int64_t coord[kMaxDim];
  for (int64_t t = m - 1; t >= 0; --t) {
    if (t >= ahead) {
      const int64_t a = order[t - ahead];
      for (int j = 0; j < g.k; ++j) {
        const int64_t q = a + g.offsets[j];
        if (q >= lo && q < hi) NDIMG_MT_PREFETCH(&zpar[q]);
      }
    }
    const int64_t p = order[t];
    parent[p] = p;
    zpar[p] = p;
    if (border[p]) unravel(p, g, coord);
    for (int j = 0; j < g.k; ++j) {
      const int64_t q = p + g.offsets[j];
      if (border[p] && !neighbour_inside(g, coord, j)) continue;
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
    if (t + 2 * ahead < m) {
      const int64_t a = order[t + 2 * ahead];
      NDIMG_MT_PREFETCH(&parent[a]);
      NDIMG_MT_PREFETCH(&img[a]);
    }
    if (t + ahead < m) NDIMG_MT_PREFETCH(&img[parent[order[t + ahead]]]);
    const int64_t p = order[t];
    const int64_t q = parent[p];
    if (img[q] == img[parent[q]]) parent[p] = parent[q];
  }
}

// Canonical trees of tiles joined along their borders (Wilkinson et al. 2008, "Concurrent computation of
// attribute filters on shared memory parallel machines"): an edge (x, y) merges the two ancestor chains of
// nodes by level; two nodes of one level become one, whose canonical element is the lower index (the first
// in the stable order among equal values). Parent links are relaxed loads and stores: the final pass runs on
// all threads, every store there writing a value that is already final.
template <class T>
struct TreeJoin {
  const T* img;
  int64_t* par;

  NDIMG_HD int64_t get(int64_t x) const { return load_link(&par[x]); }
  NDIMG_HD void set(int64_t x, int64_t v) const { store_link(&par[x], v); }

  // x's node's canonical element (the end of x's run of parents of its value); the run is pointed at it.
  NDIMG_HD int64_t level_root(int64_t x) const {
    int64_t r = x;
    for (int64_t q = get(r); q != r && img[q] == img[x]; q = get(r)) r = q;
    while (x != r) {
      const int64_t next = get(x);
      set(x, r);
      x = next;
    }
    return r;
  }

  NDIMG_HD void connect(int64_t x, int64_t y) const {
    x = level_root(x);
    y = level_root(y);
    while (x != y) {
      if (img[x] < img[y]) swap(x, y);
      if (img[x] == img[y]) {  // one node: the higher index joins the lower, the parent chains merge on
        if (x < y) swap(x, y);
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

  // After the joins, canonical again: a pixel points at its node's canonical element, a canonical element at
  // its parent's.
  NDIMG_HD void finish(int64_t p) const {
    const int64_t r = level_root(p);
    const int64_t q = get(p);
    if (r != p) set(p, r);
    else if (q != p) set(p, level_root(q));
  }

 private:
  NDIMG_HD static void swap(int64_t& a, int64_t& b) {
    const int64_t t = a;
    a = b;
    b = t;
  }
};

// A border: the row of pixels [first, first + stride) (a tile's last) joined to the next row by the
// neighbours `across` (indices of the offsets one row down).
template <class T>
NDIMG_HD void join_border(const TreeJoin<T>& join, const TreeGeometry& g, const uint8_t* border, const int* across,
                          int count, int64_t first, int64_t stride) {
  int64_t coord[kMaxDim];
  for (int64_t p = first; p < first + stride; ++p) {
    if (border[p]) unravel(p, g, coord);
    for (int a = 0; a < count; ++a) {
      const int j = across[a];
      if (border[p] && !neighbour_inside(g, coord, j, 1)) continue;
      join.connect(p, p + g.offsets[j]);
    }
  }
}

// scikit-image's direct filter: pixel p (not the root) takes its parent's output where both are one node or
// p's node's attribute is below the threshold; else it keeps its own value.
template <class T>
NDIMG_HD bool takes_parent(T value, T parent_value, double attribute, double threshold) {
  return value == parent_value || attribute < threshold;
}

// The diameter attribute of a node from its bounding box: the longest side.
NDIMG_HD double diameter_of(int64_t longest_extent) { return double(longest_extent) + 1.0; }

}  // namespace ndimg::morphology
