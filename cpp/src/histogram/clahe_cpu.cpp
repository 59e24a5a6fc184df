// CLAHE's CPU schedules: the tiles' histograms and maps in parallel over tiles (each tile read row by row
// through per-axis tables of reflected indices); the elements in parallel over rows.
#include <algorithm>
#include <tuple>
#include <vector>

#include "histogram/clahe.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::histogram {
namespace {

using namespace clahe_math;

// The maps of every tile (ntiles x nbins, row-major over the tile grid).
template <class T>
void tile_maps(const T* src, const int32_t* bins, const Geometry& g, uint16_t* maps) {
  const int nd = g.ndim;
  // per axis: the source index of every padded index a tile reads
  std::vector<std::vector<int64_t>> refl(nd);
  int64_t stride[kMaxClaheDim];
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d) {
    stride[d] = s;
    s *= g.shape[d];
    refl[d].resize(g.tiles[d] * g.kernel[d]);
    for (int64_t x = 0; x < int64_t(refl[d].size()); ++x) refl[d][x] = reflect(x, g.shape[d]) * stride[d];
  }
  const int64_t klast = g.kernel[nd - 1], rows = g.tile_size / klast;
  parallel_for(g.ntiles, 1, [&, klast, rows](int64_t t0, int64_t t1) {
    const int64_t nbins = g.nbins;
    // four interleaved histograms: runs of equal values do not wait on one counter's increments
    std::vector<int64_t> hist(4 * nbins);
    for (int64_t t = t0; t < t1; ++t) {
      int64_t tile[kMaxClaheDim];
      int64_t r = t;
      for (int d = nd - 1; d >= 0; r /= g.tiles[d], --d) tile[d] = r % g.tiles[d];
      std::fill(hist.begin(), hist.end(), 0);
      int64_t *h0 = hist.data(), *h1 = h0 + nbins, *h2 = h1 + nbins, *h3 = h2 + nbins;
      const int64_t* last = refl[nd - 1].data() + tile[nd - 1] * klast;
      for (int64_t row = 0; row < rows; ++row) {
        int64_t base = 0, q = row;
        for (int d = nd - 2; d >= 0; q /= g.kernel[d], --d) base += refl[d][tile[d] * g.kernel[d] + q % g.kernel[d]];
        const T* p = src + base;
        int64_t i = 0;
        for (; i + 4 <= klast; i += 4) {
          ++h0[bin_of(bins, p[last[i]], nbins)];
          ++h1[bin_of(bins, p[last[i + 1]], nbins)];
          ++h2[bin_of(bins, p[last[i + 2]], nbins)];
          ++h3[bin_of(bins, p[last[i + 3]], nbins)];
        }
        for (; i < klast; ++i) ++h0[bin_of(bins, p[last[i]], nbins)];
      }
      for (int64_t b = 0; b < nbins; ++b) h0[b] += h1[b] + h2[b] + h3[b];
      clip_histogram(hist.data(), g.nbins, g.clip_limit);
      map_histogram(hist.data(), g.nbins, g.tile_size, maps + t * g.nbins);
    }
  });
}

template <class T, int ND>
void interpolate_all(const T* src, const int32_t* bins, const Geometry& g, const uint16_t* maps, uint16_t* dst,
                     int64_t size) {
  const int nd = g.ndim;
  int64_t tile_stride[kMaxClaheDim];
  for (int64_t d = nd - 1, s = 1; d >= 0; s *= g.tiles[d], --d) tile_stride[d] = s;
  const int64_t n = g.shape[nd - 1], rows = size / n;
  std::vector<AxisPos> last(n);
  for (int64_t x = 0; x < n; ++x) last[x] = axis_pos(g.origin[nd - 1] + x, g.kernel[nd - 1], g.tiles[nd - 1]);
  parallel_for(rows, std::max<int64_t>(1, (1 << 14) / n), [&](int64_t r0, int64_t r1) {
    AxisPos pos[kMaxClaheDim];
    for (int64_t row = r0; row < r1; ++row) {
      int64_t r = row;
      for (int d = nd - 2; d >= 0; r /= g.shape[d], --d)
        pos[d] = axis_pos(g.origin[d] + r % g.shape[d], g.kernel[d], g.tiles[d]);
      const T* s = src + row * n;
      uint16_t* o = dst + row * n;
      for (int64_t x = 0; x < n; ++x) {
        pos[nd - 1] = last[x];
        o[x] = static_cast<uint16_t>(interpolate<ND>(nd, pos, tile_stride, maps, g.nbins, bin_of(bins, s[x], g.nbins)));
      }
    }
  });
}

template <class T>
void apply_nd(const View& in, const View& bins, const Geometry& g, const View& maps, const View& out) {
  const auto args = std::make_tuple(in.ptr<T>(), bins.ptr<int32_t>(), g, maps.ptr<uint16_t>(), out.ptr<uint16_t>(),
                                    in.size());
  switch (g.ndim) {
    case 1: return std::apply(interpolate_all<T, 1>, args);
    case 2: return std::apply(interpolate_all<T, 2>, args);
    case 3: return std::apply(interpolate_all<T, 3>, args);
    default: return std::apply(interpolate_all<T, 0>, args);
  }
}

}  // namespace

void clahe_maps_cpu(const View& in, const View& bins, const Geometry& g, const View& maps) {
  if (in.dtype == DType::U8) tile_maps(in.ptr<uint8_t>(), bins.ptr<int32_t>(), g, maps.ptr<uint16_t>());
  else tile_maps(in.ptr<uint16_t>(), bins.ptr<int32_t>(), g, maps.ptr<uint16_t>());
}

void clahe_apply_cpu(const View& in, const View& bins, const Geometry& g, const View& maps, const View& out) {
  if (in.dtype == DType::U8) apply_nd<uint8_t>(in, bins, g, maps, out);
  else apply_nd<uint16_t>(in, bins, g, maps, out);
}

}  // namespace ndimg::histogram
