// The max-tree on CUDA, the host's tiled construction on the device: a stable radix sort of the pixels by
// value (CUB), the order scattered stably by tile of rows (a second sort, by tile), Berger's union-find and
// canonicalisation a thread per tile, the borders joined a thread per border in rounds of pairs, pairs of
// pairs, ..., and the final canonical pass a thread per pixel (maxtree_impl.hpp's code, as on the host).
// The filters: attributes accumulated level by level of value, from the top (the canonical elements of one
// level into their parents, atomics; every other pixel into its node's canonical element at once), then
// each pixel's output found by pointer jumping to its nearest ancestor that keeps its value. The leaves of
// local maxima numbered by a scan over the order. What tiles cannot give exactly (a side below 3, a wider or
// one-way footprint, NaN) builds on the host, as do trees (automatic tiles) and attributes of images of over
// 65,536 distinct values.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda.cuh"
#include "morphology/maxtree.hpp"
#include "morphology/maxtree_impl.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::morphology {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kSerialThreads = 64;               // a thread per tile or per border
constexpr int64_t kTilePixels = 4096;                 // automatic tiles: a thread's serial union-find
constexpr int64_t kTiledLevels = int64_t(1) << 16;    // more distinct values: the tree on the host
constexpr int64_t kDeviceLevels = int64_t(1) << 16;   // more distinct values: attributes on the host
constexpr int64_t kWideLevel = int64_t(1) << 15;      // a level of more pixels gets a grid of its own
constexpr unsigned kLevelThreads = 1024;              // the block that runs the narrow levels one after another

// ---- host round trips (what runs on the host for GPU input) ----

struct HostArray {
  std::vector<int64_t> storage;  // 8-byte aligned
  View view;
  size_t bytes = 0;
};

HostArray host_array(const View& v, bool fill, cudaStream_t s, const char* op) {
  HostArray h;
  h.bytes = size_t(v.size()) * dtype_size(v.dtype);
  h.storage.resize((h.bytes + 7) / 8);
  h.view = v;
  h.view.data = h.storage.data();
  h.view.device = Device::CPU;
  h.view.device_id = 0;
  if (fill && h.bytes) cuda::check(cudaMemcpyAsync(h.view.data, v.data, h.bytes, cudaMemcpyDeviceToHost, s), op);
  return h;
}

void copy_back(const HostArray& h, const View& v, cudaStream_t s, const char* op) {
  if (h.bytes) cuda::check(cudaMemcpyAsync(v.data, h.view.data, h.bytes, cudaMemcpyHostToDevice, s), op);
}

int64_t read_scalar(const int64_t* device, cudaStream_t s, const char* op) {
  int64_t v = 0;
  cuda::check(cudaMemcpyAsync(&v, device, sizeof v, cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  return v;
}

// ---- the tree ----

template <class T, class K>
__global__ void keys_kernel(const T* img, int64_t n, K* keys, int64_t* index, int64_t* nan) {
  NDIMG_GRID_STRIDE(i, n) {
    keys[i] = K(sort_key(img[i]));
    index[i] = i;
    if (!(img[i] == img[i])) *nan = 1;
  }
}

template <class K>
__global__ void distinct_kernel(const K* sorted, int64_t n, int64_t* count) {
  int64_t local = 0;
  NDIMG_GRID_STRIDE(i, n) local += i == 0 || sorted[i] != sorted[i - 1];
  if (local) atomicAdd(reinterpret_cast<unsigned long long*>(count), (unsigned long long)local);
}

__global__ void tile_keys_kernel(const int64_t* order, int64_t n, int64_t tile_size, uint32_t* tile) {
  NDIMG_GRID_STRIDE(i, n) tile[i] = uint32_t(order[i] / tile_size);
}

__global__ void border_kernel(int64_t n, TreeGeometry g, uint8_t* border) {
  NDIMG_GRID_STRIDE(i, n) border[i] = on_border(i, g.nd, g.shape);
}

template <class T>
__global__ void tiles_kernel(const T* img, TreeGeometry g, const uint8_t* border, const int64_t* sub, int64_t n,
                             int64_t tiles, int64_t tile_size, int64_t* zpar, int64_t* parent) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= tiles) return;
  const int64_t lo = t * tile_size, hi = lo + tile_size < n ? lo + tile_size : n;
  berger<T>(img, g, border, sub + lo, hi - lo, lo, hi, zpar, parent);
}

