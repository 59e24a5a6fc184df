// CLAHE: the math of one tile (clipping, redistribution, the cumulative map) and of one element (the
// interpolation between tile maps), written once for both engines, and the engine schedules' declarations.
#pragma once
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/clahe.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::histogram::clahe_math {

constexpr int64_t kGrey = 16384;   // grey levels of the maps (scikit-image's NR_OF_GRAY)
constexpr int kMaxClaheDim = 16;   // the entries' limit (2^ndim tiles meet at every element): small kernel arguments

// Geometry shared by the schedules: per axis the length of the array at hand, its first element's index in
// the whole image (0 but for clahe_apply's blocks), the tile length and the whole image's number of tiles.
struct Geometry {
  int ndim = 0;
  int64_t shape[kMaxClaheDim];
  int64_t origin[kMaxClaheDim];
  int64_t kernel[kMaxClaheDim];
  int64_t tiles[kMaxClaheDim];
  int64_t ntiles = 1;        // all tiles
  int64_t tile_size = 1;     // elements of one tile
  int64_t nbins = 0;
  int64_t clip_limit = 0;
};

// NumPy's 'reflect' padding (the edge not repeated), repeated as np.pad repeats it: the index in [0, n)
// that padded index x reads (x >= 0).
NDIMG_HD int64_t reflect(int64_t x, int64_t n) {
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  const int64_t m = x % period;
  return m < n ? m : period - m;
}

// scikit-image's clip_histogram: bins above `limit` cut to it, the excess spread evenly over the bins below,
// the rest one count at a time over strided bins, until nothing is left or a pass places nothing.
NDIMG_HD void clip_histogram(int64_t* hist, int64_t nbins, int64_t limit) {
  int64_t excess = 0;
  for (int64_t b = 0; b < nbins; ++b)
    if (hist[b] > limit) {
      excess += hist[b] - limit;
      hist[b] = limit;
    }
  const int64_t incr = excess / nbins;
  const int64_t upper = limit - incr;
  for (int64_t b = 0; b < nbins; ++b)
    if (hist[b] < upper) {
      hist[b] += incr;
      excess -= incr;
    }
  for (int64_t b = 0; b < nbins; ++b)   // after the even share: bins in [upper, limit) are filled up
    if (hist[b] >= upper && hist[b] < limit) {
      excess += hist[b] - limit;
      hist[b] = limit;
    }
  int64_t under = 0;
  for (int64_t b = 0; b < nbins; ++b) under += hist[b] < limit;
  while (excess > 0) {
    const int64_t before = excess;
    for (int64_t index = 0; index < nbins; ++index) {
      int64_t step = under / excess;
      if (step < 1) step = 1;
      int64_t placed = 0;
      for (int64_t b = index; b < nbins; b += step)   // the bins under the limit before this step, each once
        if (hist[b] < limit) {
          ++placed;
          if (++hist[b] == limit) --under;
        }
      excess -= placed;
      if (excess <= 0) break;
    }
    if (before == excess) break;
  }
}

// scikit-image's map_histogram to [0, kGrey - 1]: the cumulative counts scaled by (kGrey - 1) / n_pixels in
// double, capped, truncated.
NDIMG_HD void map_histogram(const int64_t* hist, int64_t nbins, int64_t n_pixels, uint16_t* map) {
  const double scale = double(kGrey - 1) / double(n_pixels);
  int64_t sum = 0;
  for (int64_t b = 0; b < nbins; ++b) {
    sum += hist[b];
    double v = double(sum) * scale;
    if (v > double(kGrey - 1)) v = double(kGrey - 1);
    map[b] = static_cast<uint16_t>(static_cast<int64_t>(v));
  }
}

// The grey bin of value v: the table's, kept in [0, nbins) (a table with other values cannot write outside
// the histograms).
NDIMG_HD int64_t bin_of(const int32_t* bins, int64_t v, int64_t nbins) {
  const int64_t b = bins[v];
  return b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
}

// Where element x of an axis sits between tile centres: the tiles before and after it (clamped at the
// ends, as the maps' edge padding) and the fraction (x + k/2) % k / k of the way, in double as np.arange(k)/k.
struct AxisPos {
  int64_t tile[2];
  double frac[2];   // weight of tile[0] (1 - c) and of tile[1] (c)
};
NDIMG_HD AxisPos axis_pos(int64_t x, int64_t k, int64_t ntiles) {
  const int64_t p = x + k / 2;
  const int64_t b = p / k;
  const double c = double(p % k) / double(k);
  AxisPos a;
  a.tile[0] = b - 1 < 0 ? 0 : (b - 1 > ntiles - 1 ? ntiles - 1 : b - 1);
  a.tile[1] = b > ntiles - 1 ? ntiles - 1 : b;
  a.frac[0] = 1.0 - c;
  a.frac[1] = c;
  return a;
}

// One element: the 2^ndim corners in C order (the last axis fastest), each weight the product of the axes'
// fractions from the last axis to the first, each term map * weight rounded to float32, summed in float32.
// tile_stride[d]: tiles per step of axis d in the maps (row-major over the tile grid). ND > 0: ndim known at
// compile time (the loops unrolled), 0: ndim at run time.
template <int ND>
NDIMG_HD float interpolate(int ndim_rt, const AxisPos* pos, const int64_t* tile_stride, const uint16_t* maps,
                           int64_t nbins, int64_t bin) {
  const int ndim = ND > 0 ? ND : ndim_rt;
  float acc = 0.0f;
  const int64_t corners = int64_t(1) << ndim;
  for (int64_t c = 0; c < corners; ++c) {
    const int last = int((c >> 0) & 1);
    double w = pos[ndim - 1].frac[last];
    int64_t tile = pos[ndim - 1].tile[last] * tile_stride[ndim - 1];
    for (int d = ndim - 2; d >= 0; --d) {
      const int e = int((c >> (ndim - 1 - d)) & 1);
      w = w * pos[d].frac[e];
      tile += pos[d].tile[e] * tile_stride[d];
    }
    acc += static_cast<float>(double(maps[tile * nbins + bin]) * w);
  }
  return acc;
}

}  // namespace ndimg::histogram::clahe_math

namespace ndimg::histogram {
void clahe_maps_cpu(const View& in, const View& bins, const clahe_math::Geometry& g, const View& maps);
void clahe_apply_cpu(const View& in, const View& bins, const clahe_math::Geometry& g, const View& maps,
                     const View& out);
#ifdef NDIMG_WITH_CUDA
void clahe_maps_cuda(const View& in, const View& bins, const clahe_math::Geometry& g, const View& maps, StreamHandle s);
void clahe_apply_cuda(const View& in, const View& bins, const clahe_math::Geometry& g, const View& maps,
                      const View& out, StreamHandle s);
#endif
}  // namespace ndimg::histogram
