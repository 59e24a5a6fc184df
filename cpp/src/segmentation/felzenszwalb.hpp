// ndimg::segmentation Felzenszwalb's graph segmentation: scikit-image 0.26's greedy merge over the
// 8-connected grid's edges, so the labels equal its labels. The edge weights on either engine (the math
// below, once), the sort on the device (CUDA engine), the merge on the host (it is sequential and
// order-dependent: each test reads the sizes and internal costs all earlier merges left).
#pragma once
#include <cmath>
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::segmentation {

// The edge weights of an (H, W, C) float64 image (C-contiguous, C < 8) into costs (float64, one per edge,
// 4 H W - 3 H - 3 W + 2 of them, on the image's device), in skimage's order (right, down, down-right,
// up-right edges, each block in C order over its grid): the square root of the sum over channels, in channel
// order, of the squared differences (NumPy's np.sum over fewer than 8 elements adds them in order, so these
// equal skimage's weights bit for bit).
void felzenszwalb_costs(const View& image, const View& costs, StreamHandle stream = nullptr);

// CUDA engine only: the edges sorted stably by cost (CUB's radix sort: ties by edge index), the sorted costs
// into sorted and the edge indices into order (int64), all on one device. Equal to skimage's np.argsort
// wherever no two costs tie (its quicksort orders ties its own way: the caller decides which ties matter).
void felzenszwalb_sort(const View& costs, const View& sorted, const View& order, StreamHandle stream = nullptr);

// Host: order (int64) the edges by increasing cost (skimage's numpy.argsort of costs, ties as it leaves
// them). Merges components in that order while the cost is below both components' internal cost +
// scale / size (taken in float32, as skimage's), then joins every edge's components while either is smaller
// than min_size; writes each pixel's component numbered by its first pixel in raster order (from 0) into
// labels ((H, W) int64).
void felzenszwalb_merge(const View& costs, const View& order, double scale, int64_t min_size, const View& labels);

// ---- engine schedules (arguments validated by the entry; H, W > 0) ----
void felzenszwalb_costs_cpu(const View& image, const View& costs);
#ifdef NDIMG_WITH_CUDA
void felzenszwalb_costs_cuda(const View& image, const View& costs, StreamHandle stream);
void felzenszwalb_sort_cuda(const View& costs, const View& sorted, const View& order, StreamHandle stream);
#endif

// ---- the math, shared by both engines ----
namespace fz_math {

// The grid's edge blocks: nR right edges, nD down edges, nX down-right and nX up-right edges.
template <class I>
struct Grid {
  I W, nR, nD, nX;
  NDIMG_HD static Grid of(I H, I W) { return {W, H * (W - 1), (H - 1) * W, (H - 1) * (W - 1)}; }
  NDIMG_HD int64_t edges() const { return int64_t(nR) + nD + 2 * int64_t(nX); }
  // the (later, earlier) pixels of edge e, as skimage pairs and subtracts them
  NDIMG_HD void ends(I e, I& later, I& earlier) const {
    if (e < nR) {
      earlier = e / (W - 1) * W + e % (W - 1);
      later = earlier + 1;
      return;
    }
    e -= nR;
    if (e < nD) {
      earlier = e;
      later = e + W;
      return;
    }
    e -= nD;
    const bool down_right = e < nX;
    if (!down_right) e -= nX;
    const I p = e / (W - 1) * W + e % (W - 1);   // the top-left pixel of the edge's 2x2 square
    if (down_right) {
      earlier = p;
      later = p + W + 1;
    } else {
      earlier = p + 1;
      later = p + W;
    }
  }
};

// The weight between pixels a and b of a C-channel float64 image: each difference and square rounded on
// its own, summed in channel order, the square root correctly rounded (as NumPy's).
NDIMG_HD double weight(const double* im, int64_t C, int64_t a, int64_t b) {
  const double* p = im + a * C;
  const double* q = im + b * C;
  double s = square_rn(sub_rn(p[0], q[0]));
  for (int64_t c = 1; c < C; ++c) s = add_rn(s, square_rn(sub_rn(p[c], q[c])));
  return sqrt(s);
}

}  // namespace fz_math
}  // namespace ndimg::segmentation
