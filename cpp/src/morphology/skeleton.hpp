// ndimg::morphology skeletons, scikit-image's exactly: skeletonize (Zhang-Suen variant in 2-D, Lee's 3-D
// thinning), thin (Guo-Hall) and medial_axis's removal loop. The per-pixel rules are here, once, for both
// engines; 2-D subiterations run on either engine, Lee's thinning and the medial axis (serial by definition:
// each decision sees the ones before) on the host.
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

// in: a 2-D array (nonzero = foreground, any strides); out: bool, same shape. Subiterations (two per
// iteration) of method m until an iteration deletes nothing, or max_iter iterations (< 0: no limit).
void thin2d(const View& in, const View& out, Thinning m, int64_t max_iter, StreamHandle stream = nullptr);

// Lee's 3-D thinning (as scikit-image's _compute_thin_image) in place: img is C-contiguous uint8, 3-D,
// zero on its outer faces, values 0/1. Border directions r-1, r+1, c+1, c-1 (then p+1, p-1 unless
// img.shape[0] == 3), in that order; candidates rechecked for simplicity only.
void thin_lee(const View& img);

// medial_axis's removal: result (C-contiguous uint8, 2-D, 0/1) loses, one pixel at a time in the order of
// (distance, number of background pixels of the 3x3 window, tiebreak), the pixels whose removal keeps the
// 8-connectivity of their window and that have more than two pixels in it. distance: float64, the input's
// shape; tiebreak: int64, one distinct value per foreground pixel in C order.
void medial_axis_thin(const View& result, const View& distance, const View& tiebreak);

// ---- engine schedules (arguments validated by the entry) ----
void thin2d_cpu(const View& in, const View& out, Thinning m, int64_t max_iter);
#ifdef NDIMG_WITH_CUDA
void thin2d_cuda(const View& in, const View& out, Thinning m, int64_t max_iter, StreamHandle stream);
#endif

}  // namespace ndimg::morphology
