// One CUDA thread per pixel of a rows x cols image for the feature kernels' functors (each_pixel.hpp is
// the CPU twin).
#pragma once
#include <cstdint>

#include "core/cuda.cuh"

namespace ndimg::feature {

template <class F>
__global__ void each_pixel_kernel(F f, int64_t rows, int64_t cols) {
  NDIMG_GRID_STRIDE(i, rows * cols) f(i / cols, i % cols);
}

template <class F>
void each_pixel_cuda(int64_t rows, int64_t cols, const F& f, cudaStream_t s, const char* op) {
  constexpr unsigned threads = 256;
  each_pixel_kernel<<<cuda::blocks_for(rows * cols, threads), threads, 0, s>>>(f, rows, cols);
  cuda::check_launch(op);
}

}  // namespace ndimg::feature
