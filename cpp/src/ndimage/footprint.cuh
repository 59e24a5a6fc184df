// CUDA pieces shared by the footprint filters: tap tables in device memory, the tiled footprint schedule
// (a block's output tile and the footprint's halo in shared memory), and the output-dtype funnel
// (core/output.hpp) with its CUDA scratch and cast pass.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "core/output.hpp"
#include "ndimage/footprint.hpp"

namespace ndimg::ndimage {

// The taps' offsets and linear offsets, copied to the device on the caller's stream.
class DeviceTaps {
 public:
  DeviceTaps(const Taps& t, cudaStream_t s, const char* op)
      : mem_((t.offsets.size() + t.linear.size()) * sizeof(int64_t), s, op) {
    // pageable sources: each copy is staged before cudaMemcpyAsync returns
    if (!t.offsets.empty())
      cuda::check(cudaMemcpyAsync(mem_.get<int64_t>(), t.offsets.data(), t.offsets.size() * sizeof(int64_t),
                                  cudaMemcpyHostToDevice, s), op);
    if (!t.linear.empty())
      cuda::check(cudaMemcpyAsync(mem_.get<int64_t>() + t.offsets.size(), t.linear.data(),
                                  t.linear.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s), op);
    offsets = mem_.get<int64_t>();
    linear = offsets + t.offsets.size();
  }
  const int64_t* offsets = nullptr;
  const int64_t* linear = nullptr;

