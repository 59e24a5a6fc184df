// The rank filters' CUDA schedules.
// Direct, for a footprint small against the passes its statistic makes over a window: a block of threads
// stages its output tile plus the footprint's reach (the image's values, -1 outside the image or the mask)
// in shared memory with coalesced loads, then each thread reads its pixels' windows there through the
// footprint's offsets into the tile (a ValueWindow).
// Histogram, for the others: one thread per segment of an image line (kSegment pixels), each with its
// own window histogram, built at the segment's first pixel and slid along it by the footprint's run ends
// (the CPU schedule's update). Histograms of up to kSharedBytes per block live in shared memory as 16-bit
// counts (windows of fewer than 65536 pixels), interleaved so that a warp reading one bin reads 32 banks;
// larger ones live in a global scratch buffer of 32-bit counts, interleaved over all threads (coalesced),
// with as many threads as the buffer's bound allows looping over the segments.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/cuda.cuh"
#include "rank/rank.hpp"

namespace ndimg::rank {
namespace {

using namespace math;

constexpr int64_t kSegment = 32;
constexpr unsigned kThreads = 64;
constexpr int64_t kSharedBytes = 48 * 1024;
constexpr int64_t kScratchBytes = int64_t(256) << 20;

// One thread's histogram: bin i at p[i * stride], then the groups' counts (group j at p[(n + j) * stride]).
template <class Count>
struct Strided {
  Count* p;
  int64_t stride, n;
  __host__ __device__ Count& operator[](int64_t i) const { return p[i * stride]; }
  __host__ __device__ Count& group(int64_t j) const { return p[(n + j) * stride]; }
};

template <class T, class O, class Count, bool Shared>
__global__ void rank_kernel(const T* __restrict__ src, const uint8_t* __restrict__ msk, const Offset* __restrict__ lists,
                            Geometry q, O* __restrict__ dst, Count* scratch) {
  extern __shared__ unsigned char smem[];
  const int64_t gtid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nthreads = int64_t(gridDim.x) * blockDim.x;
  const Strided<Count> h = Shared ? Strided<Count>{reinterpret_cast<Count*>(smem) + threadIdx.x, int64_t(blockDim.x), q.n_bins}
                                  : Strided<Count>{scratch + gtid, nthreads, q.n_bins};
  const int64_t slots = q.n_bins + groups_of(q.n_bins);
  const int64_t R = q.rows, C = q.cols, segs = (C + kSegment - 1) / kSegment, items = q.planes * R * segs;
  const Offset* east = lists + q.n_full;
  const Offset* west = east + q.n_east;
  // grid-stride over segments; a thread past the last still owns its histogram slot but touches nothing
  for (int64_t item = gtid; item < items; item += nthreads) {
    const int64_t line = item / segs, c0 = (item % segs) * kSegment, c1 = min(C, c0 + kSegment);
    const int64_t p = line / R, r = line % R, row = line * C;
    if (q.need_bins)
      for (int64_t i = 0; i < slots; ++i) h[i] = 0;
    int64_t pop = 0, wsum = 0;
    auto tap = [&](const Offset& o, int64_t col, int sign) {
      const int64_t pp = p + o.dp, rr = r + o.dr, cc = col + o.dc;
      if (pp < 0 || pp >= q.planes || rr < 0 || rr >= R || cc < 0 || cc >= C) return;
      const int64_t at = (pp * R + rr) * C + cc;
      if (msk && !msk[at]) return;
      const int64_t v = src[at];
      pop += sign;
      wsum += sign * v;
      if (q.need_bins) {
        h[v] += Count(sign);
        if (q.need_groups) h.group(v >> kGroupShift) += Count(sign);
      }
    };
    for (int64_t k = 0; k < q.n_full; ++k) tap(lists[k], c0, 1);
    const HistWindow<Strided<Count>> w{h, q.n_bins};
    store(q, w, pop, wsum, int64_t(src[row + c0]), dst + (row + c0) * q.odepth);
    for (int64_t col = c0 + 1; col < c1; ++col) {
      for (int64_t k = 0; k < q.n_east; ++k) tap(east[k], col, 1);
      for (int64_t k = 0; k < q.n_west; ++k) tap(west[k], col - 1, -1);
      store(q, w, pop, wsum, int64_t(src[row + col]), dst + (row + col) * q.odepth);
    }
  }
}

// The direct schedule's block: kTileW x kTileRows threads over an output tile kTileW wide and `rows` high
// (each thread every kTileRows-th row of its column), the grid's x the tiles of a plane, its y the planes. The staged tile is planes x trows x
// tcols values: the output tile widened by the footprint's reach, its origin at the footprint's least
// offsets (min_dp, min_dr, min_dc) from the output tile's.
constexpr int kTileW = 32, kTileRows = 8;
constexpr int64_t kDirectShared = 48 * 1024;

struct Tile {
  int32_t min_dp, min_dr, min_dc;
  int32_t planes, trows, tcols, rows;
  int32_t off_bytes;
  int32_t col_tiles;  // the footprint's offsets into the tile come first in shared memory
};

// A pixel's window in the staged tile: its footprint element k at byte offset off[k] from base, the offsets
// read four at a time (off 16-byte aligned).
struct TileTaps {
  const unsigned char* base;
  const int32_t* off;
  __device__ __forceinline__ int32_t at(int32_t o) const { return *reinterpret_cast<const int32_t*>(base + o); }
  template <class F>
  __device__ __forceinline__ void each(int32_t m, F f) const {
    const int4* o4 = reinterpret_cast<const int4*>(off);
    int32_t k = 0;
    for (; k + 4 <= m; k += 4) {
      const int4 o = o4[k >> 2];
      f(at(o.x));
      f(at(o.y));
      f(at(o.z));
      f(at(o.w));
    }
    for (; k < m; ++k) f(at(off[k]));
  }
};

template <class T, class O, int Parts>
__global__ void __launch_bounds__(kTileW * kTileRows) direct_kernel(const T* __restrict__ src, const uint8_t* __restrict__ msk,
                                                                   const int32_t* __restrict__ offs, Geometry q, Tile t,
                                                                   O* __restrict__ dst) {
  extern __shared__ __align__(16) unsigned char smem[];
  int32_t* off = reinterpret_cast<int32_t*>(smem);
  int32_t* tile = reinterpret_cast<int32_t*>(smem + t.off_bytes);
  const int m = int(q.n_full);
  for (int k = threadIdx.y * kTileW + threadIdx.x; k < m; k += kTileW * kTileRows) off[k] = offs[k];
  const int64_t R = q.rows, C = q.cols;
  const int32_t rt = int32_t(blockIdx.x) / t.col_tiles, ct = int32_t(blockIdx.x) - rt * t.col_tiles;
  const int64_t r0 = int64_t(rt) * t.rows, c0 = int64_t(ct) * kTileW, col = c0 + threadIdx.x;
  for (int64_t p = blockIdx.y; p < q.planes; p += gridDim.y) {
    __syncthreads();  // the offsets written, the last plane's readers done
    // every staged value in the image and the mask: the scan counts no absent ones
    const bool inside = !msk && p + t.min_dp >= 0 && p + t.min_dp + t.planes <= q.planes && r0 + t.min_dr >= 0 &&
                        r0 + t.min_dr + t.trows <= R && c0 + t.min_dc >= 0 && c0 + t.min_dc + t.tcols <= C;
    // a warp per staged row at a time: consecutive threads, consecutive columns
    for (int i = threadIdx.y; i < t.planes * t.trows; i += kTileRows) {
      const int tp = i / t.trows;
      const int64_t pp = p + t.min_dp + tp, rr = r0 + t.min_dr + (i - tp * t.trows);
      const bool line = pp >= 0 && pp < q.planes && rr >= 0 && rr < R;
      const int64_t base = line ? (pp * R + rr) * C + c0 + t.min_dc : 0;  // the staged row's first column
      int32_t* trow = tile + i * t.tcols;
      if (inside) {
        for (int tc = threadIdx.x; tc < t.tcols; tc += kTileW) trow[tc] = src[base + tc];
      } else {
        for (int tc = threadIdx.x; tc < t.tcols; tc += kTileW) {
          const int64_t cc = c0 + t.min_dc + tc;
          trow[tc] = line && cc >= 0 && cc < C && (!msk || msk[base + tc]) ? int32_t(src[base + tc]) : -1;
        }
      }
    }
    __syncthreads();
    if (col >= C) continue;
    for (int y = threadIdx.y; y < t.rows && r0 + y < R; y += kTileRows) {
      ValueWindow<TileTaps> w{TileTaps{reinterpret_cast<const unsigned char*>(tile + y * t.tcols + threadIdx.x), off}, m,
                              q.n_bins};
      if (inside) w.template scan<Parts, false>();
      else w.template scan<Parts, true>();
      const int64_t at = (p * R + r0 + y) * C + col;
      store(q, w, w.pop, w.sum, int64_t(src[at]), dst + at);
    }
  }
}

// The direct schedule where the statistic has it, the tile fits shared memory and its passes over the
// window's values cost less than the histogram's updates and scans (or NDIMG_RANK_SCHEDULE forces it):
// launched, true; else false. On an H200 (4096^2 uint8, disk(5): 81 values, 22 run ends) a pass over a
// window's value cost about a ninth of a histogram update, and the bin scans of 16 groups two thirds of
// the histogram schedule's time.
template <class T, class O>
bool launch_direct(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out,
                   cudaStream_t s, const char* op) {
  if (!has_direct(q) || q.schedule == kForceHistogram) return false;
  if (q.schedule != kForceDirect &&
      q.n_full * direct_passes(q) >
          8 * (q.n_east + q.n_west) * (q.need_bins ? 3 : 1) + (q.need_bins ? 2 * groups_of(q.n_bins) : 0))
    return false;
  int32_t lo[3] = {lists[0].dp, lists[0].dr, lists[0].dc}, hi[3] = {lo[0], lo[1], lo[2]};
  for (int64_t k = 1; k < q.n_full; ++k) {
    const int32_t o[3] = {lists[k].dp, lists[k].dr, lists[k].dc};
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], o[d]);
      hi[d] = std::max(hi[d], o[d]);
    }
  }
  Tile t{lo[0], lo[1], lo[2], hi[0] - lo[0] + 1, 0, kTileW + hi[2] - lo[2], 0,
         int32_t((q.n_full * int64_t(sizeof(int32_t)) + 15) / 16 * 16)};
  // the tallest output tile (rows per thread 8, 4, 2, 1) whose staged values fit
  for (int32_t rows = 8 * kTileRows; rows >= kTileRows && !t.rows; rows /= 2) {
    const int64_t trows = rows + int64_t(hi[1]) - lo[1];
    if (t.off_bytes + int64_t(t.planes) * trows * t.tcols * int64_t(sizeof(int32_t)) <= kDirectShared) {
      t.rows = rows;
      t.trows = int32_t(trows);
    }
  }
  if (!t.rows) return false;
  std::vector<int32_t> offs(size_t(q.n_full));
  for (int64_t k = 0; k < q.n_full; ++k)
    offs[size_t(k)] = int32_t(sizeof(int32_t)) *
                      (((lists[k].dp - lo[0]) * t.trows + lists[k].dr - lo[1]) * t.tcols + lists[k].dc - lo[2]);
  cuda::Scratch doffs(offs.size() * sizeof(int32_t), s, op);
  cuda::check(cudaMemcpyAsync(doffs.get<void>(), offs.data(), offs.size() * sizeof(int32_t), cudaMemcpyHostToDevice, s), op);
  const int64_t col_tiles = (q.cols + kTileW - 1) / kTileW, tiles = col_tiles * ((q.rows + t.rows - 1) / t.rows);
  if (tiles > INT32_MAX) return false;
  t.col_tiles = int32_t(col_tiles);
  const size_t bytes = size_t(t.off_bytes) + size_t(t.planes) * t.trows * t.tcols * sizeof(int32_t);
  const dim3 blocks(unsigned(tiles), unsigned(std::min<int64_t>(q.planes, 65535)));
  auto go = [&](auto kernel) {
    kernel<<<blocks, dim3(kTileW, kTileRows), bytes, s>>>(image.ptr<T>(), q.use_mask ? mask.ptr<uint8_t>() : nullptr,
                                                          doffs.get<int32_t>(), q, t, out.ptr<O>());
  };
  switch (scan_parts(q)) {
    case 0: go(direct_kernel<T, O, 0>); break;
    case kScanSum: go(direct_kernel<T, O, kScanSum>); break;
    case kScanExtremes: go(direct_kernel<T, O, kScanExtremes>); break;
    default: go(direct_kernel<T, O, kScanAll>); break;
  }
  cuda::check_launch(op);
  return true;
}

