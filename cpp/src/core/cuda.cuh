// CUDA plumbing shared by every kernel file: error checks that name the operation, and stream-ordered
// scratch memory.
#pragma once
#include <cuda_runtime.h>
#include <string>

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

inline unsigned blocks_for(int64_t n, unsigned threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 2147483647 ? 2147483647 : b));
}

}  // namespace ndimg::cuda
