// CUDA schedules of the ridge filters: one thread per pixel, block maxima folded by a single block.
#include <limits>

#include "core/cuda.cuh"
#include "filters/ridges.hpp"

namespace ndimg::filters {
namespace {

using namespace ridge_math;

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;  // partial maxima of one reduction, folded by a single block

// One thread per pixel (grid-stride): the measure folded into the accumulator.
template <Ridge K, int N, class T, class A>
__global__ void accumulate_kernel(HessianPtrs<T> hp, A* acc, Consts<T> k, A scale, bool fill, int64_t n) {
  NDIMG_GRID_STRIDE(i, n) {
    T h[n_elems(N)];
    gather<N>(hp, i, h);
    acc[i] = fold<K, N>(acc[i], h, k, scale, fill);
  }
}

// NaN-propagating maximum over a block of kThreads threads; the result is valid in thread 0.
template <class T>
__device__ T block_max(T v) {
  __shared__ T buf[kThreads];
  buf[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = nan_max(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  return buf[0];
}

template <Ridge K, int N, class T>
__global__ void max_kernel(HessianPtrs<T> hp, Consts<T> k, T lowest, int64_t n, T* partial) {
  T local = lowest;
  NDIMG_GRID_STRIDE(i, n) {
    T h[n_elems(N)];
    gather<N>(hp, i, h);
    local = nan_max(local, measure<K, N>(h, k));
  }
  const T b = block_max(local);
  if (threadIdx.x == 0) partial[blockIdx.x] = b;
}

template <class T>
__global__ void max_final(const T* partial, unsigned count, T lowest, T* out) {
  T local = lowest;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) local = nan_max(local, partial[i]);
  const T b = block_max(local);
  if (threadIdx.x == 0) *out = b;
}

}  // namespace

double ridge_max_cuda(Ridge kind, std::span<const View> hessian, const RidgeParams& p, StreamHandle stream) {
  const char* op = "ridge_max";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(hessian[0].device_id, op);
  const int64_t n = hessian[0].size();
  const unsigned blocks = std::min(cuda::blocks_for(n, kThreads), kMaxBlocks);
  double result = 0;
  dispatch_ridge<Ridge::Meijering, Ridge::Norm>(kind, hessian[0].ndim, [&]<Ridge K, int N>() {
    dispatch_ridge_types(hessian[0].dtype, hessian[0].dtype, [&]<class T, class>() {
      const T lowest = -std::numeric_limits<T>::infinity();
      cuda::Scratch scratch((blocks + 1) * sizeof(T), s, op);
      T* partial = scratch.get<T>();
      max_kernel<K, N, T><<<blocks, kThreads, 0, s>>>(hessian_ptrs<T>(hessian), Consts<T>(p), lowest, n, partial);
      cuda::check_launch(op);
      max_final<T><<<1, kThreads, 0, s>>>(partial, blocks, lowest, partial + blocks);
      cuda::check_launch(op);
      T host = 0;
      cuda::check(cudaMemcpyAsync(&host, partial + blocks, sizeof(T), cudaMemcpyDeviceToHost, s), op);
      cuda::check(cudaStreamSynchronize(s), op);
      result = double(host);
    });
  });
  return result;
}

void ridge_accumulate_cuda(Ridge kind, std::span<const View> hessian, const View& acc, const RidgeParams& p,
                           StreamHandle stream) {
  const char* op = "ridge_accumulate";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(acc.device_id, op);
  const int64_t n = acc.size();
  dispatch_ridge<Ridge::Frangi, Ridge::Sato, Ridge::Meijering>(kind, acc.ndim, [&]<Ridge K, int N>() {
    dispatch_ridge_types(hessian[0].dtype, acc.dtype, [&]<class T, class A>() {
      accumulate_kernel<K, N, T, A><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(
          hessian_ptrs<T>(hessian), acc.ptr<A>(), Consts<T>(p), A(p.scale), p.fill, n);
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::filters
