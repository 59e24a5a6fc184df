// Host schedules of reconstruct.hpp. Reconstruction is Vincent's hybrid: a raster and an anti-raster scan
// take each element's earlier (later) sources, then a FIFO carries what the scans could not reach; each
// element is touched a few times, whatever the geodesic path lengths (iterating dilations until stable
// costs one pass per step of the longest path). The plateau and flood fills visit each element once.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <deque>
#include <iterator>
#include <type_traits>
#include <vector>

#include "core/parts.hpp"
#include "ndimg/dispatch.hpp"
#include "morphology/bottleneck_impl.hpp"
#include "morphology/reconstruct.hpp"

namespace ndimg::morphology {
namespace {

constexpr int kTiledThreads = 4;                  // fewer threads: serial (the tiles' summaries cost extra work)
constexpr int64_t kTiledSize = int64_t(1) << 20;  // smaller images: serial (thread starts, the summaries' cost)
constexpr int64_t kTileSize = int64_t(1) << 20;   // elements per automatic tile (see reconstruct_dilation_cpu)
constexpr int64_t kMinTileDepth = 6;               // automatic tiles: at least this many bands deep

// C-order starts of the interior's lines along the last axis (axes 0..ndim-2 inside lo/hi).
std::vector<int64_t> interior_lines(const View& v, std::span<const int64_t> lo, std::span<const int64_t> hi) {
  const int last = v.ndim - 1;
  int64_t count = 1;
  for (int d = 0; d < last; ++d) count *= v.shape[d] - lo[d] - hi[d];
  std::vector<int64_t> starts;
  if (count <= 0 || v.shape[last] - lo[last] - hi[last] <= 0) return starts;
  starts.reserve(size_t(count));
  int64_t c[kMaxDim] = {};
  for (int64_t k = 0; k < count; ++k) {
    int64_t s = lo[last];
    for (int d = 0; d < last; ++d) s += (lo[d] + c[d]) * v.strides[d];
    starts.push_back(s);
    for (int d = last - 1; d >= 0; --d) {  // next interior line, C order
      if (++c[d] < v.shape[d] - lo[d] - hi[d]) break;
      c[d] = 0;
    }
  }
  return starts;
}

// The FIFO of Vincent's hybrid: each queued element offers its value to its receivers, those raised are queued
// again. Reads and writes stay in [lo, hi): a tile's own rows (the whole buffer when serial).
template <class T>
void propagate(T* J, const T* I, std::span<const int64_t> offsets, std::deque<int64_t>& fifo, int64_t lo,
               int64_t hi) {
  while (!fifo.empty()) {
    const int64_t p = fifo.front();
    fifo.pop_front();
    const T v = J[p];
    for (int64_t o : offsets) {
      const int64_t q = p + o;
      if (q >= lo && q < hi && J[q] < v && J[q] < I[q]) {
        J[q] = std::min(v, I[q]);
        fifo.push_back(q);
      }
    }
  }
}

// The reconstruction over `lines` (each `width` long) with the elements outside [lo, hi) taken as absent:
// a source p - o with o > 0 can only fall below lo, one with o < 0 only at or above hi.
template <class T>
void reconstruct(T* J, const T* I, std::span<const int64_t> offsets, std::span<const int64_t> lines, int64_t width,
                 int64_t lo, int64_t hi) {
  std::vector<int64_t> before, after;  // sources earlier (later) in C order: p - o with o > 0 (o < 0)
  for (int64_t o : offsets) (o > 0 ? before : after).push_back(o);
  for (int64_t s : lines)
    for (int64_t p = s; p < s + width; ++p) {
      T v = J[p];
      for (int64_t o : before)
        if (p - o >= lo) v = std::max(v, J[p - o]);
      J[p] = std::min(v, I[p]);
    }
  std::deque<int64_t> fifo;
  for (auto l = lines.rbegin(); l != lines.rend(); ++l)
    for (int64_t p = *l + width - 1; p >= *l; --p) {
      T v = J[p];
      for (int64_t o : after)
        if (p - o < hi) v = std::max(v, J[p - o]);
      v = std::min(v, I[p]);
      J[p] = v;
      // a receiver already scanned that p could still raise: p goes on the queue
      for (int64_t o : before) {
        const int64_t q = p + o;
        if (q < hi && J[q] < v && J[q] < I[q]) {
          fifo.push_back(p);
          break;
        }
      }
    }
  propagate(J, I, offsets, fifo, lo, hi);
}

// One tile of the tiled reconstruction: interior rows [a, b) along axis 0, the buffer's flat [begin, end).
// Its border elements (those in the band of `reach` rows next to another tile) are numbered in C order: `top`
// and `bottom` hold their numbers over its first and last `band_len` flat elements (-2 on the padding).
struct Tile {
  int64_t a = 0, b = 0, begin = 0, end = 0, band_len = 0, base = 0;  // base: its first border number overall
  std::vector<int32_t> top, bottom;
  std::vector<int64_t> border;  // flat index of each border element
  std::vector<int64_t> edges;   // the forest's edges (pairs of this tile's numbers) and their weights
  std::vector<double> weights;
};

// Reconstruction over tiles of rows, exact: (1) each tile is reconstructed alone and its border summarised
// as for a Dask chunk (morphology/_reconstruction_dask.py): its values there and the maximum spanning forest
// of its border under its bottleneck metric; (2) widest paths over the forests and the neighbour pairs
// across tile borders give every border element its value in the whole image; (3) each tile's raised border
// elements flood it again from its own result (a reconstruction's result is a fixed point: only what the
// raised elements reach changes). Stages 1 and 3 write only their own tile's rows, on the threads.
template <class T>
void reconstruct_tiles(T* J, const T* I, std::span<const int64_t> offsets, std::span<const int64_t> lines,
                       int64_t width, int64_t rows, int64_t reach, int64_t row_stride, int64_t first_row,
                       int64_t ntiles) {
  const int64_t per_row = int64_t(lines.size()) / rows;  // interior lines per row
  std::vector<int64_t> halves;                           // each step once (the symmetric set takes it both ways)
  for (int64_t o : offsets)
    if (o > 0) halves.push_back(o);
  std::vector<Tile> tiles(ntiles);
  for (int64_t t = 0; t < ntiles; ++t) {
    Tile& tile = tiles[t];
    tile.a = t * rows / ntiles;
    tile.b = (t + 1) * rows / ntiles;
    tile.begin = (first_row + tile.a) * row_stride;
    tile.end = (first_row + tile.b) * row_stride;
    tile.band_len = reach * row_stride;
  }
  // numbers the interior elements of rows [ra, ra + reach) in `band` (flat from the band's first row)
  const auto number = [&](Tile& tile, std::vector<int32_t>& band, int64_t ra) {
    band.assign(size_t(tile.band_len), -2);
    const int64_t from = (first_row + ra) * row_stride;
    for (int64_t l = ra * per_row; l < (ra + reach) * per_row; ++l)
      for (int64_t p = lines[l]; p < lines[l] + width; ++p) {
        band[p - from] = int32_t(tile.border.size());
        tile.border.push_back(p);
      }
  };
  parallel_for(ntiles, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      Tile& tile = tiles[t];
      reconstruct(J, I, offsets, lines.subspan(tile.a * per_row, (tile.b - tile.a) * per_row), width, tile.begin,
                  tile.end);
      if (t > 0) number(tile, tile.top, tile.a);
      if (t < ntiles - 1) number(tile, tile.bottom, tile.b - reach);
      // the forest joins the elements the tile's reconstruction left below the mask: one raised to it carries
      // no more than its own value, a source of the same paths (NaN seeds, which carry nothing, stay out)
      const int64_t n = tile.end - tile.begin, tail = n - int64_t(tile.bottom.size());
      const T* Jt = J + tile.begin;
      const T* It = I + tile.begin;
      const auto id = [&](int64_t i) -> int32_t {
        if (!(Jt[i] < It[i])) return -2;
        if (i < int64_t(tile.top.size())) return tile.top[i];
        if (i >= tail) return tile.bottom[i - tail];
        return -1;
      };
      const auto emit = [&](int64_t u, int64_t v, double w) {
        tile.edges.insert(tile.edges.end(), {u, v});
        tile.weights.push_back(w);
      };
      bottleneck_forest_walk(It, n, halves, id, emit);
    }
  });
  // stage 2: one graph over every tile's border elements
  int64_t total = 0;
  for (Tile& tile : tiles) {
    tile.base = total;
    total += int64_t(tile.border.size());
  }
  std::vector<double> values(total);
  std::vector<int64_t> edges;
  std::vector<double> weights;
  for (const Tile& tile : tiles)
    for (size_t k = 0; k < tile.border.size(); ++k) {
      const T v = J[tile.border[k]];
      values[tile.base + k] = v == v ? double(v) : -INFINITY;  // a NaN seed carries nothing
    }
  for (int64_t t = 0; t < ntiles; ++t) {
    const Tile& tile = tiles[t];
    for (int64_t e : tile.edges) edges.push_back(tile.base + e);
    weights.insert(weights.end(), tile.weights.begin(), tile.weights.end());
    if (t + 1 == ntiles) break;
    // neighbours across the border with the next tile (a step spans at most `reach` rows). An element its
    // tile raised to the mask can rise no further: it gives its neighbour their pair's weight, no edge needed
    // (through it a path carries no more). A NaN seed gives and takes nothing.
    const Tile& next = tiles[t + 1];
    const int64_t from = tile.end - tile.band_len;
    for (int64_t i = 0; i < tile.band_len; ++i) {
      const int32_t u = tile.bottom[i];
      const int64_t p = from + i;
      if (u < 0 || J[p] != J[p]) continue;
      for (int64_t o : halves) {
        const int64_t q = p + o;
        if (q < next.begin) continue;
        const int32_t v = next.top[q - next.begin];
        if (v < 0 || J[q] != J[q]) continue;
        const double w = double(std::min(I[p], I[q]));
        const bool u_below = J[p] < I[p], v_below = J[q] < I[q];  // still below the mask
        if (u_below && v_below) {
          edges.insert(edges.end(), {tile.base + u, next.base + v});
          weights.push_back(w);
        } else if (u_below) {
          values[tile.base + u] = std::max(values[tile.base + u], w);
        } else if (v_below) {
          values[next.base + v] = std::max(values[next.base + v], w);
        }
      }
    }
  }
  widest_paths_walk(values.data(), total, edges.data(), weights.data(), int64_t(weights.size()));
  parallel_for(ntiles, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const Tile& tile = tiles[t];
      std::deque<int64_t> fifo;
      for (size_t k = 0; k < tile.border.size(); ++k) {
        const int64_t p = tile.border[k];
        const double g = values[tile.base + k];
        if (g > double(J[p])) {  // exact: g is some element's value of this type
          J[p] = T(g);
          fifo.push_back(p);
        }
      }
      propagate(J, I, offsets, fifo, tile.begin, tile.end);
    }
  });
}

