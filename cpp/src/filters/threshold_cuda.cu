#include <algorithm>
#include <type_traits>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "core/cuda.cuh"
#include "filters/threshold.hpp"

namespace ndimg::threshold {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxReduceBlocks = 1024;

#define NDIMG_GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

NDIMG_HD int64_t in_offset(const Layout& l, int64_t i) { return flat_offset(i, l.ndim, l.shape, l.in_strides); }
NDIMG_HD int64_t out_offset(const Layout& l, int64_t i) { return flat_offset(i, l.ndim, l.shape, l.out_strides); }

// ---- reductions: per-thread accumulators, a shared-memory tree per block, block partials merged on the host
struct StatsOp {
  using Acc = StatsAcc;
  static NDIMG_HD Acc identity() { return stats_identity(); }
  template <class T> NDIMG_HD void add(Acc& a, T v) const { stats_add(a, v); }
  static NDIMG_HD void merge(Acc& a, const Acc& b) { stats_merge(a, b); }
};
template <class T>
struct ClassSumsOp {
  using Acc = ClassSums;
  T shift, t;
  static NDIMG_HD Acc identity() { return ClassSums{}; }
  NDIMG_HD void add(Acc& a, T v) const { class_sums_add<T>(a, v, shift, t); }
  static NDIMG_HD void merge(Acc& a, const Acc& b) { class_sums_merge(a, b); }
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

template <class Op>
__global__ void reduce_index_partials(int64_t n, Op op, typename Op::Acc* partials) {
  typename Op::Acc acc = Op::identity();
  NDIMG_GRID_STRIDE(i, n) op.add(acc, i);
  store_block_partial<Op>(acc, partials);
}

template <class Acc, class Op>
Acc merge_partials(const Acc* partials, unsigned blocks, cudaStream_t s, const char* op_name) {
  std::vector<Acc> host(blocks);
  cuda::check(cudaMemcpyAsync(host.data(), partials, blocks * sizeof(Acc), cudaMemcpyDeviceToHost, s), op_name);
  cuda::check(cudaStreamSynchronize(s), op_name);
  Acc total = Op::identity();
  for (const Acc& a : host) Op::merge(total, a);
  return total;
}

template <class T, class Op>
typename Op::Acc reduce(const View& in, Op op, cudaStream_t s, const char* op_name) {
  using Acc = typename Op::Acc;
  const int64_t n = in.size();
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n, kThreads), kMaxReduceBlocks);
  cuda::Scratch part(blocks * sizeof(Acc), s, op_name);
  Layout l = make_layout(in, in);
  reduce_partials<T, Op><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), l, n, op, part.get<Acc>());
  cuda::check_launch(op_name);
  return merge_partials<Acc, Op>(part.get<Acc>(), blocks, s, op_name);
}

// Li's tolerance over a sorted buffer: the gap reduction reads neighbours of a contiguous array.
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
  NDIMG_GRID_STRIDE(i, n) {
    const T v = in[in_offset(l, i)];
    y[i] = v - v == T(0) ? T(v - shift) : T(INFINITY);
  }
}

// ---- histograms: block-private counters in shared memory when the histogram is small
constexpr int64_t kSharedBins = 8192;

template <class T, class Bin>
__global__ void histogram_kernel(const T* in, Layout l, int64_t n, Bin bin, int64_t nbins,
                                 unsigned long long* counts) {
  extern __shared__ unsigned int local[];
  const bool shared = nbins <= kSharedBins;
  if (shared) {
    for (int64_t b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t b = bin(in[in_offset(l, i)]);
    if (b < 0) continue;
    if (shared) atomicAdd(&local[b], 1u);
    else atomicAdd(&counts[b], 1ull);
  }
  if (shared) {
    __syncthreads();
    for (int64_t b = threadIdx.x; b < nbins; b += blockDim.x)
      if (local[b]) atomicAdd(&counts[b], (unsigned long long)local[b]);
  }
}

template <class T, class Bin>
void run_histogram(const View& in, Bin bin, const View& counts, cudaStream_t s, const char* op) {
  const int64_t n = in.size(), nbins = counts.shape[0];
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n, kThreads), 4 * kMaxReduceBlocks);
  const size_t shmem = nbins <= kSharedBins ? size_t(nbins) * sizeof(unsigned int) : 0;
  histogram_kernel<T, Bin><<<blocks, kThreads, shmem, s>>>(in.ptr<T>(), make_layout(in, in), n, bin, nbins,
                                                          reinterpret_cast<unsigned long long*>(counts.data));
  cuda::check_launch(op);
}

