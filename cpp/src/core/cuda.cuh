// CUDA plumbing shared by every kernel file: error checks that name the operation, and stream-ordered
// scratch memory.
#pragma once
#include <cuda_runtime.h>
#include <string>
#include <utility>

#include "ndimg/error.hpp"

namespace ndimg::cuda {

inline void check(cudaError_t e, const char* op) {
  if (e == cudaSuccess) return;
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free allocation error
    throw MemoryError(std::string(op) + ": out of GPU memory");
  }
  throw CudaError(std::string(op) + ": CUDA error: " + cudaGetErrorString(e));
}

// After a launch: configuration errors surface here, asynchronous ones at the caller's next sync.
inline void check_launch(const char* op) { check(cudaGetLastError(), op); }

// Stream-ordered allocation from the current device's default pool. The pool keeps freed memory up to a
// share of the device (by default it returns everything at each synchronization, and the next call pays
// to map it again); when an allocation fails the pool is trimmed and the allocation retried once.
void* pool_alloc(size_t bytes, cudaStream_t s, const char* op);

// Scratch memory allocated and freed in order on the caller's stream.
class Scratch {
 public:
  Scratch(size_t bytes, cudaStream_t s, const char* op) : stream_(s) {
    if (bytes) ptr_ = pool_alloc(bytes, s, op);
  }
  ~Scratch() {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T> T* get() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

// Makes the view's device current for the call and restores the caller's device afterwards.
class DeviceGuard {
 public:
  DeviceGuard(int device, const char* op) {
    check(cudaGetDevice(&prev_), op);
    if (prev_ != device) check(cudaSetDevice(device), op);
    else prev_ = -1;
  }
  ~DeviceGuard() {
    if (prev_ >= 0) cudaSetDevice(prev_);
  }

 private:
  int prev_ = -1;
};

// Programmatic dependent launch (compute capability 9.0 and up): a kernel launched by launch_overlapped may
// be scheduled while the kernel before it on the stream drains. Its first statement, wait_prior_grid(),
// waits until that kernel has finished and its writes are visible, so the launch latency and the previous
// kernel's tail overlap instead of adding up. Older devices get a plain launch, where the wait is a no-op.
__device__ __forceinline__ void wait_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

bool overlapped_launches(const char* op);  // whether the current device supports them

template <class... P, class... A>
void launch_overlapped(void (*kernel)(P...), dim3 grid, dim3 block, size_t shared, cudaStream_t s, const char* op,
                       A&&... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = shared;
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = overlapped_launches(op) ? 1 : 0;
  check(cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...), op);
}

// A grid-stride loop: i runs over [0, n) across the whole grid.
#define NDIMG_GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

inline unsigned blocks_for(int64_t n, unsigned threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 2147483647 ? 2147483647 : b));
}

// Stages value(k) into dst[k * step] for k < n, thread `tid` of `nthreads` taking k = tid, tid + nthreads,
// ...: Batch loads are issued before their results are stored, so that each thread keeps several global
// reads in flight (one at a time leaves the kernels waiting on memory latency, far below bandwidth). With
// CheckNaN, returns whether a staged value was NaN.
template <int Batch, bool CheckNaN = false, class C, class Value>
__device__ __forceinline__ bool stage(C* dst, int n, int step, int tid, int nthreads, const Value& value) {
  bool nan = false;
  for (int base = tid; base < n; base += Batch * nthreads) {
    C v[Batch];
#pragma unroll
    for (int u = 0; u < Batch; ++u)
      if (base + u * nthreads < n) v[u] = value(base + u * nthreads);
#pragma unroll
    for (int u = 0; u < Batch; ++u)
      if (base + u * nthreads < n) {
        if constexpr (CheckNaN) nan |= !(v[u] == v[u]);
        dst[(base + u * nthreads) * step] = v[u];
      }
  }
  return nan;
}

}  // namespace ndimg::cuda
