// ndimg::feature — the per-pixel kernels of skimage.feature's edge, texture and corner detectors on 2-D
// C-contiguous float images: Canny's non-maximum suppression, local binary patterns, FAST and Moravec
// corner responses. Each is scikit-image's loop to the bit, on either engine.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::feature {

// The gradient magnitude sqrt(gi^2 + gj^2) of 2-D float gradients as NumPy computes it in their type.
void gradient_magnitude(const View& gi, const View& gj, const View& out, StreamHandle stream = nullptr);

// Canny's bilinear non-maximum suppression of the gradient magnitude `mag` (gradient_magnitude of gi, gj)
// along the gradient direction, where `mask` (uint8/bool) is set and the magnitude is at least `low`
// (compared in double). out (uint8) = 0 suppressed, 1 an edge candidate, 2 a candidate whose magnitude is
// at least `high`. Pixels of the image's outer frame are 0.
void canny_suppress(const View& gi, const View& gj, const View& mag, const View& mask, double low, double high,
                    const View& out, StreamHandle stream = nullptr);

// Canny's hysteresis on the host: out (bool) marks the candidates (classes >= 1) 8-connected to a strong one
// (classes == 2). Classes and out are C-contiguous 2-D host arrays (the CUDA engine labels the candidates).
void canny_hysteresis(const View& classes, const View& out);

// Local binary patterns of a float64 image at the P = len(rp) circle offsets (rp[i], cp[i]) (sampled
// bilinearly, zero outside), into float64 `out`.
enum class LbpMethod : int { Default = 0, Ror = 1, Uniform = 2, NriUniform = 3, Var = 4 };
void local_binary_pattern(const View& image, std::span<const double> rp, std::span<const double> cp,
                          LbpMethod method, const View& out, StreamHandle stream = nullptr);

// FAST corner response (segment test of n contiguous pixels of the radius-3 circle brighter or darker than
// the centre by `threshold`, compared in the image's type), 0 within 3 pixels of the border.
void corner_fast(const View& image, int n, double threshold, const View& out, StreamHandle stream = nullptr);

// Moravec corner response: the smallest sum of squared differences between the window around a pixel and
// the windows shifted diagonally within `window_size`; 0 within 2 * window_size of the border.
void corner_moravec(const View& image, int64_t window_size, const View& out, StreamHandle stream = nullptr);

// Properties of gray-level co-occurrence matrices (skimage.feature.graycoprops): `P` C-contiguous (levels,
// levels, n) of any real dtype (the n matrices interleaved: graycomatrix's distances x angles), `out` float64 (n).
// Each matrix is taken in float64 over its sum (1 when 0), and every sum over it runs in (row, column) order, as
// NumPy's sum over the two leading axes of several matrices adds them (bit-equal to scikit-image for n > 1).
enum class GlcmProp : int { Contrast = 0, Dissimilarity, Homogeneity, Asm, Energy, Correlation, Mean, Variance, Std };
void glcm_props(const View& P, GlcmProp prop, const View& out);

// Multi-block LBP code (0..255) of the 3x3 grid of (height, width) rectangles with top left corner (r, c) of a
// 2-D host integral image (any dtype), each rectangle summed in float32 from its corners as scikit-image does;
// -1 when the grid reads outside the image.
int64_t multiblock_lbp(const View& ii, int64_t r, int64_t c, int64_t width, int64_t height);

// Orientation (atan2 of the intensity centroid, in the image's float type) of each corner (rows of the
// C-contiguous int64 (n, 2) `corners`) over the odd-shaped uint8 `mask`, the image zero-padded by (mask rows
// / 2) before and (mask columns / 2) after on both axes, as scikit-image pads it; every neighbourhood must
// lie within that padding.
void corner_orientations(const View& image, const View& corners, const View& mask, const View& out,
                         StreamHandle stream = nullptr);

// Binary tests at keypoints (ORB's steered BRIEF; BRIEF itself with angle 0 and its pairs' axes swapped): bit j
// of keypoint i is image[p0] < image[p1], where pair j's (a, b) offsets (pairs: C-contiguous (m, 4), a0 b0 a1
// b1, the image's float type) are rotated by keypoint i's sine and cosine (the image's type, one per keypoint)
// as scikit-image's loop rotates them: rows kr + round(sin a + cos b), columns kc + round(cos a - sin b), each
// product and sum rounded in that type, round() half away from zero. Flat indices outside the image are
// clamped to it. keypoints: C-contiguous int64 (n, 2); out: C-contiguous bool (n, m).
void steered_pair_tests(const View& image, const View& keypoints, const View& sin, const View& cos,
                        const View& pairs, const View& out, StreamHandle stream = nullptr);

}  // namespace ndimg::feature
