// CUDA schedule of the connected components: union-find with atomicMin on roots (label equivalence); the
// root is the smallest index.
#include <algorithm>
#include <climits>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "label/components.hpp"
#include "label/union_find.cuh"

namespace ndimg::label {
namespace {

constexpr unsigned kThreads = 256;

// The classes an element takes: label's (nonzero), seeded_components' (low/high thresholds) and
// label_values' (not the background; kValues: members join only where their values are equal, as T).
struct NonzeroClass {
  static constexpr bool kValues = false;
  template <class T> __device__ uint8_t operator()(T v) const { return nonzero_class(v); }
};
struct SeedClass {
  static constexpr bool kValues = false;
  double low, high;
  template <class T> __device__ uint8_t operator()(T v) const { return seed_class(v, low, high); }
};
struct ValueClass {
  static constexpr bool kValues = true;
  int64_t background;
  template <class T> __device__ uint8_t operator()(T v) const { return foreground_class(v, background); }
};
template <class T, class C>
__global__ void classify(const T* in, Layout l, int64_t n, C cls, uint8_t* m) {
  NDIMG_GRID_STRIDE(i, n) m[i] = cls(in[in_offset(l, i)]);
}
// The earlier taps of a structure on the device: per tap its offset per axis and its flat step.
struct DeviceTaps {
  const int8_t* offset;  // [tap][axis]
  const int64_t* step;
  int count;
};

// Each member starts under its face neighbour of smallest index (the one a step back along the outermost
// axis that has one), so most of a component is linked before any union runs (Komura's label equivalence);
// only within tiles of kInitTile along each axis, so no chain is longer than kInitTile per axis and the
// compress pass stays short (long chains made it slower than no init on 4K images).
constexpr int64_t kInitTile = 32;
// faces: bit d set where the structure holds the face tap along axis d
template <class I>
__global__ void init_parents(const uint8_t* m, Layout l, int64_t n, uint32_t faces, I* par) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) {
      par[i] = I(-1);
      continue;
    }
    int64_t rem = i, step = 1, p = i;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      if ((faces >> d & 1) && c % kInitTile && m[i - step]) p = i - step;  // outer axes come later: smaller index
      step *= l.shape[d];
    }
    par[i] = I(p);
  }
}
template <class I>
__global__ void compress(const uint8_t* m, int64_t n, I* par) {
  NDIMG_GRID_STRIDE(i, n) if (m[i]) find_halving<I>(par, I(i));
}
// in (kValues): the input, whose values must be equal for members to join
template <class I, class T, bool kValues>
__global__ void merge_neighbours(const uint8_t* m, const T* in, Layout l, int64_t n, DeviceTaps taps, I* par) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) continue;
    int64_t c[kMaxDim];
    for (int64_t d = l.ndim - 1, rem = i; d >= 0; --d) {
      c[d] = rem % l.shape[d];
      rem /= l.shape[d];
    }
    for (int t = 0; t < taps.count; ++t) {
      const int8_t* o = taps.offset + t * l.ndim;
      bool inside = true;
      for (int d = 0; d < l.ndim; ++d) {
        const int64_t cd = c[d] + o[d];
        inside &= cd >= 0 && cd < l.shape[d];
      }
      const int64_t j = i + taps.step[t];
      if (!inside || !m[j]) continue;
      if constexpr (kValues)
        if (!(in[in_offset(l, i)] == in[in_offset(l, j)])) continue;
      unite<I>(par, I(i), I(j));
    }
  }
}
// roots (label's, or nullptr): 1 at the roots of members, else 0 (the numbering's scan input)
template <class I>
__global__ void flatten_and_flag(const uint8_t* m, int64_t n, I* par, uint8_t* reach, I* roots) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) {
      if (roots) roots[i] = 0;
      continue;
    }
    // halving: the chains of tile roots a large component leaves are shared by every member of those tiles
    const I r = find_halving<I>(par, I(i));
    par[i] = r;  // concurrent finds read either an older ancestor or the root: both end at the root
    if (reach && m[i] == 2) reach[r] = 1;
    if (roots) roots[i] = r == I(i);
  }
}
template <class I>
__global__ void write_kept(const uint8_t* m, const I* par, const uint8_t* reach, Layout l, int64_t n, bool* out) {
  NDIMG_GRID_STRIDE(i, n) out[out_offset(l, i)] = m[i] && reach[find_root<I>(par, I(i))];
}

template <class I>
__global__ void write_roots(const uint8_t* m, const I* par, int64_t n, int64_t* roots) {
  NDIMG_GRID_STRIDE(i, n) roots[i] = m[i] ? int64_t(find_root<I>(par, I(i))) : -1;
}

