// ndimg::morphology skeletons, scikit-image's exactly: skeletonize (Zhang-Suen variant in 2-D, Lee's 3-D
// thinning), thin (Guo-Hall) and medial_axis's removal loop. The per-pixel rules are here, once, for both
// engines; 2-D subiterations and Lee's thinning (its serial recheck as a wavefront) run on either engine, the
// medial axis (serial in an order of its own: each decision sees the ones before) on the host.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::morphology {

enum class Thinning : int { Zhang = 0, GuoHall = 1 };

// The 8-neighbourhood code of a 2-D pixel: bit k set for the k-th neighbour counter-clockwise from east
// (E, NE, N, NW, W, SW, S, SE).
NDIMG_HD unsigned neighbour_code(const uint8_t* c, int64_t w) {
  return unsigned(c[1] != 0) | unsigned(c[1 - w] != 0) << 1 | unsigned(c[-w] != 0) << 2 |
         unsigned(c[-1 - w] != 0) << 3 | unsigned(c[-1] != 0) << 4 | unsigned(c[w - 1] != 0) << 5 |
         unsigned(c[w] != 0) << 6 | unsigned(c[w + 1] != 0) << 7;
}

NDIMG_HD bool bit_of(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, unsigned i) {
  const uint64_t w = i < 64 ? w0 : i < 128 ? w1 : i < 192 ? w2 : w3;
  return (w >> (i & 63)) & 1;
}

// scikit-image's Zhang-Suen table (its own variant of the rule, which thins diagonal steps as well): whether
// a foreground pixel of this neighbourhood is deleted in the first or the second subiteration. The sets are
// indexed by scikit-image's code (bits NW, N, NE, E, SE, S, SW, W from 1 to 128): the table is data that
// defines its results, so it is kept as it is.
NDIMG_HD bool zhang_deletes(unsigned code, int sub) {
  // our code to scikit-image's: E->8, NE->4, N->2, NW->1, W->128, SW->64, S->32, SE->16
  const unsigned k = (code & 1) << 3 | (code >> 1 & 1) << 2 | (code >> 2 & 1) << 1 | (code >> 3 & 1) |
                     (code >> 4 & 1) << 7 | (code >> 5 & 1) << 6 | (code >> 6 & 1) << 5 | (code >> 7 & 1) << 4;
  return sub == 0 ? bit_of(0x10000100d000dcc8ull, 0x1101000000000000ull, 0x3800080ccull, 0xb008a000080ceull, k)
                  : bit_of(0xd1000100d5008480ull, 0x5101110100000000ull, 0x1000100000084ull, 0x130300030000008bull, k);
}

// Guo and Hall (1989), algorithm A1: x1..x8 are the bits of `code` (x1 = E, counter-clockwise). A pixel is
// deleted when C(P) = 1 (one 8-connected run of neighbours), 2 <= N(P) <= 3, and the subiteration's
// condition holds: (x2 | x3 | !x8) & x1 == 0 in the first, (x6 | x7 | !x4) & x5 == 0 in the second.
NDIMG_HD bool guo_hall_deletes(unsigned code, int sub) {
  auto x = [code](int i) { return int(code >> ((i - 1) & 7) & 1); };  // x(9) == x(1)
  int c = 0, n1 = 0, n2 = 0;
  for (int i = 1; i <= 4; ++i) {
    c += !x(2 * i - 1) && (x(2 * i) || x(2 * i + 1));
    n1 += x(2 * i - 1) || x(2 * i);
    n2 += x(2 * i) || x(2 * i + 1);
  }
  const int n = n1 < n2 ? n1 : n2;
  if (c != 1 || n < 2 || n > 3) return false;
  return sub == 0 ? !((x(2) || x(3) || !x(8)) && x(1)) : !((x(6) || x(7) || !x(4)) && x(5));
}

NDIMG_HD bool thinning_deletes(Thinning m, unsigned code, int sub) {
  return m == Thinning::Zhang ? zhang_deletes(code, sub) : guo_hall_deletes(code, sub);
}

// ---- Lee's 3-D thinning: a voxel's 3x3x3 neighbourhood as 27 bits, bit 9*(dp+1) + 3*(dr+1) + (dc+1) ----
NDIMG_HD int popcount32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

