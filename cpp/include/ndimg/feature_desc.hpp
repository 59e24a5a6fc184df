// ndimg::feature descriptors — the per-pixel and per-window parts of skimage.feature's dense descriptors
// (HOG's cell histograms and block normalisation, Haar-like features on an integral image), on either engine.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::feature {

// HOG's cell histograms (skimage.feature.hog's third stage): `image` is a C-contiguous float32 or float64
// (rows, cols, channels) array; each pixel's gradient is the central difference along rows and along columns
// (0 on the first and last row/column), computed in the image's type; with several channels the channel of
// the largest gradient magnitude (the first of equals) gives it. `hist` is a C-contiguous float64
// (n_cells_row, n_cells_col, orientations) array: hist[i, j, o] is the sum, accumulated in float32 in row
// order, of the magnitudes of the pixels of cell (i, j) whose orientation (degrees in [0, 180)) lies in
// bin o, divided by the cell's area in float32.
void hog_histograms(const View& image, int64_t cell_rows, int64_t cell_cols, const View& hist,
                    StreamHandle stream = nullptr);

enum class HogNorm : int { L1 = 0, L1Sqrt = 1, L2 = 2, L2Hys = 3 };

// HOG's block normalisation: `blocks` (n_blocks_row, n_blocks_col, block_rows, block_cols, orientations),
// C-contiguous float32 or float64, gets each block of cells of `hist` (float64, as above) normalised by
// `norm` in double precision (eps = 1e-5).
void hog_normalize(const View& hist, HogNorm norm, const View& blocks, StreamHandle stream = nullptr);

// Haar-like features: `rects` is a C-contiguous int64 (n_features, n_rects, 4) array of inclusive rectangles
// (r0, c0, r1, c1) inside the C-contiguous 2-D integral image `ii` (any integer or float dtype). Each
// rectangle's sum is taken in the integral image's type (integers wrap), then converted to `out`'s type
// (int64 for integer images, wrapping unsigned sums as a same-width signed cast; float32/float64 otherwise),
// and out[f] = (sum of the odd rectangles) - (sum of the even ones), each side summed in index order.
void haar_features(const View& ii, const View& rects, const View& out, StreamHandle stream = nullptr);

// Every Haar-like feature of one type (0 to 4: type-2-x, type-2-y, type-3-x, type-3-y, type-4) of a
// (height, width) window, in scikit-image's order (top left corner row, column, rectangle height, width):
// their number, their rectangles as `haar_features` takes them (out: host int64 (count, n_rects, 4)), and
// their values on `window`, the (height, width) window of an integral image (out as for haar_features).
int64_t haar_feature_count(int64_t type, int64_t height, int64_t width);
void haar_rects(int64_t type, int64_t height, int64_t width, const View& out);
void haar_window_features(const View& window, int64_t type, const View& out, StreamHandle stream = nullptr);

// Hamming distances of binary descriptors packed in bits (numpy.packbits along the descriptor, padded to whole
// uint64 words): `a` (n1, words) and `b` (n2, words) C-contiguous uint64, `out` (n1, n2) C-contiguous float64
// = the number of differing bits / nbits, as scipy's cdist(metric='hamming') divides them.
void hamming_distances(const View& a, const View& b, int64_t nbits, const View& out, StreamHandle stream = nullptr);

// The MB-LBP cascade classifier's sliding-window pass at one scale (skimage.feature.Cascade): `ii` is a
// C-contiguous float32 integral image; window (i, j) has its top left corner at (i * step, j * step) and
// out[i, j] (a C-contiguous uint8 array) is 1 where every stage passes. The classifier's tables, contiguous:
// `stumps` int64 (n_stumps, 5): the stump's MB-LBP block (r, c, width, height), already scaled, and the first
// of its 8 uint32 `luts` words; `leaves` float32 (n_stumps, 2): the points added when the LUT bit is set, and
// when it is not; `stages` int64 (n_stages, 2): first stump and count; `limits` float32 (n_stages): the
// stage's threshold minus eps, below which its float32 sum of points rejects the window. Block sums are
// taken in float32 from the integral image's corners; a window whose blocks reach outside it is rejected.
void cascade_windows(const View& ii, const View& stumps, const View& leaves, const View& luts, const View& stages,
                     const View& limits, int64_t step, const View& out, StreamHandle stream = nullptr);

}  // namespace ndimg::feature
