// CUDA schedules of the reductions: per-thread accumulators, a shared-memory tree per block, block partials
// merged by one more block (a fixed grid for a given size, so the order is the same on every call).
#include <algorithm>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "reduce/stats.hpp"

namespace ndimg::reduce {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxReduceBlocks = 1024;

struct StatsOp {
  using Acc = StatsAcc;
  static NDIMG_HD Acc identity() { return stats_identity(); }
  template <class T> NDIMG_HD void add(Acc& a, T v) const { stats_add(a, v); }
  static NDIMG_HD void merge(Acc& a, const Acc& b) { stats_merge(a, b); }
};
// The IEEE double sum of every value (the mean's: NaN and infinities propagate as NumPy's do).
struct SumOp {
  using Acc = double;
  static NDIMG_HD Acc identity() { return 0.0; }
  template <class T> NDIMG_HD void add(Acc& a, T v) const { a += static_cast<double>(v); }
  static NDIMG_HD void merge(Acc& a, const Acc& b) { a += b; }
};
template <class T>
struct SplitSumsOp {
  using Acc = SplitSums;
  T shift, t;
  static NDIMG_HD Acc identity() { return SplitSums{}; }
  NDIMG_HD void add(Acc& a, T v) const { split_sums_add<T>(a, v, shift, t); }
  static NDIMG_HD void merge(Acc& a, const Acc& b) { split_sums_merge(a, b); }
};

struct DiffSumsOp {
  using Acc = DiffSums;
  static NDIMG_HD Acc identity() { return DiffSums{}; }
  template <class T> NDIMG_HD void add(Acc& a, T x, T y) const { diff_sums_add(a, x, y); }
  static NDIMG_HD void merge(Acc& a, const Acc& b) { diff_sums_merge(a, b); }
};

// Merges the block's per-thread accumulators (a shared-memory tree) into partials[blockIdx.x].
template <class Op>
__device__ void store_block_partial(typename Op::Acc acc, typename Op::Acc* partials) {
  __shared__ typename Op::Acc sh[kThreads];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) Op::merge(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}

template <class T, class Op>
__global__ void reduce_partials(const T* in, Layout l, int64_t n, Op op, typename Op::Acc* partials) {
  typename Op::Acc acc = Op::identity();
  NDIMG_GRID_STRIDE(i, n) op.add(acc, in[in_offset(l, i)]);
  store_block_partial<Op>(acc, partials);
}

// Two inputs read in step: `a` at the layout's in_strides, `b` at its out_strides.
template <class T, class Op>
__global__ void reduce_pair_partials(const T* a, const T* b, Layout l, int64_t n, Op op, typename Op::Acc* partials) {
  typename Op::Acc acc = Op::identity();
  NDIMG_GRID_STRIDE(i, n) op.add(acc, a[in_offset(l, i)], b[out_offset(l, i)]);
  store_block_partial<Op>(acc, partials);
}

template <class Op>
__global__ void reduce_index_partials(int64_t n, Op op, typename Op::Acc* partials) {
  typename Op::Acc acc = Op::identity();
  NDIMG_GRID_STRIDE(i, n) op.add(acc, i);
  store_block_partial<Op>(acc, partials);
}

// Merges the partials in one block on the device (each thread a fixed stride of them, then the tree) into
// partials[0], a fixed order for a given grid, as the grid is for a given n; then finish(total) in thread 0.
struct NoFinish {
  template <class Acc> __device__ void operator()(const Acc&) const {}
};
template <class Op, class Finish = NoFinish>
__global__ void merge_partials_kernel(typename Op::Acc* partials, unsigned blocks, Finish finish = {}) {
  typename Op::Acc acc = Op::identity();
  for (unsigned i = threadIdx.x; i < blocks; i += blockDim.x) Op::merge(acc, partials[i]);
  store_block_partial<Op>(acc, partials);  // every thread has read its partials before the tree's first barrier
  if (threadIdx.x == 0) finish(partials[0]);
}

// The merged accumulator on the host (one copy and one sync).
template <class Acc, class Op>
Acc merge_partials(Acc* partials, unsigned blocks, cudaStream_t s, const char* op_name) {
  if (blocks > 1) {
    merge_partials_kernel<Op><<<1, kThreads, 0, s>>>(partials, blocks);
    cuda::check_launch(op_name);
  }
  Acc total;
  cuda::check(cudaMemcpyAsync(&total, partials, sizeof(Acc), cudaMemcpyDeviceToHost, s), op_name);
  cuda::check(cudaStreamSynchronize(s), op_name);
  return total;
}

// A fixed grid of partials for n elements, filled by launch(blocks, partials), then finish(partials, blocks).
template <class Op, class Launch, class Finish>
auto reduce_with(int64_t n, Launch&& launch, Finish&& finish, cudaStream_t s, const char* op_name) {
  using Acc = typename Op::Acc;
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n, kThreads), kMaxReduceBlocks);
  cuda::Scratch part(blocks * sizeof(Acc), s, op_name);
  launch(blocks, part.get<Acc>());
  cuda::check_launch(op_name);
  return finish(part.get<Acc>(), blocks);
}
// ... with the partials merged on the device and the total returned to the host.
template <class Op, class Launch>
typename Op::Acc reduce_with(int64_t n, Launch&& launch, cudaStream_t s, const char* op_name) {
  using Acc = typename Op::Acc;
  return reduce_with<Op>(n, launch, [&](Acc* part, unsigned blocks) {
    return merge_partials<Acc, Op>(part, blocks, s, op_name);
  }, s, op_name);
}