template <class T>
struct IntegerBin {
  int64_t lo, nbins;
  __device__ int64_t operator()(T v) const { return integer_bin(v, lo, nbins); }
};
template <class B>
struct UniformBin {
  const B* edges;
  B first, last;
  int64_t nbins;
  template <class T>
  __device__ int64_t operator()(T v) const { return uniform_bin<B>(static_cast<B>(v), first, last, nbins, edges); }
};

// ---- hysteresis: union-find with atomicMin on roots (label equivalence); the root is the smallest index
template <class I>
__device__ I find_root(const I* par, I i) {
  const volatile I* p = par;
  I r = p[i];
  while (r != i) {
    i = r;
    r = p[i];
  }
  return i;
}
template <class I>
__device__ void unite(I* par, I a, I b) {
  while (true) {
    a = find_root(par, a);
    b = find_root(par, b);
    if (a == b) return;
    if (a > b) { I t = a; a = b; b = t; }
    const I old = atomicMin(&par[b], a);  // hang b's root under a, unless it moved meanwhile
    if (old == b) return;
    b = old;
  }
}

template <class T>
__global__ void classify(const T* in, Layout l, int64_t n, double low, double high, uint8_t* m) {
  NDIMG_GRID_STRIDE(i, n) {
    const T v = in[in_offset(l, i)];
    m[i] = above(v, high) ? 2 : above(v, low) ? 1 : 0;
  }
}
template <class I>
__global__ void init_parents(const uint8_t* m, int64_t n, I* par) {
  NDIMG_GRID_STRIDE(i, n) par[i] = m[i] ? I(i) : I(-1);
}
template <class I>
__global__ void merge_neighbours(const uint8_t* m, Layout l, int64_t n, I* par) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) continue;
    int64_t rem = i, step = 1;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      if (c > 0 && m[i - step]) unite<I>(par, I(i), I(i - step));
      step *= l.shape[d];
    }
  }
}
template <class I>
__global__ void flatten_and_flag(const uint8_t* m, int64_t n, I* par, uint8_t* reach) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) continue;
    const I r = find_root<I>(par, I(i));
    par[i] = r;  // concurrent finds read either an older ancestor or the root: both end at the root
    if (m[i] == 2) reach[r] = 1;
  }
}
template <class I>
__global__ void write_hysteresis(const uint8_t* m, const I* par, const uint8_t* reach, Layout l, int64_t n,
                                 bool* out) {
  NDIMG_GRID_STRIDE(i, n) out[out_offset(l, i)] = m[i] && reach[find_root<I>(par, I(i))];
}

template <class I>
void hysteresis_labels(const uint8_t* m, const Layout& l, int64_t n, const View& out, cudaStream_t s) {
  const char* op = "hysteresis";
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch par(n * sizeof(I), s, op), reach(n, s, op);
  cuda::check(cudaMemsetAsync(reach.get<uint8_t>(), 0, n, s), op);
  init_parents<I><<<blocks, kThreads, 0, s>>>(m, n, par.get<I>());
  cuda::check_launch(op);
  merge_neighbours<I><<<blocks, kThreads, 0, s>>>(m, l, n, par.get<I>());
  cuda::check_launch(op);
  flatten_and_flag<I><<<blocks, kThreads, 0, s>>>(m, n, par.get<I>(), reach.get<uint8_t>());
  cuda::check_launch(op);
  write_hysteresis<I><<<blocks, kThreads, 0, s>>>(m, par.get<I>(), reach.get<uint8_t>(), l, n, out.ptr<bool>());
  cuda::check_launch(op);
}

// ---- Niblack / Sauvola: value and square into double buffers, window sums per axis, then the formula
template <class T, class F>
__global__ void load_values(const T* in, Layout l, int64_t n, double* sum, double* sq) {
  NDIMG_GRID_STRIDE(i, n) {
    const F v = static_cast<F>(in[in_offset(l, i)]);
    sum[i] = double(v);
    sq[i] = double(F(v * v));
  }
}
__global__ void window_pass(const double* sum, const double* sq, double* sum_out, double* sq_out, int64_t n,
                            int64_t len, int64_t inner, int64_t w) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t pos = (i / inner) % len, base = i - pos * inner;
    sum_out[i] = window_sum(pos, len, w, [&](int64_t q) { return sum[base + q * inner]; });
    sq_out[i] = window_sum(pos, len, w, [&](int64_t q) { return sq[base + q * inner]; });
  }
}
template <class F>
__global__ void write_local(const double* sum, const double* sq, Layout l, int64_t n, F size, LocalKind kind, F k,
                            F r, F* out) {
  NDIMG_GRID_STRIDE(i, n) out[out_offset(l, i)] = local_value<F>(sum[i], sq[i], size, kind, k, r);
}

}  // namespace

