#include <atomic>
#include <cstdint>
#include <mutex>

#include "core/cuda.cuh"

namespace ndimg::cuda {

namespace {
constexpr int kMaxDevices = 64;
std::once_flag pool_configured[kMaxDevices];

cudaMemPool_t configured_pool(int device, const char* op) {
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, device), op);
  if (device >= 0 && device < kMaxDevices)
    std::call_once(pool_configured[device], [&] {
      size_t free_bytes = 0, total = 0;
      if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return;
      uint64_t keep = total / 8;  // scratch of repeated calls stays mapped; other libraries keep the rest
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    });
  return pool;
}
std::atomic<int8_t> overlap_support[kMaxDevices];  // 0 unknown, 1 no, 2 yes
}  // namespace

bool overlapped_launches(const char* op) {
  int device = 0;
  check(cudaGetDevice(&device), op);
  if (device < 0 || device >= kMaxDevices) return false;
  int8_t known = overlap_support[device].load(std::memory_order_relaxed);
  if (!known) {
    int major = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), op);
    known = major >= 9 ? 2 : 1;
    overlap_support[device].store(known, std::memory_order_relaxed);
  }
  return known == 2;
}

void* pool_alloc(size_t bytes, cudaStream_t s, const char* op) {
  int device = 0;
  check(cudaGetDevice(&device), op);
  cudaMemPool_t pool = configured_pool(device, op);
  void* p = nullptr;
  cudaError_t e = cudaMallocAsync(&p, bytes, s);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    cudaStreamSynchronize(s);  // frees queued on the stream complete, then the pool gives back what it keeps
    cudaMemPoolTrimTo(pool, 0);
    e = cudaMallocAsync(&p, bytes, s);
  }
  check(e, op);
  return p;
}

}  // namespace ndimg::cuda
