// The rank filters' CUDA schedule: one thread per segment of an image line (kSegment pixels), each with its
// own window histogram, built at the segment's first pixel and slid along it by the footprint's run ends
// (the CPU schedule's update). Histograms of up to kSharedBytes per block live in shared memory as 16-bit
// counts (windows of fewer than 65536 pixels), interleaved so that a warp reading one bin reads 32 banks;
// larger ones live in a global scratch buffer of 32-bit counts, interleaved over all threads (coalesced),
// with as many threads as the buffer's bound allows looping over the segments.
#include <algorithm>

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
    store(q, h, pop, wsum, int64_t(src[row + c0]), dst + (row + c0) * q.odepth);
    for (int64_t col = c0 + 1; col < c1; ++col) {
      for (int64_t k = 0; k < q.n_east; ++k) tap(east[k], col, 1);
      for (int64_t k = 0; k < q.n_west; ++k) tap(west[k], col - 1, -1);
      store(q, h, pop, wsum, int64_t(src[row + col]), dst + (row + col) * q.odepth);
    }
  }
}

template <class T, class O>
void launch(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out,
            cudaStream_t s, const char* op) {
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