template <class T>
void maxima(const T* img, uint8_t* flags, int64_t n, int64_t width, std::span<const int64_t> offsets,
            bool line_candidates) {
  bool symmetric = true;
  for (int64_t o : offsets) symmetric = symmetric && std::find(offsets.begin(), offsets.end(), -o) != offsets.end();
  // NaN compares false both ways: scikit-image's line candidates then decide which elements near it count
  std::atomic<bool> nan{false};
  if constexpr (std::is_floating_point_v<T>) {
    if (symmetric && line_candidates)
      parallel_for(n, 1 << 16, [&](int64_t a, int64_t b) {
        bool any = false;
        for (int64_t i = a; i < b; ++i) any |= img[i] != img[i];
        if (any) nan = true;
      });
  }
  if (symmetric && !nan) {
    // Every element off the border, on the threads (it reads values, writes its own flag): a higher
    // neighbour rules its plateau out (0); without one, no equal neighbour makes it a maximal plateau of its
    // own (1); else its plateau is filled below (2). Every maximal plateau holds an element that scikit-image's
    // line candidates would have started from, so the maxima are the same.
    // Few neighbours (2-D): blocks of elements, one neighbour offset at a time, contiguous compares the
    // compiler vectorises. Many (3-D and up): each element stops at its first higher neighbour.
    // Border elements (whose neighbours may lie outside) are skipped by the first and last block bounds.
    const int64_t first = std::find_if(flags, flags + n, [](uint8_t f) { return f != 3; }) - flags;
    const int64_t end = n - (std::find_if(std::make_reverse_iterator(flags + n), std::make_reverse_iterator(flags),
                                          [](uint8_t f) { return f != 3; }) - std::make_reverse_iterator(flags + n));
    constexpr int64_t kBlock = 4096;
    parallel_for((std::max<int64_t>(end - first, 0) + kBlock - 1) / kBlock, 16, [&](int64_t b0, int64_t b1) {
      uint8_t higher[kBlock], equal[kBlock];
      for (int64_t blk = b0; blk < b1; ++blk) {
        const int64_t a = first + blk * kBlock, len = std::min(kBlock, end - a);
        std::fill(higher, higher + len, uint8_t(0));
        std::fill(equal, equal + len, uint8_t(0));
        const T* h = img + a;
        if (offsets.size() <= 8) {
          for (int64_t o : offsets) {
            const T* q = h + o;
            for (int64_t k = 0; k < len; ++k) {
              higher[k] |= uint8_t(q[k] > h[k]);
              equal[k] |= uint8_t(q[k] == h[k]);
            }
          }
        } else {
          for (int64_t k = 0; k < len; ++k)
            for (int64_t o : offsets) {
              if (h[k + o] > h[k]) {
                higher[k] = 1;
                break;
              }
              equal[k] |= uint8_t(h[k + o] == h[k]);
            }
        }
        uint8_t* f = flags + a;
        for (int64_t k = 0; k < len; ++k)
          if (f[k] != 3) f[k] = higher[k] ? 0 : equal[k] ? 2 : 1;
      }
    });
  } else if (line_candidates) {
    // candidates: plateaus of a line strictly above their neighbours along it (flag 2). Every line starts
    // and ends on the border (flag 3), which no plateau crosses: whole lines go to the threads.
    const int64_t lines = n / width;
    parallel_for(lines, std::max<int64_t>(1, 4096 / width), [&](int64_t l0, int64_t l1) {
      for (int64_t i = std::max<int64_t>(1, l0 * width); i < l1 * width;) {
        if (img[i - 1] < img[i] && flags[i] != 3) {
          int64_t j = i + 1;
          while (j < n - 1 && img[j] == img[i] && flags[j] != 3) ++j;
          if (img[i] > img[j]) std::fill(flags + i, flags + j, uint8_t(2));
          i = j;
        } else {
          ++i;
        }
      }
    });
  }
  // the remaining candidates' whole plateaus, serially: maximal unless one meets a larger neighbour or the
  // border
  std::vector<int64_t> queue;
  for (int64_t s = 0; s < n; ++s) {
    if (flags[s] != 2) continue;
    const T h = img[s];
    bool top = true;
    queue.assign(1, s);
    flags[s] = 1;
    for (size_t k = 0; k < queue.size(); ++k) {
      const int64_t p = queue[k];
      for (int64_t o : offsets) {
        const int64_t q = p + o;
        if (img[q] == h) {
          if (flags[q] == 3) top = false;
          else if (flags[q] != 1) {
            flags[q] = 1;
            queue.push_back(q);
          }
        } else if (img[q] > h) {
          top = false;
        }
      }
    }
    if (!top)
      for (int64_t p : queue) flags[p] = 0;
  }
}

}  // namespace

