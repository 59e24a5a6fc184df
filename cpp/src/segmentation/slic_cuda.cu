// SLIC's k-means loop on CUDA, label for label the CPU engine's (and skimage's):
// - assignment, one thread per voxel: the centres are binned by the grid cells (the seeds' steps) their
//   windows overlap, and each voxel takes, among its cell's centres whose window holds it, the least
//   distance, ties to the lowest centre index: what skimage's strict comparisons in centre order keep. The
//   distances are slic.hpp's, rounded one operation at a time as on the host (no FMA contraction).
// - centre update: the voxels stably radix-sorted by centre, so that one thread per centre sums its voxels
//   in raster order, in the image's type, as skimage's loop adds them (float sums depend on the order).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <memory>

#include "core/cuda.cuh"
#include "segmentation/slic.hpp"

namespace ndimg::segmentation {
namespace {

using slic_math::Win;

constexpr unsigned kThreads = 256;

struct Grid {
  int64_t D, H, W, C, F, N, n_seg;
  int64_t gs[3];   // the cells' size along z, y, x (the seeds' steps)
  int64_t nc[3];   // cells along z, y, x
};

// The cells [c0, c1] along one axis that the window [lo, hi) overlaps; false where it is empty.
__device__ bool cell_range(int64_t lo, int64_t hi, int64_t g, int64_t& c0, int64_t& c1) {
  if (lo >= hi) return false;
  c0 = lo / g;
  c1 = (hi - 1) / g;
  return true;
}

// Each centre's window, and (Fill false) its cells' counts or (Fill true) its index into their lists.
template <class T, bool Fill>
__global__ void bin_centres(const T* seg, Grid g, Win* wins, unsigned* cell_count, unsigned* cursor,
                            unsigned* list) {
  NDIMG_GRID_STRIDE(k, g.n_seg) {
    Win w;
    if constexpr (Fill) {
      w = wins[k];
    } else {
      w = slic_math::centre_window(seg + k * g.F, g.gs, g.D, g.H, g.W);
      wins[k] = w;
    }
    int64_t z0, z1, y0, y1, x0, x1;
    if (!w.ok || !cell_range(w.z0, w.z1, g.gs[0], z0, z1) || !cell_range(w.y0, w.y1, g.gs[1], y0, y1) ||
        !cell_range(w.x0, w.x1, g.gs[2], x0, x1))
      continue;
    for (int64_t cz = z0; cz <= z1; ++cz)
      for (int64_t cy = y0; cy <= y1; ++cy)
        for (int64_t cx = x0; cx <= x1; ++cx) {
          const int64_t cell = (cz * g.nc[1] + cy) * g.nc[2] + cx;
          if constexpr (Fill) list[atomicAdd(cursor + cell, 1u)] = unsigned(k);
          else atomicAdd(cell_count + cell, 1u);
        }
  }
}

template <class T>
struct Assign {
  const T* img;
  const uint8_t* mask;   // null without one
  const T* seg;
  const T* mdc;
  const Win* wins;
  const unsigned* cell_start;
  const unsigned* cell_count;
  const unsigned* list;
  T sz, sy, sx, sw;
  bool color, zero;
  int64_t start_label;
  int64_t* labels;
  int* changed;
};

template <class T>
__global__ void assign_kernel(Grid g, Assign<T> a) {
  bool any = false;
  NDIMG_GRID_STRIDE(i, g.N) {
    if (a.mask && !a.mask[i]) continue;
    const int64_t x = i % g.W, y = i / g.W % g.H, z = i / (g.W * g.H);
    const int64_t cell = ((z / g.gs[0]) * g.nc[1] + y / g.gs[1]) * g.nc[2] + x / g.gs[2];
    T best = T(DBL_MAX);
    int64_t best_k = -1;
    const unsigned* l = a.list + a.cell_start[cell];
    const unsigned n = a.cell_count[cell];
    for (unsigned j = 0; j < n; ++j) {
      const int64_t k = l[j];
      const Win w = a.wins[k];
      if (z < w.z0 || z >= w.z1 || y < w.y0 || y >= w.y1 || x < w.x0 || x >= w.x1) continue;
      const T* s = a.seg + k * g.F;
      const T zy = add_rn(slic_math::axis_term(a.sz, s[0], T(z)), slic_math::axis_term(a.sy, s[1], T(y)));
      T d = slic_math::spatial_distance(zy, slic_math::axis_term(a.sx, s[2], T(x)), a.sw);
      if (a.color) {
        T dc = slic_math::colour_distance(a.img + i * g.C, 1, s + 3, g.C);
        if (a.zero) dc /= a.mdc[k];
        d = add_rn(d, dc);
      }
      // skimage keeps the first strictly smaller distance in centre order: the least, ties to the lowest k
      if (d < best || (d == best && best_k >= 0 && k < best_k)) {
        best = d;
        best_k = k;
      }
    }
    if (best_k >= 0) {
      a.labels[i] = best_k + a.start_label;
      any = true;
    }
  }
  if (any) *a.changed = 1;
}

// Sort keys: a voxel's centre, or n_seg for a voxel left out of the update (never labelled, or masked).
__global__ void centre_keys(Grid g, const int64_t* labels, const uint8_t* mask, int64_t start_label, unsigned* keys,
                            unsigned* idx) {
  NDIMG_GRID_STRIDE(i, g.N) {
    const int64_t k = labels[i] - start_label;
    keys[i] = unsigned(k >= 0 && k < g.n_seg && (!mask || mask[i]) ? k : g.n_seg);
    idx[i] = unsigned(i);
  }
}

// Each centre's run [start, end) among the sorted keys (both left 0 for a centre without voxels).
__global__ void centre_runs(int64_t N, int64_t n_seg, const unsigned* keys, unsigned* start, unsigned* end) {
  NDIMG_GRID_STRIDE(i, N) {
    const unsigned k = keys[i];
    if (k >= n_seg) continue;
    if (i == 0 || keys[i - 1] != k) start[k] = unsigned(i);
    if (i == N - 1 || keys[i + 1] != k) end[k] = unsigned(i + 1);
  }
}

// One thread per centre: its voxels' coordinates and colours summed in raster order, divided by their count
// (0 / 0: NaN for an empty segment, as there); SLIC-zero's running largest colour distance after it.
template <class T>
__global__ void update_centres(Grid g, const T* img, const unsigned* idx, const unsigned* start, const unsigned* end,
                               bool slic_zero, T* seg, T* mdc) {
  NDIMG_GRID_STRIDE(k, g.n_seg) {
    T* s = seg + k * g.F;
    for (int64_t f = 0; f < g.F; ++f) s[f] = T(0);
    const unsigned j0 = start[k], j1 = end[k];
    for (unsigned j = j0; j < j1; ++j) {
      const int64_t i = idx[j];
      s[0] += T(i / (g.W * g.H));
      s[1] += T(i / g.W % g.H);
      s[2] += T(i % g.W);
      for (int64_t c = 0; c < g.C; ++c) s[3 + c] += img[i * g.C + c];
    }
    const T count = T(j1 - j0);
    for (int64_t f = 0; f < g.F; ++f) s[f] /= count;
    if (!slic_zero) continue;
    T m = mdc[k];
    for (unsigned j = j0; j < j1; ++j) {
      const T dc = slic_math::colour_distance(img + int64_t(idx[j]) * g.C, 1, s + 3, g.C);
      if (m < dc) m = dc;
    }
    mdc[k] = m;
  }
}

template <class T>
__global__ void fill_kernel(T* p, int64_t n, T v) {
  NDIMG_GRID_STRIDE(i, n) p[i] = v;
}

template <class T>
void iterate(const View& image, const uint8_t* mask, const View& segments, double step,
             std::span<const int64_t> gs, int64_t max_iter, std::span<const double> spacing, bool slic_zero,
             int64_t start_label, bool ignore_color, const View& labels, cudaStream_t s, const char* op) {
  Grid g{};
  g.D = image.shape[0];
  g.H = image.shape[1];
  g.W = image.shape[2];
  g.C = image.shape[3];
  g.F = 3 + g.C;
  g.N = g.D * g.H * g.W;
  g.n_seg = segments.shape[0];
  if (g.N >= (int64_t(1) << 31) || g.n_seg >= (int64_t(1) << 31) - 1)
    throw ValueError("slic: the CUDA engine takes images of fewer than 2**31 voxels");
  int64_t ncells = 1;
  const int64_t n_axis[3] = {g.D, g.H, g.W};
  for (int a = 0; a < 3; ++a) {
    g.gs[a] = gs[a];
    g.nc[a] = (n_axis[a] + gs[a] - 1) / gs[a];
    ncells *= g.nc[a];
  }
  const float stepf = float(step);
  T* seg = segments.ptr<T>();
  const T* img = image.ptr<T>();
  int64_t* lab = labels.ptr<int64_t>();

  cuda::Scratch wins(g.n_seg * sizeof(Win), s, op), mdc(g.n_seg * sizeof(T), s, op);
  cuda::Scratch cell_count(ncells * sizeof(unsigned), s, op), cell_start(ncells * sizeof(unsigned), s, op),
      cursor(ncells * sizeof(unsigned), s, op);
  std::unique_ptr<cuda::Scratch> list;   // the cells' lists, grown to the largest total seen
  int64_t list_capacity = 0;
  cuda::Scratch keys(g.N * sizeof(unsigned), s, op), keys_sorted(g.N * sizeof(unsigned), s, op),
      idx(g.N * sizeof(unsigned), s, op), idx_sorted(g.N * sizeof(unsigned), s, op);
  cuda::Scratch run_start(g.n_seg * sizeof(unsigned), s, op), run_end(g.n_seg * sizeof(unsigned), s, op);
  cuda::Scratch changed(sizeof(int), s, op);
  int end_bit = 1;
  while ((int64_t(1) << end_bit) <= g.n_seg) ++end_bit;   // keys run to n_seg
  size_t scan_bytes = 0, sort_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cell_count.get<unsigned>(),
                                            cell_start.get<unsigned>(), int(ncells), s), op);
  cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys.get<unsigned>(), keys_sorted.get<unsigned>(),
                                              idx.get<unsigned>(), idx_sorted.get<unsigned>(), int(g.N), 0, end_bit,
                                              s), op);
  cuda::Scratch temp(std::max(scan_bytes, sort_bytes), s, op);

  const unsigned vox_blocks = cuda::blocks_for(g.N, kThreads), seg_blocks = cuda::blocks_for(g.n_seg, kThreads);
  fill_kernel<T><<<seg_blocks, kThreads, 0, s>>>(mdc.get<T>(), g.n_seg, T(1));
  cuda::check_launch(op);
  Assign<T> a{img, mask, seg, mdc.get<T>(), wins.get<Win>(), cell_start.get<unsigned>(),
              cell_count.get<unsigned>(), nullptr, T(spacing[0]), T(spacing[1]), T(spacing[2]),
              T(1.0 / double(stepf * stepf)), !ignore_color, slic_zero, start_label, lab, changed.get<int>()};
  for (int64_t it = 0; it < max_iter; ++it) {
    // the centres binned by the cells their windows overlap
    cuda::check(cudaMemsetAsync(cell_count.get<void>(), 0, ncells * sizeof(unsigned), s), op);
    bin_centres<T, false><<<seg_blocks, kThreads, 0, s>>>(seg, g, wins.get<Win>(), cell_count.get<unsigned>(),
                                                           nullptr, nullptr);
    cuda::check_launch(op);
    cuda::check(cub::DeviceScan::ExclusiveSum(temp.get<void>(), scan_bytes, cell_count.get<unsigned>(),
                                              cell_start.get<unsigned>(), int(ncells), s), op);
    cuda::check(cudaMemcpyAsync(cursor.get<void>(), cell_start.get<void>(), ncells * sizeof(unsigned),
                                cudaMemcpyDeviceToDevice, s), op);
    unsigned last[2] = {0, 0};   // the last cell's start and count: the lists' total length
    cuda::check(cudaMemcpyAsync(last, cell_start.get<unsigned>() + ncells - 1, sizeof(unsigned),
                                cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaMemcpyAsync(last + 1, cell_count.get<unsigned>() + ncells - 1, sizeof(unsigned),
                                cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    if (int64_t(last[0]) + last[1] > list_capacity) {
      list_capacity = std::max<int64_t>(int64_t(last[0]) + last[1], 2 * list_capacity);
      list.reset();
      list = std::make_unique<cuda::Scratch>(list_capacity * sizeof(unsigned), s, op);
    }
    unsigned* lists = list ? list->get<unsigned>() : nullptr;
    a.list = lists;
    bin_centres<T, true><<<seg_blocks, kThreads, 0, s>>>(seg, g, wins.get<Win>(), nullptr, cursor.get<unsigned>(),
                                                          lists);
    cuda::check_launch(op);
    // assignment
    cuda::check(cudaMemsetAsync(changed.get<void>(), 0, sizeof(int), s), op);
    assign_kernel<T><<<vox_blocks, kThreads, 0, s>>>(g, a);
    cuda::check_launch(op);
    int any = 0;
    cuda::check(cudaMemcpyAsync(&any, changed.get<void>(), sizeof(int), cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    if (!any) break;
    // centre update: voxels grouped by centre, raster order kept within each group (the sort is stable)
    centre_keys<<<vox_blocks, kThreads, 0, s>>>(g, lab, mask, start_label, keys.get<unsigned>(), idx.get<unsigned>());
    cuda::check_launch(op);
    cuda::check(cub::DeviceRadixSort::SortPairs(temp.get<void>(), sort_bytes, keys.get<unsigned>(),
                                                keys_sorted.get<unsigned>(), idx.get<unsigned>(),
                                                idx_sorted.get<unsigned>(), int(g.N), 0, end_bit, s), op);
    cuda::check(cudaMemsetAsync(run_start.get<void>(), 0, g.n_seg * sizeof(unsigned), s), op);
    cuda::check(cudaMemsetAsync(run_end.get<void>(), 0, g.n_seg * sizeof(unsigned), s), op);
    centre_runs<<<vox_blocks, kThreads, 0, s>>>(g.N, g.n_seg, keys_sorted.get<unsigned>(), run_start.get<unsigned>(),
                                                run_end.get<unsigned>());
    cuda::check_launch(op);
    // one warp per block: the few (serial) centre threads spread over every multiprocessor
    update_centres<T><<<cuda::blocks_for(g.n_seg, 32), 32, 0, s>>>(g, img, idx_sorted.get<unsigned>(),
                                                                   run_start.get<unsigned>(), run_end.get<unsigned>(),
                                                                   slic_zero, seg, mdc.get<T>());
    cuda::check_launch(op);
  }
}

}  // namespace

void slic_iterate_cuda(const View& image, const View& mask, bool use_mask, const View& segments, double step,
                       std::span<const int64_t> grid_steps, int64_t max_num_iter, std::span<const double> spacing,
                       bool slic_zero, int64_t start_label, bool ignore_color, const View& labels,
                       StreamHandle stream) {
  const char* op = "slic";
  cuda::DeviceGuard guard(image.device_id, op);
  const auto s = static_cast<cudaStream_t>(stream);
  const uint8_t* m = use_mask ? mask.ptr<uint8_t>() : nullptr;
  if (image.dtype == DType::F32)
    iterate<float>(image, m, segments, step, grid_steps, max_num_iter, spacing, slic_zero, start_label, ignore_color,
                   labels, s, op);
  else
    iterate<double>(image, m, segments, step, grid_steps, max_num_iter, spacing, slic_zero, start_label,
                    ignore_color, labels, s, op);
}

}  // namespace ndimg::segmentation