template <class T, class Op>
auto launch_partials(const View& in, Op op, cudaStream_t s) {
  return [&in, op, s](unsigned blocks, typename Op::Acc* part) {
    reduce_partials<T, Op><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), flat_layout(in, in), in.size(), op, part);
  };
}

template <class T, class Op>
typename Op::Acc reduce(const View& in, Op op, cudaStream_t s, const char* op_name) {
  return reduce_with<Op>(in.size(), launch_partials<T>(in, op, s), s, op_name);
}

template <class R>
struct WriteMean {
  R* out;
  int64_t n;
  __device__ void operator()(double sum) const { *out = mean_of<R>(sum, n); }
};

// The gap reduction reads neighbours of a contiguous sorted array.
template <class T>
struct GapOp {
  using Acc = double;
  const T* sorted;
  static NDIMG_HD Acc identity() { return INFINITY; }
  NDIMG_HD void add(Acc& a, int64_t i) const {
    const double g = sorted_gap(sorted[i], sorted[i + 1]);
    a = g < a ? g : a;
  }
  static NDIMG_HD void merge(Acc& a, const Acc& b) { a = b < a ? b : a; }
};
template <class T>
__global__ void shifted_values(const T* in, Layout l, int64_t n, T shift, T* y) {
  NDIMG_GRID_STRIDE(i, n) y[i] = shifted_or_inf(in[in_offset(l, i)], shift);
}

template <class T>
double min_gap_typed(const View& in, double shift, cudaStream_t s, const char* op) {
  const int64_t n = in.size();
  if (n > INT32_MAX) throw ValueError("min_gap: images of more than 2^31 - 1 pixels are not supported on CUDA");
  cuda::Scratch keys(2 * n * sizeof(T), s, op);
  T* y = keys.get<T>();
  T* sorted = y + n;
  shifted_values<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(in.ptr<T>(), flat_layout(in, in), n, T(shift), y);
  cuda::check_launch(op);
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, y, sorted, int(n), 0, int(sizeof(T) * 8), s), op);
  cuda::Scratch temp(temp_bytes, s, op);
  cuda::check(cub::DeviceRadixSort::SortKeys(temp.get<void>(), temp_bytes, y, sorted, int(n), 0, int(sizeof(T) * 8), s),
              op);
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n - 1, kThreads), kMaxReduceBlocks);
  cuda::Scratch part(blocks * sizeof(double), s, op);
  reduce_index_partials<GapOp<T>><<<blocks, kThreads, 0, s>>>(n - 1, GapOp<T>{sorted}, part.get<double>());
  cuda::check_launch(op);
  return merge_partials<double, GapOp<T>>(part.get<double>(), blocks, s, op);
}

}  // namespace

Stats stats_cuda(const View& in, StreamHandle stream) {
  const char* op = "image_stats";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  return dispatch_dtype(in.dtype, [&]<class T>() { return stats_result(reduce<T>(in, StatsOp{}, s, op)); });
}