// 8 x the Euler characteristic of the union of the closed voxels of a 2x2x2 window, counted at its shared
// vertex (the vertex, 6 edges shared by 2 windows, 12 faces by 4, 8 cubes by 8); bit (i << 2 | j << 1 | k)
// is the voxel (i, j, k).
constexpr int window_euler8(unsigned m) {
  auto on = [m](int i, int j, int k) { return (m >> (i << 2 | j << 1 | k) & 1) != 0; };
  int v = m != 0, e = 0, f = 0, c = 0;
  for (int s = 0; s < 2; ++s) {
    bool ea = false, eb = false, ec = false;
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 2; ++y) {
        ea |= on(s, x, y);
        eb |= on(x, s, y);
        ec |= on(x, y, s);
      }
    e += ea + eb + ec;
    for (int t = 0; t < 2; ++t)
      f += (on(s, t, 0) || on(s, t, 1)) + (on(s, 0, t) || on(s, 1, t)) + (on(0, s, t) || on(1, s, t));
  }
  for (int i = 0; i < 8; ++i) c += m >> i & 1;
  return 8 * v - 4 * e + 2 * f - c;
}
// Change of a window's Euler characteristic (x 8) when its voxel c, the centre, is set: one table per
// position of the centre in the window (built at compile time; each engine keeps a copy in its memory).
struct LeeEulerTable {
  int8_t delta[8][256];
};
constexpr LeeEulerTable make_lee_euler_table() {
  LeeEulerTable t{};
  for (unsigned c = 0; c < 8; ++c)
    for (unsigned m = 0; m < 256; ++m)
      t.delta[c][m] = int8_t(window_euler8(m | 1u << c) - window_euler8(m & ~(1u << c)));
  return t;
}

// Lee's condition 1: the Euler characteristic of the 26-neighbourhood does not change (sum over the eight
// 2x2x2 windows holding the centre). Window (a, b, c) starts at cube position (a, b, c); its voxel (i, j, k)
// is neighbourhood bit 9(a+i) + 3(b+j) + (c+k), window bit (i << 2 | j << 1 | k).
NDIMG_HD bool lee_euler_invariant(uint32_t nb, const LeeEulerTable& t) {
  int sum = 0;
  for (unsigned w = 0; w < 8; ++w) {
    const uint32_t x = nb >> (9 * (w >> 2) + 3 * (w >> 1 & 1) + (w & 1));
    const unsigned m = (x & 3) | (x >> 3 & 3) << 2 | (x >> 9 & 3) << 4 | (x >> 12 & 3) << 6;
    sum += t.delta[7 - w][m];  // the centre is voxel (1-a, 1-b, 1-c) of window (a, b, c)
  }
  return sum == 0;
}

// The bits of the cube outside the face `value` (0 or 2) of the axis of `axis_stride` (1, 3 or 9).
constexpr uint32_t lee_cube_mask(int axis_stride, int value) {
  uint32_t m = 0;
  for (int i = 0; i < 27; ++i)
    if (i / axis_stride % 3 != value) m |= 1u << i;
  return m;
}
// The 26-neighbour dilation of a set of cube bits (box dilation, one axis at a time).
NDIMG_HD uint32_t lee_dilate26(uint32_t x) {
  constexpr uint32_t c0 = lee_cube_mask(1, 0), c2 = lee_cube_mask(1, 2), r0 = lee_cube_mask(3, 0),
                     r2 = lee_cube_mask(3, 2), p0 = lee_cube_mask(9, 0), p2 = lee_cube_mask(9, 2);
  x |= (x & c2) << 1 | (x & c0) >> 1;
  x |= (x & r2) << 3 | (x & r0) >> 3;
  x |= (x & p2) << 9 | (x & p0) >> 9;
  return x;
}

// Lee's conditions 2 and 3: the neighbours form at most one 26-connected component (grown from one of them
// by dilations within the neighbours, the centre left out).
NDIMG_HD bool lee_simple_point(uint32_t nb) {
  const uint32_t left = nb & ~(1u << 13);
  if (!left) return true;
  uint32_t comp = left & (~left + 1);
  for (;;) {
    const uint32_t grown = lee_dilate26(comp) & left;
    if (grown == comp) return comp == left;
    comp = grown;
  }
}

// The neighbourhood bits of the voxel at v (voxels equal to 1 count) in a C-contiguous volume of plane
// stride sp and row stride sr.
NDIMG_HD uint32_t lee_neighbourhood(const uint8_t* v, int64_t sp, int64_t sr) {
  uint32_t nb = 0;
  for (int dp = -1; dp <= 1; ++dp)
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc) nb |= uint32_t(v[dp * sp + dr * sr + dc] == 1) << (9 * dp + 3 * dr + dc + 13);
  return nb;
}

// A border voxel of this neighbourhood is a candidate for deletion: not an end point (one neighbour), simple,
// and Euler invariant.
NDIMG_HD bool lee_deletable(uint32_t nb, const LeeEulerTable& t) {
  return popcount32(nb) != 2 && lee_simple_point(nb) && lee_euler_invariant(nb, t);
}