// The structure's taps on the device (the buffers live as long as the Scratch), and its face-tap bits.
struct TapsOnDevice {
  cuda::Scratch offset, step;
  DeviceTaps taps;
  uint32_t faces = 0;
  TapsOnDevice(const std::vector<Tap>& t, int ndim, const int64_t* shape, cudaStream_t s, const char* op)
      : offset(t.size() * ndim, s, op), step(t.size() * sizeof(int64_t), s, op) {
    std::vector<int8_t> o(t.size() * ndim);
    std::vector<int64_t> st(t.size());
    for (size_t k = 0; k < t.size(); ++k) {
      int64_t stride = 1, nonzero = 0, axis = 0;
      for (int d = ndim - 1; d >= 0; --d) {
        o[k * ndim + d] = t[k][d];
        st[k] += t[k][d] * stride;
        stride *= shape[d];
        if (t[k][d]) ++nonzero, axis = d;
      }
      if (nonzero == 1) faces |= 1u << axis;  // earlier taps: a lone nonzero offset is -1
    }
    if (!t.empty()) {
      cuda::check(cudaMemcpyAsync(offset.get<int8_t>(), o.data(), o.size(), cudaMemcpyHostToDevice, s), op);
      cuda::check(cudaMemcpyAsync(step.get<int64_t>(), st.data(), st.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s), op);
      cuda::check(cudaStreamSynchronize(s), op);  // the host vectors go out of scope
    }
    taps = DeviceTaps{offset.get<int8_t>(), step.get<int64_t>(), int(t.size())};
  }
};