 private:
  cuda::Scratch mem_;
};

// The tiled schedule works on 2-D and 3-D arrays seen as (z, y, x), 2-D as z = 1. A block of kTileX x kTileY threads produces an output tile of PZ x (kTileY * PY) x kTileX
// elements, each thread PZ * PY of them, from a shared-memory tile of the input extended by the
// footprint's bounding box and boundary-extended once per element.
constexpr int kTileX = 32, kTileY = 8, kTileThreads = kTileX * kTileY;
// Shared memory for a tile and its tap table (the default limit of a block, no opt-in needed).
constexpr size_t kTileBytes = 48 << 10;
// The dynamic shared memory to launch with for `bytes` of tile and tables: 16 bytes of slack, as the
// compiler may read the last entries of a table of ints in paired 8-byte loads (compute-sanitizer's
// memcheck saw so[48] of 49 read as 8 bytes).
inline size_t tile_launch_bytes(size_t bytes) { return (bytes + 15) / 16 * 16 + 16; }

template <int PZ_, int PY_>
struct TileShape {
  static constexpr int PZ = PZ_, PY = PY_, OZ = PZ_, OY = kTileY * PY_, OX = kTileX;
};
// Flat footprints (a single z plane) take 32 x 32 tiles, volumes 8 x 8 x 32.
using FlatTile = TileShape<1, 4>;
using VolumeTile = TileShape<8, 1>;

struct Tiling {
  int64_t n[3];         // shape (z, y, x), the same for input and output
  int64_t is[3], os[3];  // element strides of input and output (any sign)
  int64_t lo[3];        // the footprint's lowest offset per axis (origins included)
  int box[3];           // the footprint's bounding box
  int e[3];             // the shared tile: output tile + box - 1
  int64_t tiles[3];     // tiles per axis
  NDIMG_HD int64_t count() const { return tiles[0] * tiles[1] * tiles[2]; }
  NDIMG_HD int64_t elems() const { return int64_t(e[0]) * e[1] * e[2]; }
};

// The tiling of taps `t` writing `out` with tile shape S, or false where the schedule does not apply
// (1-D arrays, whose tiles would leave all but one row idle; more than 3 dimensions; an output shaped
// unlike the input; no taps).
template <class S>
bool make_tiling(const Taps& t, const View& out, Tiling& g) {
  const Geometry& geo = t.geom;
  if (geo.ndim < 2 || geo.ndim > 3 || t.count == 0) return false;
  const int pad = 3 - geo.ndim;
  for (int a = 0; a < 3; ++a) {
    const int d = a - pad;
    if (d >= 0 && geo.in_shape[d] != geo.shape[d]) return false;
    g.n[a] = d < 0 ? 1 : geo.shape[d];
    g.is[a] = d < 0 ? 0 : geo.in_strides[d];
    g.os[a] = d < 0 ? 0 : out.strides[d];
    int64_t lo = 0, hi = 0;
    for (int64_t k = 0; d >= 0 && k < t.count; ++k) {
      const int64_t o = t.offsets[size_t(k * geo.ndim + d)];
      lo = k ? std::min(lo, o) : o;
      hi = k ? std::max(hi, o) : o;
    }
    if (hi - lo >= 4096) return false;  // keeps tile sizes in int (the byte budget decides the rest)
    g.lo[a] = lo;
    g.box[a] = int(hi - lo + 1);
    const int o = a == 0 ? S::OZ : a == 1 ? S::OY : S::OX;
    g.e[a] = o + g.box[a] - 1;
    g.tiles[a] = (g.n[a] + o - 1) / o;
  }
  return true;
}

// Flat index b of a tile -> the coordinates of its first output.
__device__ inline void tile_origin(const Tiling& g, int64_t b, int64_t* t0, int oz, int oy) {
  t0[2] = b % g.tiles[2] * kTileX;
  b /= g.tiles[2];
  t0[1] = b % g.tiles[1] * oy;
  t0[0] = b / g.tiles[1] * oz;
}

// Loads the tile of outputs from t0 with its halo: tile[(z * e[1] + y) * e[2] + x] holds the input at
// t0 + lo + (z, y, x), boundary-extended (cval where the mode supplies it) and read as C. The block's
// threads take consecutive elements (reads along x coalesce where x is the contiguous axis; rows of
// e[2] = 32 + box - 1 are not split per warp, which would leave most lanes idle on their tails), each
// stepping its (z, y, x) by the thread count without divisions. Returns whether any loaded value is NaN;
// the tile is ready (synchronized) on return.
template <class C, class TI>
__device__ bool load_tile(C* tile, const TI* in, const Tiling& g, const int64_t* t0, Mode mode, C cval) {
  const int nt = blockDim.x * blockDim.y, tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int e1 = g.e[1], e2 = g.e[2], total = g.e[0] * e1 * e2;
  const int dx = nt % e2, dr = nt / e2;  // the step of a flat index by nt, as (rows, x)
  int x = tid % e2, y = tid / e2, z = 0;
  while (y >= e1) y -= e1, ++z;
  int nan = 0;
  for (int i = tid; i < total; i += nt) {
    const int64_t gz = extend_index(t0[0] + g.lo[0] + z, g.n[0], mode);
    const int64_t gy = extend_index(t0[1] + g.lo[1] + y, g.n[1], mode);
    const int64_t gx = extend_index(t0[2] + g.lo[2] + x, g.n[2], mode);
    const C v = gz < 0 || gy < 0 || gx < 0 ? cval : C(in[gz * g.is[0] + gy * g.is[1] + gx * g.is[2]]);
    tile[i] = v;
    nan |= !(v == v);
    x += dx;
    y += dr;
    if (x >= e2) x -= e2, ++y;
    while (y >= e1) y -= e1, ++z;
  }
  return __syncthreads_or(nan);
}

// The tiled schedule: for every tile of the grid-stride loop, loads it (load_tile) and calls
// body(t0, nan) with the tile's first output and whether the tile holds NaN. The body reads the tile
// only; the next load waits for every thread to finish with it.
template <class S, class C, class TI, class Body>
__device__ void for_each_tile(C* tile, const TI* in, const Tiling& g, Mode mode, C cval, Body&& body) {
  const int64_t tiles = g.count();
  for (int64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    int64_t t0[3];
    tile_origin(g, b, t0, S::OZ, S::OY);
    __syncthreads();  // the previous tile is no longer read
    const bool nan = load_tile(tile, in, g, t0, mode, cval);
    body(t0, nan);
  }
}

// Output p < PZ * PY of this thread in the tile from t0: its tile-relative (z, y), and false where it
// lies outside the array (x is threadIdx.x).
template <class S>
__device__ inline bool tile_output(const Tiling& g, const int64_t* t0, int p, int& z, int& y) {
  z = p / S::PY;
  y = threadIdx.y + kTileY * (p % S::PY);
  return t0[0] + z < g.n[0] && t0[1] + y < g.n[1] && t0[2] + threadIdx.x < g.n[2];
}

// Where output p of this thread (tile_output's numbering) has its footprint's lowest corner in the tile.
template <class S>
__device__ inline int tile_base(const Tiling& g, int p) {
  return ((p / S::PY) * g.e[1] + threadIdx.y + kTileY * (p % S::PY)) * g.e[2] + threadIdx.x;
}

// Each tap's offset in the tile from tile_base: the tap tables of the tiled correlate and stencils.
inline std::vector<int> tile_tap_offsets(const Taps& t, const Tiling& g) {
  const int nd = t.geom.ndim, pad = 3 - nd;
  std::vector<int> off(size_t(t.count));
  for (int64_t k = 0; k < t.count; ++k) {
    int64_t r[3] = {0, 0, 0};
    for (int d = 0; d < nd; ++d) r[d + pad] = t.offsets[size_t(k * nd + d)] - g.lo[d + pad];
    off[size_t(k)] = int((r[0] * g.e[1] + r[1]) * g.e[2] + r[2]);
  }
  return off;
}

__device__ inline int64_t tile_out_offset(const Tiling& g, const int64_t* t0, int z, int y) {
  return (t0[0] + z) * g.os[0] + (t0[1] + y) * g.os[1] + (t0[2] + threadIdx.x) * g.os[2];
}

inline unsigned tile_blocks(const Tiling& g) { return unsigned(std::min<int64_t>(g.count(), int64_t(1) << 30)); }

template <class TO>
__global__ void cast_from_f64(const double* src, TO* dst, Layout l, int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    dst[out_offset(l, idx)] = cast_to<TO>(src[in_offset(l, idx)]);
  }
}

// The output-dtype funnel (core/output.hpp) on the CUDA engine: the float64 scratch on `s`, cast by a kernel.
template <class TI, class F>
void with_kernel_output(const View& out, cudaStream_t s, const char* op, F&& f) {
  ndimg::with_kernel_output<TI>(out, f, [&](const View& o, auto&& run) {
    cuda::Scratch tmp(size_t(o.size()) * sizeof(double), s, op);
    const View v = f64_like(o, tmp.get<void>());
    run(v);
    const Layout l = flat_layout(v, o);
    dispatch_dtype(o.dtype, [&]<class TO>() {
      cast_from_f64<TO><<<cuda::blocks_for(o.size(), 256), 256, 0, s>>>(tmp.get<double>(), o.ptr<TO>(), l, o.size());
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
