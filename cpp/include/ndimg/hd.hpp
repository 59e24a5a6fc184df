// Functions marked NDIMG_HD are the math of an operation: compiled for the host and, under nvcc, for
// the device, so both engines run the same code.
#pragma once
#if defined(__CUDACC__)
#define NDIMG_HD __host__ __device__ __forceinline__
#else
#define NDIMG_HD inline
#endif

// x * x rounded on its own, as NumPy's separate multiply rounds it: nvcc would otherwise contract it with
// the sum or difference it feeds into an FMA.
namespace ndimg {
template <class T>
NDIMG_HD T square_rn(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) return __dmul_rn(x, x);
  else if constexpr (sizeof(T) == 4) return __fmul_rn(x, x);
#endif
  return x * x;
}
}  // namespace ndimg
