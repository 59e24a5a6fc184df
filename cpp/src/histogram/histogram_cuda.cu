// CUDA schedules of the histograms: block-private counters in shared memory when the histogram is small.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "histogram/histogram.hpp"

namespace ndimg::histogram {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 4096;
constexpr int64_t kSharedBins = 12288;  // 48 KiB of counters: the dynamic shared memory any launch may take

// bin_at(i): the bin of the flat index i (negative: not counted).
template <class BinAt>
__global__ void histogram_kernel(int64_t n, BinAt bin_at, int64_t nbins, unsigned long long* counts) {
  extern __shared__ unsigned int local[];
  const bool shared = nbins <= kSharedBins;
  if (shared) {
    for (int64_t b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t b = bin_at(i);
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

template <class BinAt>
void run_histogram(int64_t n, BinAt bin_at, const View& counts, cudaStream_t s, const char* op) {
  const int64_t nbins = counts.size();
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n, kThreads), kMaxBlocks);
  const size_t shmem = nbins <= kSharedBins ? size_t(nbins) * sizeof(unsigned int) : 0;
  histogram_kernel<BinAt><<<blocks, kThreads, shmem, s>>>(n, bin_at, nbins,
                                                           reinterpret_cast<unsigned long long*>(counts.data));
  cuda::check_launch(op);
}

// The bin of one array's element (`bin` of its value).
template <class T, class Bin>
struct OneAt {
  const T* in;
  Layout l;
  Bin bin;
  __device__ int64_t operator()(int64_t i) const { return bin(in[in_offset(l, i)]); }
};
// The joint bin of two arrays' elements, the first at the layout's in_strides, the second at its out_strides.
template <class T, class Bin0, class Bin1>
struct PairAt {
  const T *in0, *in1;
  Layout l;
  Bin0 bin0;
  Bin1 bin1;
  int64_t n1;
  __device__ int64_t operator()(int64_t i) const {
    return joint_bin(bin0(in0[in_offset(l, i)]), bin1(in1[out_offset(l, i)]), n1);
  }
};

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

// The edges of one or two axes, one after the other, in the bin type B.
template <class B>
std::vector<B> edges_in(std::span<const double> a, std::span<const double> b = {}) {
  std::vector<B> e(a.begin(), a.end());
  e.insert(e.end(), b.begin(), b.end());
  return e;
}
// The bins of the `count` edges from `first` of edges held on the device and on the host.
template <class B>
UniformBin<B> uniform_bin_at(const B* device_edges, const std::vector<B>& host, size_t first, size_t count) {
  return UniformBin<B>{device_edges + first, host[first], host[first + count - 1], int64_t(count) - 1};
}

// Copies the host edges into the scratch on the device.
template <class B>
B* upload(cuda::Scratch& scratch, const std::vector<B>& e, cudaStream_t s, const char* op) {
  // pageable source: staged before cudaMemcpyAsync returns
  cuda::check(cudaMemcpyAsync(scratch.get<B>(), e.data(), e.size() * sizeof(B), cudaMemcpyHostToDevice, s), op);
  return scratch.get<B>();
}

}  // namespace

void integer_cuda(const View& in, int64_t lo, const View& counts, StreamHandle stream) {
  const char* op = "histogram_integer";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      throw TypeError("histogram_integer: integer image expected");
    } else {
      using At = OneAt<T, IntegerBin<T>>;
      run_histogram(in.size(), At{in.ptr<T>(), flat_layout(in, in), {lo, counts.shape[0]}}, counts, s, op);
    }
  });
}

void uniform_cuda(const View& in, std::span<const double> edges, const View& counts, StreamHandle stream) {
  const char* op = "histogram_uniform";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class T>() {
    using B = bin_t<T>;
    const std::vector<B> e = edges_in<B>(edges);
    cuda::Scratch de(e.size() * sizeof(B), s, op);
    const B* d = upload(de, e, s, op);
    using At = OneAt<T, UniformBin<B>>;
    run_histogram(in.size(), At{in.ptr<T>(), flat_layout(in, in), uniform_bin_at(d, e, 0, e.size())}, counts, s, op);
  });
}

void joint_integer_cuda(const View& in0, int64_t lo0, const View& in1, int64_t lo1, const View& counts,
                        StreamHandle stream) {
  const char* op = "histogram_joint_integer";
  cuda::DeviceGuard guard(in0.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in0.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      throw TypeError("histogram_joint_integer: integer arrays expected");
    } else {
      using At = PairAt<T, IntegerBin<T>, IntegerBin<T>>;
      const int64_t n0 = counts.shape[0], n1 = counts.shape[1];
      run_histogram(in0.size(), At{in0.ptr<T>(), in1.ptr<T>(), flat_layout(in0, in1), {lo0, n0}, {lo1, n1}, n1},
                    counts, s, op);
    }
  });
}

void joint_uniform_cuda(const View& in0, std::span<const double> edges0, const View& in1,
                        std::span<const double> edges1, const View& counts, StreamHandle stream) {
  const char* op = "histogram_joint_uniform";
  cuda::DeviceGuard guard(in0.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in0.dtype, [&]<class T>() {
    using B = bin_t<T>;
    const std::vector<B> e = edges_in<B>(edges0, edges1);
    cuda::Scratch de(e.size() * sizeof(B), s, op);
    const B* d = upload(de, e, s, op);
    using At = PairAt<T, UniformBin<B>, UniformBin<B>>;
    run_histogram(in0.size(),
                  At{in0.ptr<T>(), in1.ptr<T>(), flat_layout(in0, in1), uniform_bin_at(d, e, 0, edges0.size()),
                     uniform_bin_at(d, e, edges0.size(), edges1.size()), counts.shape[1]},
                  counts, s, op);
  });
}

}  // namespace ndimg::histogram
