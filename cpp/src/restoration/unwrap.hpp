// Reliability-sorted phase unwrapping (Herraez, Burton, Lalor and Gdeisat), in the order of scikit-image's
// 2-D and 3-D unwrappers: the per-pixel and per-edge math once for every schedule, and the host steps both
// engines share (C's rand() for the first reliabilities, scikit-image's edge sort, the sequential merge).
#pragma once
#include <cstdint>
#include <numbers>
#include <vector>

#include "ndimg/hd.hpp"
#include "ndimg/restoration.hpp"

namespace ndimg::restoration {

// a phase difference brought into [-pi, pi] by one period at most
NDIMG_HD double wrap_phase(double d) {
  constexpr double pi = std::numbers::pi;
  return d > pi ? d - 2 * pi : (d < -pi ? d + 2 * pi : d);
}

// the periods to add to the second pixel of an edge to continue the first one
NDIMG_HD int edge_periods(double first, double second) {
  constexpr double pi = std::numbers::pi;
  const double d = first - second;
  return d > pi ? -1 : (d < -pi ? 1 : 0);
}

// one term of a pixel's reliability: the second difference through it, wrapped on each side
NDIMG_HD double second_difference(double before, double centre, double after) {
  return wrap_phase(before - centre) - wrap_phase(centre - after);
}

namespace unwrap_math {

// A box [n0, n1) x [i0, i1) x [j0, j1) of a (D, H, W) volume, walked in C order.
struct Box {
  int64_t n0, n1, i0, i1, j0, j1;
  NDIMG_HD int64_t size() const {
    return n1 > n0 && i1 > i0 && j1 > j0 ? (n1 - n0) * (i1 - i0) * (j1 - j0) : 0;
  }
  // the pixel index of the box's k-th element in a volume of rows of W and frames of H rows
  NDIMG_HD int64_t pixel(int64_t k, int64_t H, int64_t W) const {
    const int64_t bw = j1 - j0, bh = i1 - i0;
    const int64_t j = j0 + k % bw, i = i0 + (k / bw) % bh, n = n0 + k / bw / bh;
    return (n * H + i) * W + j;
  }
};

// the term wrap(v[p + a] - v[p]) - wrap(v[p] - v[p + b]) of a pixel's reliability
struct Offsets {
  int64_t a, b;
};

// The pixels whose reliability is computed with `terms` (scikit-image's 13 in 3-D, 4 in 2-D).
struct Region {
  Box box;
  int nterms;
  Offsets terms[13];
};

// A pixel's reliability: the sum of its squared terms; scikit-image reads values past the volume as 0 where
// a wrapped 2-D border reaches out of it. Each operation rounds on its own, so the engines agree bit for bit.
NDIMG_HD double reliability(const double* v, int64_t V, int64_t p, const Region& g) {
  double s = 0;
  for (int t = 0; t < g.nterms; ++t) {
    const int64_t qa = p + g.terms[t].a, qb = p + g.terms[t].b;
    const double d = second_difference(qa >= 0 && qa < V ? v[qa] : 0.0, v[p], qb >= 0 && qb < V ? v[qb] : 0.0);
    s = add_rn(s, square_rn(d));
  }
  return s;
}

// The edges of one kind (along x, x's wrap, along y, y's wrap, along z, z's wrap): from each pixel of
// `box` to the pixel `delta` after it.
struct EdgeBlock {
  Box box;
  int64_t delta;
};

// An edge in the sort: its reliability (the sum of its pixels') and its code, the first pixel, its block
// and the periods that continue the first pixel into the second, packed into one integer.
struct EdgeKey {
  double reliab;
  int64_t code;
};

NDIMG_HD int64_t edge_code(int64_t p, int block, int periods) { return (p * 8 + block) * 4 + (periods + 1); }
NDIMG_HD int64_t code_first(int64_t code) { return code >> 5; }
NDIMG_HD int code_block(int64_t code) { return int((code >> 2) & 7); }
NDIMG_HD int code_periods(int64_t code) { return int(code & 3) - 1; }

// Host steps shared by the schedules (unwrap_cpu.cpp):
// the regions whose reliabilities are computed, in scikit-image's order (a later one overwrites an earlier
// one where a dimension of 1 makes them meet)
std::vector<Region> reliability_regions(int64_t D, int64_t H, int64_t W, bool is3d, bool wz, bool wy, bool wx);
// the edge blocks in scikit-image's creation order
std::vector<EdgeBlock> edge_blocks(int64_t D, int64_t H, int64_t W, bool wz, bool wy, bool wx);
// every pixel's first reliability, C's rand() (after srand(0) when `reseed`)
void draw_reliabilities(double* rel, int64_t V, bool reseed);
// scikit-image's quicksort of the edges by reliability (not stable: ties end in its order)
void sort_edges(std::vector<EdgeKey>& edges);
// the error for NaN reliabilities (non-finite phases), on which scikit-image's sort never ends
[[noreturn]] void refuse_nan_reliabilities();

// The groups merged along the sorted edges (code_at(k): the k-th edge's code), smaller into larger, in
// order: each pixel's periods. Sequential, on the host for either engine: each merge depends on the groups
// the earlier ones made. scikit-image keeps groups as linked lists and shifts every pixel of the joining
// group; here a group is a tree (union-find with path compression) whose root holds the group's size and its
// own periods, and every other pixel its periods relative to its parent: a merge shifts the joining root
// only, and the same decisions give the same periods.
template <class I, class CodeAt>
std::vector<int32_t> merge_groups_as(int64_t V, size_t n, CodeAt code_at, const std::vector<EdgeBlock>& blocks) {
  struct Node {
    I parent, size;
    int32_t periods;   // a root's own, another pixel's relative to its parent
  };
  std::vector<Node> g(static_cast<size_t>(V));
  for (int64_t p = 0; p < V; ++p) g[size_t(p)] = {I(p), I(1), 0};
  // a pixel's root, and its periods relative to the root; the path is compressed onto the root
  auto find = [&](I p, int32_t& rel) {
    I root = p;
    int32_t sum = 0;
    for (; g[size_t(root)].parent != root; root = g[size_t(root)].parent) sum += g[size_t(root)].periods;
    rel = sum;
    for (I q = p; g[size_t(q)].parent != root && q != root;) {
      Node& node = g[size_t(q)];
      const I up = node.parent;
      const int32_t own = node.periods;
      node.parent = root;
      node.periods = sum;
      sum -= own;
      q = up;
    }
    return root;
  };
  // the pixels of the edge `ahead` edges on are fetched while this one merges, their parents half as far on
  constexpr size_t ahead = 32;
  for (size_t k = 0; k < n; ++k) {
    if (k + ahead < n) {
      const int64_t c = code_at(k + ahead), q = code_first(c);
      __builtin_prefetch(&g[size_t(q)]);
      __builtin_prefetch(&g[size_t(q + blocks[size_t(code_block(c))].delta)]);
    }
    if (k + ahead / 2 < n) {
      const int64_t c = code_at(k + ahead / 2), q = code_first(c);
      __builtin_prefetch(&g[size_t(g[size_t(q)].parent)]);
      __builtin_prefetch(&g[size_t(g[size_t(q + blocks[size_t(code_block(c))].delta)].parent)]);
    }
    const int64_t code = code_at(k), p1 = code_first(code), p2 = p1 + blocks[size_t(code_block(code))].delta;
    const int increment = code_periods(code);
    int32_t rel1, rel2;
    const I h1 = find(I(p1), rel1), h2 = find(I(p2), rel2);
    if (h1 == h2) continue;
    Node &r1 = g[size_t(h1)], &r2 = g[size_t(h2)];
    if (h2 == I(p2) && r2.size == 1) {   // the second pixel alone joins the first's group
      r2.parent = h1;
      r2.periods = rel1 - increment;
      ++r1.size;
    } else if (h1 == I(p1) && r1.size == 1) {   // the first alone joins the second's
      r1.parent = h2;
      r1.periods = rel2 + increment;
      ++r2.size;
    } else {
      // the smaller group (the first's on a tie) joins the other, its periods shifted to continue it
      const int32_t abs1 = rel1 + r1.periods, abs2 = rel2 + r2.periods;
      if (r1.size > r2.size) {
        r2.parent = h1;
        r2.periods += abs1 - increment - abs2 - r1.periods;
        r1.size += r2.size;
      } else {
        r1.parent = h2;
        r1.periods += abs2 + increment - abs1 - r2.periods;
        r2.size += r1.size;
      }
    }
  }
  std::vector<int32_t> inc(static_cast<size_t>(V));
  for (int64_t p = 0; p < V; ++p) {
    int32_t rel;
    const I root = find(I(p), rel);
    inc[size_t(p)] = rel + g[size_t(root)].periods;
  }
  return inc;
}

template <class CodeAt>
std::vector<int32_t> merge_groups(int64_t V, size_t n, CodeAt code_at, const std::vector<EdgeBlock>& blocks) {
  // 32-bit nodes (20 bytes) where every pixel index fits
  if (V < (int64_t(1) << 31)) return merge_groups_as<int32_t>(V, n, code_at, blocks);
  return merge_groups_as<int64_t>(V, n, code_at, blocks);
}

}  // namespace unwrap_math

#ifdef NDIMG_WITH_CUDA
// The CUDA schedule of restoration::unwrap_phase (arguments validated by the entry).
void unwrap_phase_cuda(const View& image, const View& mask, const View& out, bool wrap_z, bool wrap_y, bool wrap_x,
                       bool reseed, StreamHandle stream);
#endif

}  // namespace ndimg::restoration
