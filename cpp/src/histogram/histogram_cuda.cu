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
  const unsigned blocks = std::min<unsigned>(cuda::blocks_for(n, kThreads), kMaxBlocks);
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

}  // namespace

void integer_cuda(const View& in, int64_t lo, const View& counts, StreamHandle stream) {
  const char* op = "histogram_integer";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) throw TypeError("histogram_integer: integer image expected");
    else run_histogram<T>(in, IntegerBin<T>{lo, counts.shape[0]}, counts, s, op);
  });
}

void uniform_cuda(const View& in, std::span<const double> edges, const View& counts, StreamHandle stream) {
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

}  // namespace ndimg::histogram