template <class T>
__global__ void join_kernel(const T* img, int64_t* parent, TreeGeometry g, const uint8_t* border, const int* across,
                           int count, int64_t s, int64_t borders, int64_t tile_size, int64_t stride) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= borders) return;
  join_border(TreeJoin<T>{img, parent}, g, border, across, count, (round_border(s, r) + 1) * tile_size - stride,
              stride);
}

template <class T>
__global__ void finish_kernel(const T* img, int64_t* parent, int64_t n) {
  const TreeJoin<T> join{img, parent};
  NDIMG_GRID_STRIDE(p, n) join.finish(p);
}

// Sorts (keys, values) stably by the keys' low `bits` bits into (keys_out, values_out).
template <class K>
void radix_sort(const K* keys, K* keys_out, const int64_t* values, int64_t* values_out, int64_t n, int bits,
                cudaStream_t s, const char* op) {
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, keys_out, values, values_out, n, 0, bits, s),
              op);
  cuda::Scratch temp(temp_bytes, s, op);
  cuda::check(cub::DeviceRadixSort::SortPairs(temp.get<void>(), temp_bytes, keys, keys_out, values, values_out, n, 0,
                                              bits, s),
              op);
}

int bits_for(int64_t count) {  // bits holding 0 .. count - 1
  int b = 1;
  while (b < 63 && (int64_t(1) << b) < count) ++b;
  return b;
}