void mean_cuda(const View& in, const View& out, StreamHandle stream) {
  const char* op = "mean";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  dispatch_dtype(in.dtype, [&]<class T>() {
    reduce_with<SumOp>(n, launch_partials<T>(in, SumOp{}, s), [&](double* part, unsigned blocks) {
      if (out.dtype == DType::F32)
        merge_partials_kernel<SumOp><<<1, kThreads, 0, s>>>(part, blocks, WriteMean<float>{out.ptr<float>(), n});
      else
        merge_partials_kernel<SumOp><<<1, kThreads, 0, s>>>(part, blocks, WriteMean<double>{out.ptr<double>(), n});
      cuda::check_launch(op);
    }, s, op);
  });
}

SplitSums split_sums_cuda(const View& in, double shift, double t, StreamHandle stream) {
  const char* op = "split_sums";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (in.dtype == DType::F32) return reduce<float>(in, SplitSumsOp<float>{float(shift), float(t)}, s, op);
  if (in.dtype == DType::F64) return reduce<double>(in, SplitSumsOp<double>{shift, t}, s, op);
  throw TypeError("split_sums: float image expected");
}

double min_gap_cuda(const View& in, double shift, StreamHandle stream) {
  const char* op = "min_gap";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (in.dtype == DType::F32) return min_gap_typed<float>(in, shift, s, op);
  if (in.dtype == DType::F64) return min_gap_typed<double>(in, shift, s, op);
  throw TypeError("min_gap: float image expected");
}

DiffSums diff_sums_cuda(const View& a, const View& b, StreamHandle stream) {
  const char* op = "diff_sums";
  cuda::DeviceGuard guard(a.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  return dispatch_dtype(a.dtype, [&]<class T>() {
    return reduce_with<DiffSumsOp>(a.size(), [&](unsigned blocks, DiffSums* part) {
      reduce_pair_partials<T, DiffSumsOp><<<blocks, kThreads, 0, s>>>(a.ptr<T>(), b.ptr<T>(), flat_layout(a, b),
                                                                      a.size(), DiffSumsOp{}, part);
    }, s, op);
  });
}

namespace {

// numpy_sum: one block a node of the split (stats.hpp's pairwise_node): thread 0 lists the node's blocks of at
// most kPairwiseBlock values in order, the threads sum them, thread 0 adds them up the node's tree; one more
// thread adds the node sums up the top levels.
constexpr int kMaxLeaves = 1024;  // a node of < 2^15 + 8 D values has at most about 580 blocks of >= 57

template <class T>
__global__ void pairwise_nodes_kernel(const T* a, int64_t n, int depth, T* node_sums) {
  __shared__ int32_t leaf_off[kMaxLeaves], leaf_len[kMaxLeaves];
  __shared__ T leaf_sum[kMaxLeaves];
  __shared__ int leaves;
  int64_t off, m;
  pairwise_node(n, depth, blockIdx.x, off, m);
  if (threadIdx.x == 0) {
    int k = 0;
    auto list = [&](int64_t o, int64_t len) {
      leaf_off[k] = int32_t(o);
      leaf_len[k] = int32_t(len);
      ++k;
      return T(0);
    };
    pairwise_tree<T>(0, m, list);
    leaves = k;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < leaves; k += blockDim.x) leaf_sum[k] = pairwise_block(a + off + leaf_off[k], leaf_len[k]);
  __syncthreads();
  if (threadIdx.x == 0) {
    int k = 0;
    auto take = [&](int64_t, int64_t) { return leaf_sum[k++]; };
    node_sums[blockIdx.x] = pairwise_tree<T>(0, m, take);
  }
}

template <class T>
__global__ void pairwise_top_kernel(T* node_sums, int depth, T* out) {
  *out = pairwise_top(node_sums, depth);
}

}  // namespace

void numpy_sum_cuda(const View& in, const View& out, StreamHandle stream) {
  const char* op = "numpy_sum";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const int depth = pairwise_depth(n);
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      cuda::Scratch nodes(sizeof(T) << depth, s, op);
      pairwise_nodes_kernel<T><<<1u << depth, 128, 0, s>>>(in.ptr<T>(), n, depth, nodes.get<T>());
      pairwise_top_kernel<T><<<1, 1, 0, s>>>(nodes.get<T>(), depth, out.ptr<T>());
      cuda::check_launch(op);
    }
  });
}

}  // namespace ndimg::reduce