// The tiled schedule (up to 3 dimensions; Playne and Hawick's block union-find): a block classifies a tile of
// the image into shared memory and joins the tile's members there (shared-memory atomics, short trees), each
// member then points at its tile root, and a second pass joins only the pairs that cross a tile face in global
// memory. A tile's local indices are in the image's C order, so its local roots are the smallest indices too.
constexpr int kTile = 1024;  // large tiles: fewer of their elements on a face (3-D: 37%)
constexpr int kTiledTaps = 13;  // the earlier half of 3x3x3
struct Tiled {
  int64_t shape[3];   // depth, height, width: the image's axes right-aligned, leading extents 1
  int64_t stride[3];  // the input's strides (elements) along them
  int8_t tap[kTiledTaps][3];
  int count = 0;
  bool x_face = false;  // the structure holds the face tap along the width
  dim3 block, grid;
};
inline bool make_tiled(const Layout& l, const std::vector<Tap>& taps, Tiled& g) {
  if (l.ndim > 3 || taps.size() > size_t(kTiledTaps)) return false;
  const int pad = 3 - l.ndim;
  for (int a = 0; a < 3; ++a) {
    g.shape[a] = a < pad ? 1 : l.shape[a - pad];
    g.stride[a] = a < pad ? 0 : l.in_strides[a - pad];
  }
  for (size_t k = 0; k < taps.size(); ++k) {
    for (int a = 0; a < 3; ++a) g.tap[k][a] = a < pad ? 0 : taps[k][a - pad];
    g.x_face |= g.tap[k][0] == 0 && g.tap[k][1] == 0 && g.tap[k][2] == -1;
  }
  g.count = int(taps.size());
  g.block = l.ndim == 3 ? dim3(32, 8, 4) : l.ndim == 2 ? dim3(32, 32, 1) : dim3(kTile, 1, 1);
  const auto tiles = [](int64_t extent, unsigned b) { return std::max<int64_t>(1, (extent + b - 1) / b); };
  const int64_t gx = tiles(g.shape[2], g.block.x), gy = tiles(g.shape[1], g.block.y), gz = tiles(g.shape[0], g.block.z);
  if (gx > INT32_MAX || gy > 65535 || gz > 65535) return false;
  g.grid = dim3(unsigned(gx), unsigned(gy), unsigned(gz));
  return true;
}
// A thread's element: its coordinates in the tile and the image, its flat index, and whether it is inside.
struct TilePos {
  int lx, ly, lz, t;
  int64_t x, y, z, i;
  bool inside;
};
__device__ inline TilePos tile_pos(const Tiled& g) {
  TilePos p;
  p.lx = threadIdx.x, p.ly = threadIdx.y, p.lz = threadIdx.z;
  p.t = (p.lz * int(blockDim.y) + p.ly) * int(blockDim.x) + p.lx;
  p.x = int64_t(blockIdx.x) * blockDim.x + p.lx;
  p.y = int64_t(blockIdx.y) * blockDim.y + p.ly;
  p.z = int64_t(blockIdx.z) * blockDim.z + p.lz;
  p.inside = p.x < g.shape[2] && p.y < g.shape[1] && p.z < g.shape[0];
  p.i = (p.z * g.shape[1] + p.y) * g.shape[2] + p.x;
  return p;
}
// The element of image coordinates (z, y, x).
template <class T>
__device__ inline T tiled_value(const T* in, const Tiled& g, int64_t z, int64_t y, int64_t x) {
  return in[z * g.stride[0] + y * g.stride[1] + x * g.stride[2]];
}
template <class I, class T, class C>
__global__ void __launch_bounds__(kTile) tile_union(const T* in, C cls, Tiled g, uint8_t* m, I* par) {
  __shared__ int lp[kTile];
  __shared__ uint8_t lm[kTile];
  __shared__ T lv[C::kValues ? kTile : 1];  // the tile's values, where joins compare them
  const TilePos p = tile_pos(g);
  const T v = p.inside ? tiled_value(in, g, p.z, p.y, p.x) : T(0);
  const uint8_t c = p.inside ? cls(v) : 0;
  if (p.inside) m[p.i] = c;
  lm[p.t] = c;
  lp[p.t] = p.t;
  if constexpr (C::kValues) lv[p.t] = v;
  __syncthreads();
  if (c) {
#pragma unroll  // static tap indices: the taps are read from the parameter bank, not copied to local memory
    for (int k = 0; k < kTiledTaps; ++k) {
      if (k == g.count) break;
      const int lz = p.lz + g.tap[k][0], ly = p.ly + g.tap[k][1], lx = p.lx + g.tap[k][2];
      if (lz < 0 || ly < 0 || lx < 0 || lz >= int(blockDim.z) || ly >= int(blockDim.y) || lx >= int(blockDim.x)) continue;
      const int nt = (lz * int(blockDim.y) + ly) * int(blockDim.x) + lx;
      if (lm[nt] && (!C::kValues || lv[nt] == v)) unite<int>(lp, p.t, nt);
    }
  }
  __syncthreads();
  if (!p.inside) return;
  if (!c) {
    par[p.i] = I(-1);
    return;
  }
  const int r = find_root<int>(lp, p.t);
  const int rx = r % int(blockDim.x), ry = r / int(blockDim.x) % int(blockDim.y), rz = r / int(blockDim.x * blockDim.y);
  par[p.i] = I(p.i + (int64_t(rz - p.lz) * g.shape[1] + (ry - p.ly)) * g.shape[2] + (rx - p.lx));
}
// in (kValues): the input, whose values must be equal for members to join
template <class I, class T, bool kValues>
__global__ void __launch_bounds__(kTile) border_union(const uint8_t* m, const T* in, Tiled g, I* par) {
  const TilePos p = tile_pos(g);
  if (!p.inside || !m[p.i]) return;
  const T v = kValues ? tiled_value(in, g, p.z, p.y, p.x) : T(0);
#pragma unroll
  for (int k = 0; k < kTiledTaps; ++k) {
    if (k == g.count) break;
    const int dz = g.tap[k][0], dy = g.tap[k][1], dx = g.tap[k][2];
    const int lz = p.lz + dz, ly = p.ly + dy, lx = p.lx + dx;
    if (lz >= 0 && ly >= 0 && lx >= 0 && lz < int(blockDim.z) && ly < int(blockDim.y) && lx < int(blockDim.x)) continue;
    if (p.z + dz < 0 || p.y + dy < 0 || p.x + dx < 0 || p.z + dz >= g.shape[0] || p.y + dy >= g.shape[1] ||
        p.x + dx >= g.shape[2])
      continue;
    const int64_t j = p.i + (dz * g.shape[1] + dy) * g.shape[2] + dx;
    if (!m[j]) continue;
    if constexpr (kValues)
      if (!(tiled_value(in, g, p.z + dz, p.y + dy, p.x + dx) == v)) continue;
    // the element one step back along the width, in this tile, crosses the same face by the same tap, to the
    // element one step back from j (where that is inside); where both its ends are members too (kValues: of equal values), they are
    // joined to these ends already: i - 1 to i in this tile, j - 1 to j in theirs or across a width face (a
    // pair this pass never skips)
    if (g.x_face && p.lx > 0 && p.x + dx > 0 && m[p.i - 1] && m[j - 1]) {
      if constexpr (!kValues) continue;
      else if (tiled_value(in, g, p.z, p.y, p.x - 1) == v && tiled_value(in, g, p.z + dz, p.y + dy, p.x + dx - 1) == v)
        continue;
    }
    unite<I>(par, I(p.i), I(j));
  }
}

