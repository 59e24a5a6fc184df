// The MB-LBP cascade classifier (skimage.feature.Cascade): one window's verdict, written once for both
// engines; the schedules' declarations. The entry is in cascade.cpp.
#pragma once
#include <cstdint>

#include "feature/haar.hpp"

namespace ndimg::feature {

struct CascadeTables {
  const int64_t* stumps;  // (n_stumps, 5): r, c, width, height, first LUT word
  const float* leaves;    // (n_stumps, 2)
  const uint32_t* luts;
  const int64_t* stages;  // (n_stages, 2): first stump, count
  const float* limits;    // (n_stages)
  int64_t n_stages;
};

// The 8-bit MB-LBP code of the 3x3 blocks of (height, width) with top left corner (r, c): bit 7 - k set where
// neighbour k (clockwise from the top left) sums to at least the centre; -1 where a block leaves the image.
NDIMG_HD int cascade_mblbp(const float* ii, int64_t rows, int64_t cols, int64_t r, int64_t c, int64_t width,
                           int64_t height) {
  if (r < 0 || c < 0 || width < 1 || height < 1 || r + 3 * height > rows || c + 3 * width > cols) return -1;
  const int64_t cr = r + height, cc = c + width;
  const int64_t centre_q[4] = {cr, cc, cr + height - 1, cc + width - 1};
  const float centre = haar_rect(ii, cols, int64_t(1), centre_q);
  constexpr int dr[8] = {-1, -1, -1, 0, 1, 1, 1, 0}, dc[8] = {-1, 0, 1, 1, 1, 0, -1, -1};
  int code = 0;
  for (int k = 0; k < 8; ++k) {
    const int64_t r0 = cr + dr[k] * height, c0 = cc + dc[k] * width;
    const int64_t q[4] = {r0, c0, r0 + height - 1, c0 + width - 1};
    code |= int(haar_rect(ii, cols, int64_t(1), q) >= centre) << (7 - k);
  }
  return code;
}

// Whether the window at (row, col) passes every stage: each stump adds its left leaf where its LUT bit for
// the block's code is set, else its right leaf, in float32; a stage sum below its limit rejects.
NDIMG_HD bool cascade_window(const float* ii, int64_t rows, int64_t cols, int64_t row, int64_t col,
                             const CascadeTables& t) {
  for (int64_t s = 0; s < t.n_stages; ++s) {
    float points = 0.0f;
    for (int64_t k = t.stages[2 * s]; k < t.stages[2 * s] + t.stages[2 * s + 1]; ++k) {
      const int64_t* f = t.stumps + 5 * k;
      const int code = cascade_mblbp(ii, rows, cols, row + f[0], col + f[1], f[2], f[3]);
      if (code < 0) return false;
      const bool bit = (t.luts[f[4] + (code >> 5)] >> (code & 31)) & 1u;
      points = add_rn(points, bit ? t.leaves[2 * k] : t.leaves[2 * k + 1]);
    }
    if (points < t.limits[s]) return false;
  }
  return true;
}

// ---- engine schedules (arguments validated by the entry) ----
void cascade_windows_cpu(const View& ii, const CascadeTables& t, int64_t step, const View& out);
#ifdef NDIMG_WITH_CUDA
void cascade_windows_cuda(const View& ii, const CascadeTables& t, int64_t step, const View& out, StreamHandle s);
#endif

}  // namespace ndimg::feature
