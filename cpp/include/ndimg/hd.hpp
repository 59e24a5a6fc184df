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
// Products, sums and differences rounded one at a time, as scipy's C (and the host build, without FMA
// contraction) computes them: nvcc would contract them into FMAs. T is float or double, or on the host a GCC
// vector of doubles (always inlined there: the vector loops depend on it).
#if defined(__CUDACC__)
#define NDIMG_HD_RN __host__ __device__ __forceinline__
#else
#define NDIMG_HD_RN inline __attribute__((always_inline))
#endif
template <class T, class S>
NDIMG_HD_RN T mul_rn(T a, S b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return __fmul_rn(a, T(b));
  else return __dmul_rn(a, T(b));
#else
  return a * b;
#endif
}
template <class T>
NDIMG_HD_RN T add_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return __fadd_rn(a, b);
  else return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
template <class T>
NDIMG_HD_RN T sub_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return __fsub_rn(a, b);
  else return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
}  // namespace ndimg