// Union-find over the classes of `in` (written to m) joined by the taps, flattened: par[i] = the root of i
// (its smallest index); reach and roots as flatten_and_flag's.
template <class I, class C>
void connect(const View& in, const Layout& l, int64_t n, C cls, const std::vector<Tap>& taps, uint8_t* m, I* par,
             uint8_t* reach, I* roots, cudaStream_t s, const char* op) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  Tiled g;
  if (make_tiled(l, taps, g)) {
    dispatch_dtype(in.dtype, [&]<class T>() { tile_union<I, T, C><<<g.grid, g.block, 0, s>>>(in.ptr<T>(), cls, g, m, par); });
    cuda::check_launch(op);
    if constexpr (C::kValues)
      dispatch_dtype(in.dtype, [&]<class T>() { border_union<I, T, true><<<g.grid, g.block, 0, s>>>(m, in.ptr<T>(), g, par); });
    else
      border_union<I, uint8_t, false><<<g.grid, g.block, 0, s>>>(m, nullptr, g, par);
    cuda::check_launch(op);
  } else {
    dispatch_dtype(in.dtype, [&]<class T>() { classify<T, C><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), l, n, cls, m); });
    cuda::check_launch(op);
    TapsOnDevice t(taps, l.ndim, l.shape, s, op);
    // equal values: no links before the unions (those would need the values too)
    init_parents<I><<<blocks, kThreads, 0, s>>>(m, l, n, C::kValues ? 0u : t.faces, par);
    cuda::check_launch(op);
    compress<I><<<blocks, kThreads, 0, s>>>(m, n, par);
    cuda::check_launch(op);
    if constexpr (C::kValues)
      dispatch_dtype(in.dtype, [&]<class T>() {
        merge_neighbours<I, T, true><<<blocks, kThreads, 0, s>>>(m, in.ptr<T>(), l, n, t.taps, par);
      });
    else
      merge_neighbours<I, uint8_t, false><<<blocks, kThreads, 0, s>>>(m, nullptr, l, n, t.taps, par);
    cuda::check_launch(op);
  }
  flatten_and_flag<I><<<blocks, kThreads, 0, s>>>(m, n, par, reach, roots);
  cuda::check_launch(op);
}

template <class I>
void seeded(const View& in, const Layout& l, int64_t n, SeedClass cls, const View& out, cudaStream_t s,
            const char* op, int64_t* roots) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch m(n, s, op), par(n * sizeof(I), s, op), reach(n, s, op);
  cuda::check(cudaMemsetAsync(reach.get<uint8_t>(), 0, n, s), op);
  connect<I>(in, l, n, cls, face_taps(l.ndim), m.get<uint8_t>(), par.get<I>(), reach.get<uint8_t>(), nullptr, s,
             op);
  write_kept<I><<<blocks, kThreads, 0, s>>>(m.get<uint8_t>(), par.get<I>(), reach.get<uint8_t>(), l, n, out.ptr<bool>());
  cuda::check_launch(op);
  if (roots) {
    write_roots<I><<<blocks, kThreads, 0, s>>>(m.get<uint8_t>(), par.get<I>(), n, roots);
    cuda::check_launch(op);
  }
}

// label: out = 1 at the roots of members (flatten_and_flag), then its inclusive scan (a root's number), then
// every member takes its root's number. Roots are only read in the last pass, the other elements only written.
// par[i] is followed to its root here: a concurrent halving store in flatten_and_flag can leave a member one
// ancestor short of the root, and that ancestor's out is being overwritten in this pass.
template <class O>
__global__ void take_numbers(const uint8_t* m, const O* par, int64_t n, O* out) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) {
      out[i] = 0;
      continue;
    }
    O r = par[i];
    while (par[r] != r) r = par[r];
    if (r != O(i)) out[i] = out[r];
  }
}

template <class O, class C>
int64_t label_into(const View& in, const Layout& l, int64_t n, C cls, const std::vector<Tap>& taps, O* out,
                   cudaStream_t s, const char* op) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch mask(n, s, op), par(n * sizeof(O), s, op);
  uint8_t* m = mask.get<uint8_t>();
  connect<O>(in, l, n, cls, taps, m, par.get<O>(), nullptr, out, s, op);
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, out, out, n, s), op);
  {
    cuda::Scratch temp(temp_bytes, s, op);
    cuda::check(cub::DeviceScan::InclusiveSum(temp.get<void>(), temp_bytes, out, out, n, s), op);
  }
  O count = 0;
  cuda::check(cudaMemcpyAsync(&count, out + n - 1, sizeof(O), cudaMemcpyDeviceToHost, s), op);
  take_numbers<O><<<blocks, kThreads, 0, s>>>(m, par.get<O>(), n, out);
  cuda::check_launch(op);
  cuda::check(cudaStreamSynchronize(s), op);
  return int64_t(count);
}

