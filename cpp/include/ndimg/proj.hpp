// ndimg::proj — voting and projection transforms (Hough lines and circles, Radon projection and back
// projection, SART updates) on either engine, with scikit-image 0.26's arithmetic: integer accumulators
// equal its voting loops exactly, floating-point sums follow its order of operations.
// Points are given as contiguous int64 row and column arrays (numpy.nonzero's order); arrays are
// C-contiguous and on one device.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::proj {

// The (row, column) indices of the nonzero elements (NaN counts as nonzero) of a 2-D host image, in C
// order, into ys and xs (contiguous int64, as many as there are such elements): numpy.nonzero, in parallel.
void nonzero(const View& image, const View& ys, const View& xs);

// accum[round(cos[j] * x + sin[j] * y) + offset, j] += 1 for every point (y, x) and angle j; accum is a
// (2 * offset + 1, len(cos)) uint64 array (round: half away from zero).
void hough_line(const View& ys, const View& xs, std::span<const double> cos, std::span<const double> sin,
                int64_t offset, const View& accum, StreamHandle stream = nullptr);

// For each radius r[i], every point adds `normalize ? 1 / P : 1` (P: the points of Bresenham's circle of
// radius r[i], duplicates counted as skimage.draw.circle_perimeter gives them) at each perimeter point
// around it shifted by `shift`, in out[i] ((len(r), M, N) float64, zeroed by the caller); votes outside
// out are dropped. Each cell equals the sequential float64 sum of its votes.
void hough_circle(const View& ys, const View& xs, std::span<const int64_t> radii, int64_t shift, bool normalize,
                  const View& out, StreamHandle stream = nullptr);

// The Radon projections of a square float image (N, N): out[c, a] (out (N, len)) is the sum over rows r,
// in order and in the image's type, of the bilinear sample (constant 0 outside) of the image at
// (H[a][3] c + H[a][4] r + H[a][5], H[a][0] c + H[a][1] r + H[a][2]) with the six coefficients of angle a
// (`matrix`, 6 per angle) rounded to the image's type: skimage.transform.warp of the rotation, summed.
void radon(const View& image, std::span<const double> matrix, const View& out, StreamHandle stream = nullptr);

enum class Interp : int { Linear = 0, Nearest = 1, Cubic = 2 };

// Filtered back projection: out[i, j] (S, S; float32 or float64) += the projection of angle a (row a of
// `proj`, (len(cos), n) float64 sampled at x = k - n // 2) interpolated at
// t = (j - radius) cos[a] - (i - radius) sin[a], angle after angle, each term in double then added in
// out's type; 0 outside [x_0, x_n-1]. Linear: numpy.interp; nearest: scipy's interp1d(kind='nearest');
// cubic: the B-spline of `knots` whose coefficients are proj's rows (scipy's make_interp_spline, k = 3).
void backproject(const View& proj, std::span<const double> cos, std::span<const double> sin, int64_t radius,
                 Interp interp, std::span<const double> knots, const View& out, StreamHandle stream = nullptr);

// One SART iteration in place on `image` (N, N): for each projection a in order (row a of `projections`,
// (angles, P), at theta[a] degrees, its rays at i + shift[a]), the update of skimage's
// sart_projection_update (each ray's deviation of the projection from the ray sums of the image, spread
// back bilinearly with a Hamming window), then image += relaxation * update (relaxation in the image's
// type, as NumPy takes a Python float) and, with two clip values, the image clipped to them. image and
// projections share one float type.
void sart(const View& image, const View& projections, std::span<const double> theta, std::span<const double> shift,
          double relaxation, std::span<const double> clip, StreamHandle stream = nullptr);

// The ellipses of scikit-image's hough_ellipse (host only): 6 values per ellipse (accumulator, yc, xc, a,
// b, orientation) in its order, for the points (ys, xs).
std::vector<double> hough_ellipse(const View& ys, const View& xs, int64_t threshold, double accuracy,
                                  int64_t min_size, double max_b_squared);

// scikit-image's progressive probabilistic Hough transform (host only): the points (ys, xs) of an image
// (height, width) visited in the order `order` (indices into the points); 4 values per line (x0, y0, x1,
// y1).
std::vector<int64_t> probabilistic_hough_line(const View& ys, const View& xs, const View& order, int64_t height,
                                              int64_t width, int64_t threshold, int64_t line_length,
                                              int64_t line_gap, std::span<const double> cos,
                                              std::span<const double> sin);

}  // namespace ndimg::proj
