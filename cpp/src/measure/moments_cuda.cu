// CUDA schedules of the moments. Per label: each thread takes a short run of consecutive elements, adds the
// terms of a stretch in one slot in registers and flushes them with global atomics when the slot changes. One
// image: a warp per segment of a line, its lanes' power sums reduced by shuffles, then the segment's terms
// (two per lane) added in registers; a block's warps reduced in shared memory to one partial per block, and
// the partials summed in a fixed order by a second kernel (no atomics: the same bits on every run).
#include <algorithm>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "measure/moments.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::measure {
namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxBlocks = 8192;
constexpr int kRun = 16;

struct MomentArgs {
  const int32_t* slots;
  const int64_t* origin;
  const double* center;
  const double* spacing;
  int64_t shape[kMaxMomentDim];
  int64_t n, ns;
  int nd, order, terms;
  double* out;
};

template <class T>
__global__ void label_moments_kernel(MomentArgs a, const T* in, Layout l) {
  const int64_t runs = (a.n + kRun - 1) / kRun;
  NDIMG_GRID_STRIDE(r, runs) {
    const int64_t b0 = r * kRun, b1 = min(b0 + kRun, a.n);
    int64_t idx[kMaxMomentDim];
    int64_t rem = b0;
    for (int d = a.nd - 1; d >= 0; --d) {
      idx[d] = rem % a.shape[d];
      rem /= a.shape[d];
    }
    double acc[kMaxMomentTerms], c[kMaxMomentDim];
    for (int k = 0; k < a.terms; ++k) acc[k] = 0;
    int32_t cur = -1;
    for (int64_t i = b0; i < b1; ++i) {
      const int32_t s = a.slots[i];
      if (s >= 0 && s < a.ns) {
        if (s != cur) {
          if (cur >= 0)
            for (int k = 0; k < a.terms; ++k) atomicAdd(a.out + int64_t(cur) * a.terms + k, acc[k]), acc[k] = 0;
          cur = s;
        }
        moment_coords(idx, a.nd, s, a.origin, a.center, a.spacing, c);
        add_moment_terms(c, a.nd, a.order, in ? double(in[in_offset(l, i)]) : 1.0, acc);
      }
      for (int d = a.nd - 1; d >= 0 && ++idx[d] == a.shape[d]; --d) idx[d] = 0;
    }
    if (cur >= 0)
      for (int k = 0; k < a.terms; ++k) atomicAdd(a.out + int64_t(cur) * a.terms + k, acc[k]);
  }
}

constexpr int kSegment = 1024;        // elements of a line per warp
constexpr unsigned kWarps = 8;        // per block
constexpr unsigned kMaxPartials = 1024;  // blocks

struct ImageArgs {
  int64_t shape[kMaxMomentDim], strides[kMaxMomentDim];
  double center[kMaxMomentDim], spacing[kMaxMomentDim];
  int64_t lines, per_line, segments;  // per_line: segments per line
  int nd, order, terms;
};