// find_objects: atomics only at the ends of runs of one label along the last axis
template <class T>
__global__ void boxes_kernel(const T* labels, Layout l, int64_t n, int64_t max_label, long long* box) {
  NDIMG_GRID_STRIDE(i, n) {
    const T v = labels[in_offset(l, i)];
    const int64_t k = box_index(v, max_label);
    if (k < 0) continue;
    const int last = l.ndim - 1;
    const int64_t x = i % l.shape[last];
    const bool starts = x == 0 || labels[in_offset(l, i - 1)] != v;
    const bool ends = x == l.shape[last] - 1 || labels[in_offset(l, i + 1)] != v;
    long long* lo = box + k * 2 * l.ndim;
    long long* hi = lo + l.ndim;
    if (starts) {
      for (int64_t d = last, rem = i; d >= 0; --d) {
        const long long c = rem % l.shape[d];
        rem /= l.shape[d];
        atomicMin(lo + d, c);
        if (d < last) atomicMax(hi + d, c);
      }
    }
    if (ends) atomicMax(hi + last, (long long)x);
  }
}
__global__ void boxes_init(int64_t count, int nd, long long* box) {
  NDIMG_GRID_STRIDE(i, count) box[i] = (i / nd) % 2 == 0 ? LLONG_MAX : -1;
}
__global__ void boxes_absent(int64_t max_label, int nd, long long* box) {
  NDIMG_GRID_STRIDE(k, max_label) {
    if (box[k * 2 * nd] == LLONG_MAX)
      for (int d = 0; d < nd; ++d) box[k * 2 * nd + d] = -1;
  }
}

}  // namespace

void seeded_components_cuda(const View& in, double low, double high, const View& out, StreamHandle stream,
                            int64_t* roots) {
  const char* op = "seeded_components";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const Layout l = make_layout(in, out);
  if (n < INT32_MAX) seeded<int>(in, l, n, SeedClass{low, high}, out, s, op, roots);
  else seeded<long long>(in, l, n, SeedClass{low, high}, out, s, op, roots);
}

int64_t label_cuda(const View& in, const std::vector<Tap>& taps, const View& out, StreamHandle stream) {
  const char* op = "label";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const Layout l = make_layout(in, out);
  if (out.dtype == DType::I32) return label_into<int>(in, l, n, NonzeroClass{}, taps, out.ptr<int>(), s, op);
  return label_into<long long>(in, l, n, NonzeroClass{}, taps, reinterpret_cast<long long*>(out.ptr<int64_t>()), s,
                               op);
}

int64_t label_values_cuda(const View& in, int64_t background, const std::vector<Tap>& taps, const View& out,
                          StreamHandle stream) {
  const char* op = "label";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const Layout l = make_layout(in, out);
  const ValueClass cls{background};
  if (out.dtype == DType::I32) return label_into<int>(in, l, n, cls, taps, out.ptr<int>(), s, op);
  return label_into<long long>(in, l, n, cls, taps, reinterpret_cast<long long*>(out.ptr<int64_t>()), s, op);
}

void find_objects_cuda(const View& labels, int64_t max_label, const View& boxes, StreamHandle stream) {
  const char* op = "find_objects";
  cuda::DeviceGuard guard(labels.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = labels.size(), nd = labels.ndim;
  auto* box = reinterpret_cast<long long*>(boxes.ptr<int64_t>());
  boxes_init<<<cuda::blocks_for(max_label * 2 * nd, kThreads), kThreads, 0, s>>>(max_label * 2 * nd, int(nd), box);
  cuda::check_launch(op);
  if (n > 0) {
    const Layout l = make_layout(labels, labels);
    dispatch_dtype(labels.dtype, [&]<class T>() {
      boxes_kernel<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(labels.ptr<T>(), l, n, max_label, box);
    });
    cuda::check_launch(op);
  }
  boxes_absent<<<cuda::blocks_for(max_label, kThreads), kThreads, 0, s>>>(max_label, int(nd), box);
  cuda::check_launch(op);
}

}  // namespace ndimg::label
