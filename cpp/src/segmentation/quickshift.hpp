// ndimg::segmentation quick shift: scikit-image 0.26's density and parent search with its arithmetic (each
// density term exp'd in double and added in the image's type), so parents, distances and labels equal its
// own. The per-pixel math is here for both engines; the entry (quickshift.cpp) validates and routes.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::segmentation {

// image: (H, W, C) float32/float64, C-contiguous; densities: (H, W) of its type, holding the tie-breaking
// noise, to which every pixel's Parzen density over the window of half-width ceil(3 * kernel_size) is
// added; then parent ((H, W) int64) gets the flat index of the nearest pixel of the window (in joint
// colour-space distance, first in raster order) of higher density, or the pixel itself, and dist_parent
// (of the image's type) the distance to it (infinity without one). All on the image's device.
void quickshift(const View& image, double kernel_size, const View& densities, const View& parent,
                const View& dist_parent, StreamHandle stream = nullptr);

// ---- engine schedules (arguments validated by the entry; H, W > 0) ----
void quickshift_cpu(const View& image, double kernel_size, const View& densities, const View& parent,
                    const View& dist_parent);
#ifdef NDIMG_WITH_CUDA
void quickshift_cuda(const View& image, double kernel_size, const View& densities, const View& parent,
                     const View& dist_parent, StreamHandle stream);
#endif

// ---- the math, shared by both engines ----
namespace qs_math {

// The window's half-width and the density exponent's factor, from kernel_size in the image's type T.
template <class T>
struct Params {
  int64_t kw;
  T inv;
};
template <class T>
inline Params<T> params(double kernel_size) {
  const T ks = T(kernel_size);
  return {int64_t(std::ceil(double(T(3) * ks))), T(-0.5 / double(ks * ks))};
}

// One colour channel's term of the squared joint distance, (a - q)^2 (skimage's sum starts from 0, and
// 0 + t * t is t * t).
template <class T>
NDIMG_HD T colour_term(T a, T q) {
  return square_rn(sub_rn(a, q));
}

// The squared joint distance from its colour sum: plus the row offset's square, then the column's.
template <class T>
NDIMG_HD T with_offsets(T colour, T row_sq, int64_t dc) {
  return add_rn(add_rn(colour, row_sq), square_rn(T(dc)));
}

// The squared joint distance of pixels p and q (flat indices) of an interleaved (H, W, C) image, summed in
// skimage's order: channels from 0, then the row offset dr, then the column offset dc.
template <class T>
NDIMG_HD T joint_distance2(const T* img, int64_t C, int64_t p, int64_t q, int64_t dr, int64_t dc) {
  T colour = T(0);
  for (int64_t ch = 0; ch < C; ++ch) {
    const T t = colour_term(img[p * C + ch], img[q * C + ch]);
    colour = ch == 0 ? t : add_rn(colour, t);
  }
  return with_offsets(colour, square_rn(T(dr)), dc);
}

// One Parzen term added to a density: exp in double, the sum rounded to the image's type.
template <class T>
NDIMG_HD T add_density(T acc, T dist2, T inv) {
  return T(double(acc) + ::exp(double(mul_rn(dist2, inv))));
}

// skimage's starting "closest" distance: DBL_MAX in the image's type (float32: infinity).
template <class T>
NDIMG_HD T no_parent() {
  if constexpr (std::is_same_v<T, float>) return T(INFINITY);
  else return T(DBL_MAX);
}

template <class T>
NDIMG_HD T parent_distance(T closest) {
  return T(::sqrt(double(closest)));
}

}  // namespace qs_math
}  // namespace ndimg::segmentation
