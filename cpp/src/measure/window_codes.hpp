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

// Entry: in (any dtype: nonzero elements are set; 2 or 3 axes), hist (int64, C-contiguous, 16 or 256 bins)
// += the count of each code, on in's device.
void window_codes(const View& in, const View& hist, StreamHandle stream = nullptr);

void window_codes_cpu(const View& in, int64_t* hist);
#ifdef NDIMG_WITH_CUDA
void window_codes_cuda(const View& in, int64_t* hist, StreamHandle s);
#endif

}  // namespace ndimg::measure
