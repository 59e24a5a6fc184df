// ndimg::ndimage — the primitives everything stands on, with scipy.ndimage's semantics.
// Every function takes views of input and output (same shape unless stated), runs on the device the
// views live on (CPU: the thread pool; CUDA: queued on `stream`), and throws ndimg errors.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "ndimg/array.hpp"

namespace ndimg {

using StreamHandle = void*;  // cudaStream_t; nullptr is the legacy default stream

enum class Mode : uint8_t { Reflect, Constant, Nearest, Mirror, Wrap };

namespace ndimage {

// out = correlation of `in` along `axis` with `weights` (scipy.ndimage.correlate1d). `origin` as scipy.
void correlate1d(const View& in, const View& out, std::span<const double> weights, int axis, Mode mode,
                 double cval, int origin, StreamHandle stream = nullptr);

// One 1-D pass of a separable filter along `axis`: correlation with `weights` (`origin` as scipy) or, with
// `mean`, the average of `size` values (weights.size() when size is 0; weights are not read) as
// scipy.ndimage.uniform_filter1d computes it. `cval` is the value read outside the input in constant mode.
struct Pass1d {
  int axis = 0;
  std::vector<double> weights;
  Mode mode = Mode::Reflect;
  double cval = 0;
  int origin = 0;
  bool mean = false;
  int64_t size = 0;
};

// Runs `passes` in order the way scipy chains 1-D filters: the first reads `in`, every pass writes `out`
// (so intermediate results are rounded to out's dtype) and the next one reads it back. On the CPU `in`
// may be `out`; on CUDA they must not overlap (copy first).
void separable(const View& in, const View& out, std::span<const Pass1d> passes, StreamHandle stream = nullptr);

// out = sqrt(parts[0]^2 + parts[1]^2 + ...) / scale, every operation rounded in out's floating-point dtype
// in that order (as NumPy computes the gradient magnitude in skimage.filters' edge filters). The parts
// have out's shape and dtype; out may be one of them. CPU only.
void root_sum_squares(std::span<const View> parts, const View& out, double scale);

// scipy.ndimage.uniform_filter1d: the mean of `size` values along `axis`.
void uniform_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval, int origin,
                      StreamHandle stream = nullptr);

}  // namespace ndimage
}  // namespace ndimg