void reconstruct_dilation_cpu(const View& marker, const View& mask, std::span<const int64_t> offsets,
                              std::span<const int64_t> lo, std::span<const int64_t> hi, int64_t tile_rows) {
  const auto lines = interior_lines(marker, lo, hi);
  const int last = marker.ndim - 1;
  const int64_t width = marker.shape[last] - lo[last] - hi[last];
  const int64_t rows = marker.shape[0] - lo[0] - hi[0];
  // Tiles of rows along axis 0, each at least two bands deep (a band: the padding's reach, at least a step's).
  // Automatic tiles hold about kTileSize elements (the summaries' union-find stays in cache; smaller ones make
  // more border to join serially), fewer where the threads would otherwise idle. A step that flows one way
  // has no symmetric summary: serial, as the Dask path's one chunk.
  bool symmetric = marker.ndim >= 2 && lo[0] == hi[0];
  for (int64_t o : offsets) symmetric = symmetric && std::find(offsets.begin(), offsets.end(), -o) != offsets.end();
  const int64_t depth = std::max<int64_t>(2 * lo[0], 1);
  int64_t ntiles = 1;
  if (symmetric && tile_rows > 0) {
    ntiles = rows / std::max(tile_rows, depth);
  } else if (symmetric && tile_rows == 0 && num_threads() >= kTiledThreads && marker.size() >= kTiledSize) {
    const int64_t per_tile = std::min(kTileSize, marker.size() / num_threads());
    ntiles = rows / std::max(kMinTileDepth * depth, per_tile / marker.strides[0]);
  }
  const auto run = [&]<class T>(T* J, const T* I) {
    if (ntiles >= 2)
      reconstruct_tiles(J, I, offsets, lines, width, rows, lo[0], marker.strides[0], lo[0], ntiles);
    else
      reconstruct(J, I, offsets, lines, width, 0, marker.size());
  };
  if (marker.dtype == DType::F32) run(marker.ptr<float>(), mask.ptr<float>());
  else run(marker.ptr<double>(), mask.ptr<double>());
}

void plateau_maxima_cpu(const View& image, const View& flags, std::span<const int64_t> offsets, bool line_candidates) {
  dispatch_dtype(image.dtype, [&]<class T>() {
    maxima(image.ptr<T>(), flags.ptr<uint8_t>(), image.size(), image.shape[image.ndim - 1], offsets, line_candidates);
  });
}

void flood_flags_cpu(const View& flags, std::span<const int64_t> offsets, int64_t seed) {
  uint8_t* f = flags.ptr<uint8_t>();
  std::vector<int64_t> queue{seed};
  f[seed] = 3;
  for (size_t k = 0; k < queue.size(); ++k)
    for (int64_t o : offsets) {
      const int64_t q = queue[k] + o;
      if (f[q] == 1) {
        f[q] = 3;
        queue.push_back(q);
      }
    }
}

}  // namespace ndimg::morphology
