// Runs a per-pixel functor f(r, c) over a rows x cols image, for the feature kernels (canny.hpp,
// texture.hpp): on the CPU pool in bands of rows, or (each_pixel.cuh) one CUDA thread per pixel.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ndimg/parallel.hpp"

namespace ndimg::feature {

// `cost`: rough work per pixel, so that cheap kernels take long runs of pixels and expensive ones short runs.
// The runs cover the image in C order (a single row, such as a list of corners, is split too).
template <class F>
void each_pixel_cpu(int64_t rows, int64_t cols, int64_t cost, const F& f) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, cost));
  parallel_for(rows * cols, grain, [&](int64_t a, int64_t b) {
    int64_t r = a / cols, c = a - r * cols;
    for (int64_t i = a; i < b; ++i) {
      f(r, c);
      if (++c == cols) c = 0, ++r;
    }
  });
}

}  // namespace ndimg::feature