template <class T>
void build_tree(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
                const View& parent_view, const View& traverser_view, int64_t tile_rows, cudaStream_t s) {
  const char* op = "max_tree";
  const T* img = image.ptr<T>();
  int64_t* parent = parent_view.ptr<int64_t>();
  int64_t* order = traverser_view.ptr<int64_t>();
  const int64_t n = image.size();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  using K = decltype(sort_key(T()));
  // the order: keys of NumPy's sort order, sorted stably with the pixel indices
  cuda::Scratch keys(2 * n * sizeof(K), s, op), index(n * sizeof(int64_t), s, op), stats(2 * sizeof(int64_t), s, op);
  int64_t* nan = stats.get<int64_t>();
  cuda::check(cudaMemsetAsync(nan, 0, 2 * sizeof(int64_t), s), op);
  keys_kernel<<<blocks, kThreads, 0, s>>>(img, n, keys.get<K>(), index.get<int64_t>(), nan);
  cuda::check_launch(op);
  radix_sort(keys.get<K>(), keys.get<K>() + n, index.get<int64_t>(), order, n, int(8 * sizeof(T)), s, op);
  distinct_kernel<<<std::min(blocks, 1024u), kThreads, 0, s>>>(keys.get<K>() + n, n, nan + 1);
  cuda::check_launch(op);
  int64_t found[2];  // NaN, distinct values
  cuda::check(cudaMemcpyAsync(found, nan, sizeof found, cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  // NaN: equality is not transitive, the joins do not hold. Many distinct values (smooth float images): a
  // join walks the nodes of the band between two border pixels' levels, most of their component, serially on
  // one GPU thread, far longer than the host's one union-find (automatic tiles only, as on the host).
  if (found[0] || (tile_rows <= 0 && found[1] > kTiledLevels)) {
    HostArray host_image = host_array(image, true, s, op), host_parent = host_array(parent_view, false, s, op),
              host_order = host_array(traverser_view, false, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
    max_tree_cpu(host_image.view, offsets, points, host_parent.view, host_order.view, 0);
    copy_back(host_parent, parent_view, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
    return;
  }
  const int64_t rows = image.shape[0], stride = n / rows;
  if (tile_rows <= 0) tile_rows = std::max<int64_t>(1, kTilePixels / stride);
  tile_rows = std::min(tile_rows, rows);
  const int64_t tiles = (rows + tile_rows - 1) / tile_rows, tile_size = tile_rows * stride;
  // each tile's pixels in the global order: the order sorted stably by tile
  cuda::Scratch sub(tiles > 1 ? n * sizeof(int64_t) : 0, s, op),
      tile_of(tiles > 1 ? 2 * n * sizeof(uint32_t) : 0, s, op);
  const int64_t* tile_order = order;
  if (tiles > 1) {
    tile_keys_kernel<<<blocks, kThreads, 0, s>>>(order, n, tile_size, tile_of.get<uint32_t>());
    cuda::check_launch(op);
    radix_sort(tile_of.get<uint32_t>(), tile_of.get<uint32_t>() + n, order, sub.get<int64_t>(), n, bits_for(tiles), s,
               op);
    tile_order = sub.get<int64_t>();
  }
  const std::vector<int> across = across_offsets(points, image.ndim);
  const size_t step_bytes = offsets.size_bytes() + points.size_bytes();
  cuda::Scratch steps(step_bytes + across.size() * sizeof(int), s, op), border(n, s, op),
      zpar(n * sizeof(int64_t), s, op);
  int64_t* dev_offsets = steps.get<int64_t>();
  int64_t* dev_points = dev_offsets + offsets.size();
  int* dev_across = reinterpret_cast<int*>(dev_points + points.size());
  if (!offsets.empty()) {
    cuda::check(cudaMemcpyAsync(dev_offsets, offsets.data(), offsets.size_bytes(), cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaMemcpyAsync(dev_points, points.data(), points.size_bytes(), cudaMemcpyHostToDevice, s), op);
  }
  if (!across.empty())
    cuda::check(cudaMemcpyAsync(dev_across, across.data(), across.size() * sizeof(int), cudaMemcpyHostToDevice, s),
                op);
  const TreeGeometry g = tree_geometry(image, offsets, points, dev_offsets, dev_points);
  border_kernel<<<blocks, kThreads, 0, s>>>(n, g, border.get<uint8_t>());
  cuda::check(cudaMemsetAsync(zpar.get<int64_t>(), 0xff, n * sizeof(int64_t), s), op);  // -1: not reached
  cuda::check(cudaMemsetAsync(parent, 0xff, n * sizeof(int64_t), s), op);
  tiles_kernel<<<cuda::blocks_for(tiles, kSerialThreads), kSerialThreads, 0, s>>>(
      img, g, border.get<uint8_t>(), tile_order, n, tiles, tile_size, zpar.get<int64_t>(), parent);
  cuda::check_launch(op);
  if (tiles > 1) {
    for (int64_t r = 1; r < tiles; r *= 2) {
      const int64_t borders = round_borders(r, tiles);
      join_kernel<<<cuda::blocks_for(borders, kSerialThreads), kSerialThreads, 0, s>>>(
          img, parent, g, border.get<uint8_t>(), dev_across, int(across.size()), r, borders, tile_size, stride);
      cuda::check_launch(op);
    }
    finish_kernel<<<blocks, kThreads, 0, s>>>(img, parent, n);
    cuda::check_launch(op);
  }
  // the host copies of the steps go when this returns
  cuda::check(cudaStreamSynchronize(s), op);
}

// ---- given trees ----

__global__ void bad_index_kernel(const int64_t* parent, const int64_t* order, int64_t n, int64_t* bad) {
  NDIMG_GRID_STRIDE(i, n) {
    if (parent[i] < 0 || parent[i] >= n || order[i] < 0 || order[i] >= n) *bad = 1;
  }
}

void check_indices(const int64_t* parent, const int64_t* order, int64_t n, cudaStream_t s, const char* op) {
  cuda::Scratch bad(sizeof(int64_t), s, op);
  cuda::check(cudaMemsetAsync(bad.get<int64_t>(), 0, sizeof(int64_t), s), op);
  bad_index_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(parent, order, n, bad.get<int64_t>());
  cuda::check_launch(op);
  if (read_scalar(bad.get<int64_t>(), s, op)) throw ValueError(std::string(op) + ": " + kBadTree);
}

// ---- attributes ----

// A node's attribute: its area (pixel count) or its bounding box (per axis low and high coordinates).
struct Attributes {
  unsigned long long* area;  // or null
  int* lo;                   // n * nd, or null
  int* hi;
  int nd;
  int64_t shape[kMaxDim];

  __device__ void add(int64_t q, int64_t p) const {  // q's node takes in p's subtree
    // p's values came in by atomics (at L2) from other threads of this block: read past L1
    if (area) {
      atomicAdd(&area[q], __ldcg(&area[p]));
      return;
    }
    for (int d = 0; d < nd; ++d) {
      atomicMin(&lo[q * nd + d], __ldcg(&lo[p * nd + d]));
      atomicMax(&hi[q * nd + d], __ldcg(&hi[p * nd + d]));
    }
  }
  __device__ double value(int64_t p) const {
    if (area) return double(area[p]);
    int64_t ext = 0;
    for (int d = 0; d < nd; ++d) {
      const int64_t side = hi[p * nd + d] - lo[p * nd + d];
      ext = ext > side ? ext : side;
    }
    return diameter_of(ext);
  }
};

__global__ void attr_init_kernel(Attributes a, int64_t n) {
  NDIMG_GRID_STRIDE(p, n) {
    if (a.area) {
      a.area[p] = 1;
      continue;
    }
    int64_t r = p;
    for (int d = a.nd - 1; d >= 0; --d) {
      a.lo[p * a.nd + d] = a.hi[p * a.nd + d] = int(r % a.shape[d]);
      r /= a.shape[d];
    }
  }
}

// Pixels of one node with their canonical element (their own value is final: they are no one's parent).
template <class T>
__global__ void attr_members_kernel(const T* img, const int64_t* parent, int64_t n, int64_t root, Attributes a) {
  NDIMG_GRID_STRIDE(p, n) {
    const int64_t q = parent[p];
    if (p != root && q != p && img[p] == img[q]) a.add(q, p);
  }
}

// The canonical elements of the levels [first, last) of the order, from the last level down, into their
// parents (in lower levels): a level's attributes are final once the levels above it are in.
template <class T>
__device__ void attr_levels(const T* img, const int64_t* parent, const int64_t* order, const int64_t* starts,
                            int64_t first, int64_t last, int64_t root, const Attributes& a, int64_t tid,
                            int64_t threads, bool sync) {
  for (int64_t l = last - 1; l >= first; --l) {
    for (int64_t t = starts[l] + tid; t < starts[l + 1]; t += threads) {
      const int64_t p = order[t];
      const int64_t q = parent[p];
      if (p != root && q != p && !(img[p] == img[q])) a.add(q, p);
    }
    if (sync) __syncthreads();
  }
}

template <class T>
__global__ void __launch_bounds__(kLevelThreads)
    attr_narrow_kernel(const T* img, const int64_t* parent, const int64_t* order, const int64_t* starts, int64_t first,
                       int64_t last, int64_t root, Attributes a) {
  attr_levels(img, parent, order, starts, first, last, root, a, threadIdx.x, blockDim.x, true);
}

template <class T>
__global__ void attr_wide_kernel(const T* img, const int64_t* parent, const int64_t* order, const int64_t* starts,
                                 int64_t level, int64_t root, Attributes a) {
  attr_levels(img, parent, order, starts, level, level + 1, root, a, blockIdx.x * int64_t(blockDim.x) + threadIdx.x,
              int64_t(gridDim.x) * blockDim.x, false);
}

template <class T>
__global__ void level_flags_kernel(const T* img, const int64_t* order, int64_t n, int64_t* flags) {
  NDIMG_GRID_STRIDE(t, n) flags[t] = t == 0 || !(img[order[t]] == img[order[t - 1]]);
}

__global__ void level_starts_kernel(const int64_t* flags, const int64_t* ids, int64_t n, int64_t* starts) {
  NDIMG_GRID_STRIDE(t, n) {
    if (flags[t]) starts[ids[t] - 1] = t;
    if (t == n - 1) starts[ids[t]] = n;
  }
}

// ---- the filter's outputs ----

// Each pixel's link: to its parent where it takes the parent's output (takes_parent), else to itself with
// its output set (its value; the root's is 0 below the threshold; other roots keep theirs).
template <class T>
__global__ void link_kernel(const T* img, const int64_t* parent, int64_t n, int64_t root, Attributes a,
                            double threshold, int64_t* next, T* out) {
  NDIMG_GRID_STRIDE(p, n) {
    const int64_t q = parent[p];
    if (p == root) {
      out[p] = a.value(p) < threshold ? T(0) : img[p];
      next[p] = p;
    } else if (q != p && takes_parent(img[p], img[q], a.value(p), threshold)) {
      next[p] = q;
    } else {
      out[p] = img[p];
      next[p] = p;
    }
  }
}

__global__ void jump_kernel(int64_t* next, int64_t n, int64_t* changed) {
  NDIMG_GRID_STRIDE(p, n) {
    const int64_t a = load_link(&next[p]);
    const int64_t b = load_link(&next[a]);
    if (a != b) {
      store_link(&next[p], b);
      *changed = 1;
    }
  }
}

template <class T>
__global__ void resolve_kernel(const int64_t* next, int64_t n, T* out) {
  NDIMG_GRID_STRIDE(p, n) {
    const int64_t a = next[p];
    if (a != p) out[p] = out[a];
  }
}

template <class T>
void filter(const View& image, const int64_t* parent, const int64_t* order, int64_t root, int attribute,
            double threshold, const View& out, const int64_t* starts_dev, int64_t levels, cudaStream_t s) {
  const char* op = "max_tree_filter";
  const T* img = image.ptr<T>();
  const int64_t n = image.size(), nd = image.ndim;
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  Attributes a{};
  a.nd = int(nd);
  for (int d = 0; d < nd; ++d) a.shape[d] = image.shape[d];
  cuda::Scratch store(attribute == 0 ? n * sizeof(unsigned long long) : 2 * n * nd * sizeof(int), s, op);
  if (attribute == 0) {
    a.area = store.get<unsigned long long>();
  } else {
    a.lo = store.get<int>();
    a.hi = a.lo + n * nd;
  }
  attr_init_kernel<<<blocks, kThreads, 0, s>>>(a, n);
  attr_members_kernel<<<blocks, kThreads, 0, s>>>(img, parent, n, root, a);
  cuda::check_launch(op);
  // the levels from the top: a wide one on a grid of its own, runs of narrow ones in one block
  std::vector<int64_t> starts(size_t(levels) + 1);
  cuda::check(cudaMemcpyAsync(starts.data(), starts_dev, starts.size() * sizeof(int64_t), cudaMemcpyDeviceToHost, s),
              op);
  cuda::check(cudaStreamSynchronize(s), op);
  for (int64_t l = levels; l > 0;) {
    if (starts[l] - starts[l - 1] >= kWideLevel) {
      attr_wide_kernel<<<cuda::blocks_for(starts[l] - starts[l - 1], kThreads), kThreads, 0, s>>>(
          img, parent, order, starts_dev, l - 1, root, a);
      --l;
      continue;
    }
    int64_t first = l - 1;
    while (first > 0 && starts[first] - starts[first - 1] < kWideLevel) --first;
    attr_narrow_kernel<<<1, kLevelThreads, 0, s>>>(img, parent, order, starts_dev, first, l, root, a);
    l = first;
  }
  cuda::check_launch(op);
  cuda::Scratch next(n * sizeof(int64_t), s, op), changed(sizeof(int64_t), s, op);
  T* o = out.ptr<T>();
  link_kernel<<<blocks, kThreads, 0, s>>>(img, parent, n, root, a, threshold, next.get<int64_t>(), o);
  cuda::check_launch(op);
  // pointer jumping halves every path per round; a given "tree" with a cycle stops after as many rounds
  for (int round = 0; round <= 64; ++round) {
    cuda::check(cudaMemsetAsync(changed.get<int64_t>(), 0, sizeof(int64_t), s), op);
    jump_kernel<<<blocks, kThreads, 0, s>>>(next.get<int64_t>(), n, changed.get<int64_t>());
    cuda::check_launch(op);
    if (!read_scalar(changed.get<int64_t>(), s, op)) break;
  }
  resolve_kernel<<<blocks, kThreads, 0, s>>>(next.get<int64_t>(), n, o);
  cuda::check_launch(op);
}

// ---- local maxima ----

__global__ void fill_kernel(uint64_t* out, int64_t n, uint64_t v) {
  NDIMG_GRID_STRIDE(i, n) out[i] = v;
}

// A canonical element's parent node has a child node: no leaf.
template <class T>
__global__ void inner_kernel(const T* img, const int64_t* parent, int64_t n, int64_t root, uint64_t* out) {
  NDIMG_GRID_STRIDE(p, n) {
    const int64_t q = parent[p];
    if (p != root && !(img[p] == img[q])) out[q] = 0;
  }
}

template <class T>
__global__ void leaf_flags_kernel(const T* img, const int64_t* parent, const int64_t* order, int64_t n, int64_t root,
                                  const uint64_t* out, int64_t* flags) {
  NDIMG_GRID_STRIDE(t, n) {
    const int64_t p = order[t];
    flags[t] = p != root && !(img[p] == img[parent[p]]) && out[p] > 0;
  }
}

// Leaves numbered 1.. from the end of the order: a leaf's number is 1 + the leaves after it.
__global__ void number_kernel(const int64_t* order, const int64_t* flags, const int64_t* ranks, int64_t n,
                              uint64_t* out) {
  NDIMG_GRID_STRIDE(t, n) {
    if (flags[t]) out[order[t]] = uint64_t(ranks[n - 1] - ranks[t] + 1);
  }
}

template <class T>
__global__ void members_kernel(const T* img, const int64_t* parent, int64_t n, int64_t root, uint64_t* out) {
  NDIMG_GRID_STRIDE(p, n) {
    const int64_t q = parent[p];
    if (p != root && q != p && img[p] == img[q]) out[p] = out[q];
  }
}

void inclusive_sum(const int64_t* in, int64_t* out, int64_t n, cudaStream_t s, const char* op) {
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, n, s), op);
  cuda::Scratch temp(temp_bytes, s, op);
  cuda::check(cub::DeviceScan::InclusiveSum(temp.get<void>(), temp_bytes, in, out, n, s), op);
}

}  // namespace

void max_tree_cuda(const View& image, std::span<const int64_t> offsets, std::span<const int64_t> points,
                   const View& parent, const View& traverser, int64_t tile_rows, StreamHandle stream) {
  const char* op = "max_tree";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (!tileable(image, offsets, points)) {  // one serial union-find: the host's
    HostArray host_image = host_array(image, true, s, op), host_parent = host_array(parent, false, s, op),
              host_order = host_array(traverser, false, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
    max_tree_cpu(host_image.view, offsets, points, host_parent.view, host_order.view, tile_rows);
    copy_back(host_parent, parent, s, op);
    copy_back(host_order, traverser, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
    return;
  }
  dispatch_dtype(image.dtype,
                 [&]<class T>() { build_tree<T>(image, offsets, points, parent, traverser, tile_rows, s); });
}

namespace {

// A given tree (parent, traverser) of `image`: its indices checked on the device, its root read.
struct GivenTree {
  const int64_t *par, *ord;
  int64_t n, root;
};
GivenTree given_tree(const View& image, const View& parent, const View& traverser, cudaStream_t s, const char* op) {
  GivenTree t{parent.ptr<int64_t>(), traverser.ptr<int64_t>(), image.size(), 0};
  check_indices(t.par, t.ord, t.n, s, op);
  t.root = read_scalar(t.ord, s, op);
  return t;
}

}  // namespace

void max_tree_filter_cuda(const View& image, const View& parent, const View& traverser, int attribute,
                          double threshold, const View& out, StreamHandle stream) {
  const char* op = "max_tree_filter";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const auto [par, ord, n, root] = given_tree(image, parent, traverser, s, op);
  // the levels of the order: runs of equal values
  cuda::Scratch flags(n * sizeof(int64_t), s, op), ids(n * sizeof(int64_t), s, op);
  dispatch_dtype(image.dtype, [&]<class T>() {
    level_flags_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(image.ptr<T>(), ord, n, flags.get<int64_t>());
  });
  cuda::check_launch(op);
  inclusive_sum(flags.get<int64_t>(), ids.get<int64_t>(), n, s, op);
  const int64_t levels = read_scalar(ids.get<int64_t>() + (n - 1), s, op);
  if (levels > kDeviceLevels) {  // one level after another would cost more than the host's one pass
    HostArray host_image = host_array(image, true, s, op), host_parent = host_array(parent, true, s, op),
              host_order = host_array(traverser, true, s, op), host_out = host_array(out, true, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
    max_tree_filter_cpu(host_image.view, host_parent.view, host_order.view, attribute, threshold, host_out.view);
    copy_back(host_out, out, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
    return;
  }
  cuda::Scratch starts((levels + 1) * sizeof(int64_t), s, op);
  level_starts_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(flags.get<int64_t>(), ids.get<int64_t>(), n,
                                                                         starts.get<int64_t>());
  cuda::check_launch(op);
  dispatch_dtype(image.dtype, [&]<class T>() {
    filter<T>(image, par, ord, root, attribute, threshold, out, starts.get<int64_t>(), levels, s);
  });
}

void max_tree_local_maxima_cuda(const View& image, const View& parent, const View& traverser, const View& out,
                                StreamHandle stream) {
  const char* op = "max_tree_local_maxima";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const auto [par, ord, n, root] = given_tree(image, parent, traverser, s, op);
  uint64_t* o = out.ptr<uint64_t>();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch flags(n * sizeof(int64_t), s, op), ranks(n * sizeof(int64_t), s, op);
  fill_kernel<<<blocks, kThreads, 0, s>>>(o, n, 1);
  dispatch_dtype(image.dtype, [&]<class T>() {
    inner_kernel<<<blocks, kThreads, 0, s>>>(image.ptr<T>(), par, n, root, o);
    leaf_flags_kernel<<<blocks, kThreads, 0, s>>>(image.ptr<T>(), par, ord, n, root, o, flags.get<int64_t>());
  });
  cuda::check_launch(op);
  inclusive_sum(flags.get<int64_t>(), ranks.get<int64_t>(), n, s, op);
  number_kernel<<<blocks, kThreads, 0, s>>>(ord, flags.get<int64_t>(), ranks.get<int64_t>(), n, o);
  dispatch_dtype(image.dtype,
                 [&]<class T>() { members_kernel<<<blocks, kThreads, 0, s>>>(image.ptr<T>(), par, n, root, o); });
  cuda::check_launch(op);
}

}  // namespace ndimg::morphology
