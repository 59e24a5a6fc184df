// Runs a per-pixel functor f(r, c) over a rows x cols image, for the feature kernels (canny.hpp,
// texture.hpp): on the CPU pool in bands of rows, or (each_pixel.cuh) one CUDA thread per pixel.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ndimg/parallel.hpp"

namespace ndimg::feature {

// `cost`: rough work per pixel, so that cheap kernels take wide bands and expensive ones narrow bands.
template <class F>
void each_pixel_cpu(int64_t rows, int64_t cols, int64_t cost, const F& f) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, cols * cost));
  parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) f(r, c);
  });
}

}  // namespace ndimg::feature