// Lee's border directions, in scikit-image's order: the neighbour that must be background is at offset
// -sr, +sr, +1, -1, +sp, -sp (the last two only when the volume has more than one plane inside its frame).
NDIMG_HD int64_t lee_direction(int j, int64_t sp, int64_t sr) {
  return j == 0 ? -sr : j == 1 ? sr : j == 2 ? 1 : j == 3 ? -1 : j == 4 ? sp : -sp;
}

// ---- medial_axis: a pixel's 3x3 window as 9 bits, bit 3 * (dr + 1) + (dc + 1); outside the image is background ----
NDIMG_HD unsigned medial_window(const uint8_t* img, int64_t h, int64_t w, int64_t r, int64_t c) {
  unsigned m = 0;
  for (int dr = -1; dr <= 1; ++dr)
    for (int dc = -1; dc <= 1; ++dc)
      if (r + dr >= 0 && r + dr < h && c + dc >= 0 && c + dc < w && img[(r + dr) * w + c + dc])
        m |= 1u << (3 * (dr + 1) + dc + 1);
  return m;
}

// The number of 8-connected components of a window's pixels.
constexpr int window_components(unsigned m) {
  int n = 0;
  unsigned left = m;
  while (left) {
    unsigned comp = left & (~left + 1), grow = comp;
    while (grow) {
      unsigned next = 0;
      for (int k = 0; k < 9; ++k) {
        if (!(grow >> k & 1)) continue;
        const int r = k / 3, c = k % 3;
        for (int dr = -1; dr <= 1; ++dr)
          for (int dc = -1; dc <= 1; ++dc)
            if (r + dr >= 0 && r + dr < 3 && c + dc >= 0 && c + dc < 3) next |= 1u << (3 * (r + dr) + c + dc);
      }
      grow = next & left & ~comp;
      comp |= grow;
    }
    left &= ~comp;
    ++n;
  }
  return n;
}
// medial_axis's table: a foreground pixel (bit 4) is kept when its removal changes the number of components of
// its window, or when the window holds fewer than three pixels (built at compile time; a copy per engine).
struct MedialTable {
  uint8_t keep[512];
};
constexpr MedialTable make_medial_table() {
  MedialTable t{};
  for (unsigned m = 0; m < 512; ++m) {
    int pixels = 0;
    for (int k = 0; k < 9; ++k) pixels += m >> k & 1;
    t.keep[m] = (m & 16) && (window_components(m) != window_components(m & ~16u) || pixels < 3);
  }
  return t;
}

// in: a 2-D array (nonzero = foreground, any strides); out: bool, same shape. Subiterations (two per
// iteration) of method m until an iteration deletes nothing, or max_iter iterations (< 0: no limit).
void thin2d(const View& in, const View& out, Thinning m, int64_t max_iter, StreamHandle stream = nullptr);

// Lee's 3-D thinning (as scikit-image's _compute_thin_image) in place: img is C-contiguous uint8, 3-D,
// zero on its outer faces, values 0/1. Border directions r-1, r+1, c+1, c-1 (then p+1, p-1 unless
// img.shape[0] == 3), in that order; candidates rechecked for simplicity only, in C order: a recheck depends on
// the earlier candidates of its 3x3x3 neighbourhood only, which both engines use to recheck many at once.
void thin_lee(const View& img, StreamHandle stream = nullptr);

// medial_axis's removal: result (C-contiguous uint8, 2-D, 0/1) loses, one pixel at a time in the order of
// (distance, number of background pixels of the 3x3 window, tiebreak), the pixels whose removal keeps the
// 8-connectivity of their window and that have more than two pixels in it. distance: float64, the input's
// shape; tiebreak: int64, one distinct value per foreground pixel in C order.
void medial_axis_thin(const View& result, const View& distance, const View& tiebreak, StreamHandle stream = nullptr);

// ---- engine schedules (arguments validated by the entry) ----
void thin2d_cpu(const View& in, const View& out, Thinning m, int64_t max_iter);
void thin_lee_cpu(const View& img);
void medial_axis_thin_cpu(const View& result, const View& distance, const View& tiebreak);
#ifdef NDIMG_WITH_CUDA
void medial_axis_thin_cuda(const View& result, const View& distance, const View& tiebreak, StreamHandle stream);
void thin2d_cuda(const View& in, const View& out, Thinning m, int64_t max_iter, StreamHandle stream);
void thin_lee_cuda(const View& img, StreamHandle stream);
#endif

}  // namespace ndimg::morphology