ImageStats image_stats_cuda(const View& in, StreamHandle stream) {
  const char* op = "image_stats";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  return dispatch_dtype(in.dtype, [&]<class T>() { return stats_result(reduce<T>(in, StatsOp{}, s, op)); });
}

ClassSums class_sums_cuda(const View& in, double shift, double t, StreamHandle stream) {
  const char* op = "class_sums";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (in.dtype == DType::F32) return reduce<float>(in, ClassSumsOp<float>{float(shift), float(t)}, s, op);
  if (in.dtype == DType::F64) return reduce<double>(in, ClassSumsOp<double>{shift, t}, s, op);
  throw TypeError("class_sums: float image expected");
}

template <class T>
double min_gap_typed(const View& in, double shift, cudaStream_t s, const char* op) {
  const int64_t n = in.size();
  if (n > INT32_MAX) throw ValueError("min_gap: images of more than 2^31 - 1 pixels are not supported on CUDA");
  cuda::Scratch keys(2 * n * sizeof(T), s, op);
  T* y = keys.get<T>();
  T* sorted = y + n;
  shifted_values<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(in.ptr<T>(), make_layout(in, in), n, T(shift), y);
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

double min_gap_cuda(const View& in, double shift, StreamHandle stream) {
  const char* op = "min_gap";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  if (in.dtype == DType::F32) return min_gap_typed<float>(in, shift, s, op);
  if (in.dtype == DType::F64) return min_gap_typed<double>(in, shift, s, op);
  throw TypeError("min_gap: float image expected");
}

void histogram_integer_cuda(const View& in, int64_t lo, const View& counts, StreamHandle stream) {
  const char* op = "histogram_integer";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) throw TypeError("histogram_integer: integer image expected");
    else run_histogram<T>(in, IntegerBin<T>{lo, counts.shape[0]}, counts, s, op);
  });
}

void histogram_uniform_cuda(const View& in, std::span<const double> edges, const View& counts, StreamHandle stream) {
  const char* op = "histogram_uniform";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class T>() {
    using B = bin_t<T>;
    std::vector<B> e(edges.begin(), edges.end());
    cuda::Scratch de(e.size() * sizeof(B), s, op);
    // pageable source: staged before cudaMemcpyAsync returns
    cuda::check(cudaMemcpyAsync(de.get<B>(), e.data(), e.size() * sizeof(B), cudaMemcpyHostToDevice, s), op);
    run_histogram<T>(in, UniformBin<B>{de.get<B>(), e.front(), e.back(), counts.shape[0]}, counts, s, op);
  });
}

void hysteresis_cuda(const View& in, double low, double high, const View& out, StreamHandle stream) {
  const char* op = "hysteresis";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const Layout l = make_layout(in, out);
  cuda::Scratch m(n, s, op);
  dispatch_dtype(in.dtype, [&]<class T>() {
    classify<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(in.ptr<T>(), l, n, low, high, m.get<uint8_t>());
  });
  cuda::check_launch(op);
  if (n < INT32_MAX) hysteresis_labels<int>(m.get<uint8_t>(), l, n, out, s);
  else hysteresis_labels<long long>(m.get<uint8_t>(), l, n, out, s);
}

void local_threshold_cuda(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind,
                          double k, double r, StreamHandle stream) {
  const char* op = "local_threshold";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  const Layout l = make_layout(in, out);
  cuda::Scratch buf(4 * n * sizeof(double), s, op);
  double* a_sum = buf.get<double>();
  double* a_sq = a_sum + n;
  double* b_sum = a_sq + n;
  double* b_sq = b_sum + n;
  int64_t area = 1;
  for (int64_t w : window) area *= w;
  auto body = [&]<class F>() {
    dispatch_dtype(in.dtype, [&]<class T>() {
      load_values<T, F><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), l, n, a_sum, a_sq);
    });
    cuda::check_launch(op);
    int64_t inner = n;
    for (int d = 0; d < in.ndim; ++d) {
      inner /= in.shape[d];
      if (window[d] == 1) continue;
      window_pass<<<blocks, kThreads, 0, s>>>(a_sum, a_sq, b_sum, b_sq, n, in.shape[d], inner, window[d]);
      cuda::check_launch(op);
      std::swap(a_sum, b_sum);
      std::swap(a_sq, b_sq);
    }
    write_local<F><<<blocks, kThreads, 0, s>>>(a_sum, a_sq, l, n, F(area), kind, F(k), F(r), out.ptr<F>());
    cuda::check_launch(op);
  };
  if (out.dtype == DType::F32) body.template operator()<float>();
  else body.template operator()<double>();
}

}  // namespace ndimg::threshold