template <class T, class O>
void launch(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out,
            cudaStream_t s, const char* op) {
  if (launch_direct<T, O>(image, mask, lists, q, out, s, op)) return;
  const int64_t items = q.planes * q.rows * ((q.cols + kSegment - 1) / kSegment);
  const size_t list_bytes = size_t(q.n_full + q.n_east + q.n_west) * sizeof(Offset);
  cuda::Scratch dlists(std::max<size_t>(list_bytes, sizeof(Offset)), s, op);
  if (list_bytes)
    cuda::check(cudaMemcpyAsync(dlists.get<void>(), lists, list_bytes, cudaMemcpyHostToDevice, s), op);
  // geometric_mean's logarithms: the host's table on the device (the CPU's values)
  Geometry g = q;
  cuda::Scratch dlogs(q.log_levels ? size_t(q.n_bins) * sizeof(double) : 0, s, op);
  if (q.log_levels) {
    cuda::check(cudaMemcpyAsync(dlogs.get<void>(), q.log_levels, size_t(q.n_bins) * sizeof(double),
                                cudaMemcpyHostToDevice, s), op);
    g.log_levels = dlogs.get<double>();
  }
  const T* src = image.ptr<T>();
  const uint8_t* msk = q.use_mask ? mask.ptr<uint8_t>() : nullptr;
  const int64_t slots = q.n_bins + groups_of(q.n_bins);
  const int64_t shared = slots * int64_t(kThreads) * int64_t(sizeof(uint16_t));
  // statistics without a histogram: the shared-memory kernel with no shared memory
  if (!q.need_bins || (q.n_full < 65536 && shared <= kSharedBytes)) {
    const unsigned blocks = unsigned(std::max<int64_t>(1, std::min<int64_t>((items + kThreads - 1) / kThreads, 1 << 20)));
    const size_t bytes = q.need_bins ? size_t(shared) : 0;
    rank_kernel<T, O, uint16_t, true><<<blocks, kThreads, bytes, s>>>(src, msk, dlists.get<Offset>(), g, out.ptr<O>(),
                                                                      nullptr);
  } else {
    const int64_t threads = std::max<int64_t>(
        kThreads, std::min<int64_t>(items, kScratchBytes / (slots * int64_t(sizeof(int32_t)))) / kThreads * kThreads);
    cuda::Scratch hist(size_t(threads * slots) * sizeof(int32_t), s, op);
    rank_kernel<T, O, int32_t, false><<<unsigned(threads / kThreads), kThreads, 0, s>>>(
        src, msk, dlists.get<Offset>(), g, out.ptr<O>(), hist.get<int32_t>());
  }
  cuda::check_launch(op);
}

template <class T>
void launch_in(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out,
               cudaStream_t s, const char* op) {
  switch (out.dtype) {
    case DType::U8: return launch<T, uint8_t>(image, mask, lists, q, out, s, op);
    case DType::U16: return launch<T, uint16_t>(image, mask, lists, q, out, s, op);
    case DType::F32: return launch<T, float>(image, mask, lists, q, out, s, op);
    default: return launch<T, double>(image, mask, lists, q, out, s, op);
  }
}

}  // namespace

void rank_cuda(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out,
               StreamHandle stream) {
  const char* op = "rank_filter";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (image.dtype == DType::U8) launch_in<uint8_t>(image, mask, lists, q, out, s, op);
  else launch_in<uint16_t>(image, mask, lists, q, out, s, op);
}

}  // namespace ndimg::rank