template <class T>
__global__ void __launch_bounds__(kWarps * 32) image_moments_kernel(ImageArgs a, const T* in, double* partials) {
  __shared__ double red[kWarps][kMaxMomentTerms];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, last = a.nd - 1, K = a.order + 1;
  double acc0 = 0, acc1 = 0;  // terms lane and lane + 32
  for (int64_t seg = int64_t(blockIdx.x) * kWarps + warp; seg < a.segments; seg += int64_t(gridDim.x) * kWarps) {
    const int64_t l = seg / a.per_line, x0 = seg % a.per_line * kSegment, x1 = min(x0 + kSegment, a.shape[last]);
    double outer[kMaxMomentDim];
    const int64_t base = line_origin(l, last, a.shape, a.strides, a.spacing, a.center, outer);
    // the power sums in registers: unrolled loops, static indices
    double s[kMaxMomentOrder + 1] = {};
    for (int64_t x = x0 + lane; x < x1; x += 32) {
      const double c = moment_coord(x, a.spacing[last], a.center[last]);
      double p = double(in[base + x * a.strides[last]]);
#pragma unroll
      for (int k = 0; k <= kMaxMomentOrder; ++k)
        if (k < K) s[k] += p, p *= c;
    }
    double s0 = 0, s1 = 0;  // the sums terms lane and lane + 32 take
#pragma unroll
    for (int k = 0; k <= kMaxMomentOrder; ++k) {
      if (k >= K) break;
      for (int o = 16; o > 0; o /= 2) s[k] += __shfl_xor_sync(0xffffffffu, s[k], o);
      if (lane % K == k) s0 = s[k];
      if ((lane + 32) % K == k) s1 = s[k];
    }
    if (lane < a.terms) acc0 += line_term(s0, outer, a.nd, a.order, lane);
    if (lane + 32 < a.terms) acc1 += line_term(s1, outer, a.nd, a.order, lane + 32);
  }
  red[warp][lane] = acc0;
  red[warp][lane + 32] = acc1;
  __syncthreads();
  if (threadIdx.x < unsigned(a.terms)) {
    double v = 0;
    for (unsigned w = 0; w < kWarps; ++w) v += red[w][threadIdx.x];
    partials[int64_t(blockIdx.x) * a.terms + threadIdx.x] = v;
  }
}
// A block per term: strided sums over the partials, then a tree in shared memory (a fixed order).
constexpr unsigned kSumThreads = 256;
__global__ void sum_partials(const double* partials, unsigned blocks, int terms, double* out) {
  __shared__ double r[kSumThreads];
  const int t = blockIdx.x;
  double v = 0;
  for (unsigned b = threadIdx.x; b < blocks; b += kSumThreads) v += partials[int64_t(b) * terms + t];
  r[threadIdx.x] = v;
  __syncthreads();
  for (unsigned k = kSumThreads / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) r[threadIdx.x] += r[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[t] = r[0];
}

}  // namespace

void image_moments_cuda(const View& in, const double* center, const double* spacing, int order, double* out,
                        StreamHandle stream) {
  const char* op = "measure_image_moments";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  ImageArgs a{};
  a.nd = in.ndim;
  a.order = order;
  a.terms = 1;
  for (int d = 0; d < in.ndim; ++d) {
    a.shape[d] = in.shape[d];
    a.strides[d] = in.strides[d];
    a.center[d] = center[d];
    a.spacing[d] = spacing[d];
    a.terms *= order + 1;
  }
  const int64_t width = in.shape[in.ndim - 1];
  a.lines = width ? in.size() / width : 0;
  a.per_line = (width + kSegment - 1) / kSegment;
  a.segments = a.lines * a.per_line;
  // the block count hangs on the shape only: the partials add up in the same order on every run
  const unsigned blocks = unsigned(std::clamp<int64_t>((a.segments + kWarps - 1) / kWarps, 1, kMaxPartials));
  cuda::Scratch partials(size_t(blocks) * a.terms * sizeof(double), s, op);
  dispatch_dtype(in.dtype, [&]<class T>() {
    image_moments_kernel<T><<<blocks, kWarps * 32, 0, s>>>(a, in.ptr<T>(), partials.get<double>());
  });
  cuda::check_launch(op);
  sum_partials<<<a.terms, kSumThreads, 0, s>>>(partials.get<double>(), blocks, a.terms, out);
  cuda::check_launch(op);
}

void label_moments_cuda(const View& in, const View& slots, const View& origin, const View& center,
                        const View& spacing, int order, const View& out, StreamHandle stream) {
  const char* op = "measure_label_moments";
  cuda::DeviceGuard guard(slots.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  MomentArgs a{slots.ptr<int32_t>(), origin.ptr<int64_t>(), center.ptr<double>(), spacing.ptr<double>(), {},
               slots.size(), out.shape[0], slots.ndim, order, int(out.shape[1]), out.ptr<double>()};
  for (int d = 0; d < slots.ndim; ++d) a.shape[d] = slots.shape[d];
  const int64_t runs = (a.n + kRun - 1) / kRun;
  const unsigned g = std::min<unsigned>(cuda::blocks_for(runs, kThreads), kMaxBlocks);
  if (in.size() == 0) {
    label_moments_kernel<double><<<g, kThreads, 0, s>>>(a, nullptr, flat_layout(slots, slots));
  } else {
    dispatch_dtype(in.dtype, [&]<class T>() {
      label_moments_kernel<T><<<g, kThreads, 0, s>>>(a, in.ptr<T>(), flat_layout(in, slots));
    });
  }
  cuda::check_launch(op);
}

}  // namespace ndimg::measure
