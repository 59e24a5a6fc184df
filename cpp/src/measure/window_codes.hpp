// Histograms of small-window codes of one image, for measures that weight them (euler_number,
// perimeter_crofton, perimeter).
//
// The histogram of the 2^ndim-window configurations of a 2-D or 3-D image padded by one zero on every side
// (euler_number, perimeter_crofton): window q (q_d in 0..shape_d) covers the elements q + o - 1, o in {0,1}^nd,
// and its code holds one bit per corner, scikit-image's convolution weights: 2-D (y, x) corner o has bit
// (1 - o_y) + 2 (1 - o_x), 3-D adds 4 (1 - o_z). A window's code is then col(x) | col(x - 1) << 2, col(c)
// holding the corners of column c at their o_x = 1 bits. The math is here, once, for both engines.
#pragma once
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::measure {

// Corner row r of a window (2 rows in 2-D, 4 in 3-D): its offsets o_y, o_z (2-D: o_z = 1, the image's one
// plane, axes right-aligned to (z, y, x)) and the bit of its o_x = 1 corner.
struct CornerRow {
  int oy, oz, bit;
};
NDIMG_HD CornerRow corner_row(int nd, int r) {
  const int oy = r & 1, oz = nd == 3 ? r >> 1 & 1 : 1;
  return CornerRow{oy, oz, (1 - oy) + 4 * (1 - oz)};
}
// The image's axes right-aligned to (z, y, x), a 2-D image's z of extent 1.
struct Axes3 {
  int64_t shape[3], strides[3];
};
inline Axes3 axes3(const View& in) {
  Axes3 a{};
  const int pad = 3 - in.ndim;
  for (int d = 0; d < 3; ++d) {
    a.shape[d] = d < pad ? 1 : in.shape[d - pad];
    a.strides[d] = d < pad ? 0 : in.strides[d - pad];
  }
  return a;
}
// The corners of column c (0 outside the image) of the window line (qz, qy), at their o_x = 1 bits.
template <class T>
NDIMG_HD unsigned column_bits(const T* in, const Axes3& a, int nd, int64_t qz, int64_t qy, int64_t c) {
  if (c < 0 || c >= a.shape[2]) return 0;
  unsigned col = 0;
  for (int r = 0; r < (nd == 2 ? 2 : 4); ++r) {
    const CornerRow k = corner_row(nd, r);
    const int64_t y = qy + k.oy - 1, z = qz + k.oz - 1;
    if (y < 0 || y >= a.shape[1] || z < 0 || z >= a.shape[0]) continue;
    col |= unsigned(in[z * a.strides[0] + y * a.strides[1] + c * a.strides[2]] != T(0)) << k.bit;
  }
  return col;
}

// scikit-image's perimeter codes, as its arithmetic runs on a uint8 image: the border (the image minus its
// binary erosion by the 4- or 8-neighbourhood, outside the image 0), in uint8, and each pixel's code the
// border's 3x3 sum weighted 1 (centre), 2 (edges), 10 (corners), wrapped to uint8.
NDIMG_HD uint8_t perimeter_border(const uint8_t* img, int64_t h, int64_t w, int64_t sy, int64_t sx, int64_t y,
                                  int64_t x, bool eight) {
  if (y < 0 || y >= h || x < 0 || x >= w) return 0;
  const uint8_t v = img[y * sy + x * sx];
  bool eroded = v != 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if ((dy == 0 && dx == 0) || (!eight && dy != 0 && dx != 0)) continue;
      const int64_t yy = y + dy, xx = x + dx;
      eroded = eroded && yy >= 0 && yy < h && xx >= 0 && xx < w && img[yy * sy + xx * sx] != 0;
    }
  return uint8_t(v - uint8_t(eroded));
}
NDIMG_HD int perimeter_weight(int dy, int dx) { return dy == 0 && dx == 0 ? 1 : dy == 0 || dx == 0 ? 2 : 10; }

// Entries: in (any dtype: nonzero elements are set; 2 or 3 axes), hist (int64, C-contiguous, 16 or 256 bins)
// += the count of each window code; perimeter_codes: img (uint8, 2-D), hist (int64, C-contiguous, 256 bins)
// += the count of each perimeter code. On the input's device.
void window_codes(const View& in, const View& hist, StreamHandle stream = nullptr);
void perimeter_codes(const View& img, bool eight, const View& hist, StreamHandle stream = nullptr);

void window_codes_cpu(const View& in, int64_t* hist);
void perimeter_codes_cpu(const View& img, bool eight, int64_t* hist);
#ifdef NDIMG_WITH_CUDA
void window_codes_cuda(const View& in, int64_t* hist, StreamHandle s);
void perimeter_codes_cuda(const View& img, bool eight, int64_t* hist, StreamHandle s);
#endif

}  // namespace ndimg::measure
