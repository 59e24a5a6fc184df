// ndimg::ndimage filters over an arbitrary n-D footprint (scipy.ndimage semantics): correlation with
// n-D weights and the rank family (minimum, maximum, median, rank, percentile).
//
// A footprint is passed as a list of taps: `offsets` holds K rows of in.ndim integers, the position of
// each tap relative to the output element (scipy's centre and origin already applied). Inputs and
// outputs are views on one device; work runs on the thread pool (CPU) or is queued on `stream` (CUDA).
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/ndimage.hpp"

namespace ndimg::ndimage {

// out[i] = sum_k weights[k] * in[ext(i + offsets[k])]. `out` may be smaller than `in` (same ndim): the
// boundary extension always refers to `in`'s shape.
void correlate(const View& in, const View& out, std::span<const int64_t> offsets,
               std::span<const double> weights, Mode mode, double cval, StreamHandle stream = nullptr);

// K stencils at once (scikit-image's n-D edge kernels): stencil k is the next counts[k] taps of offsets and
// weights, summed in double in their order (value * weight, cval outside in constant mode) and rounded to
// the data's float type T. One stencil is the result; several give sqrt(sum of their squares in T) / scale,
// the division in T or, with scale_in_double, in double and rounded to T. `in` and `out` are float32 or
// float64 of one dtype and one shape.
void stencils(const View& in, const View& out, std::span<const int64_t> offsets, std::span<const double> weights,
              std::span<const int64_t> counts, Mode mode, double cval, double scale, bool scale_in_double,
              StreamHandle stream = nullptr);

// out[i] = the `rank`-th smallest (0-based) of { in[ext(i + offsets[k])] : k < K }.
void rank_filter(const View& in, const View& out, std::span<const int64_t> offsets, int64_t rank, Mode mode,
                 double cval, StreamHandle stream = nullptr);

// Sliding minimum (minimum = true) or maximum of `size` elements along `axis` (scipy's
// minimum_filter1d / maximum_filter1d); in-place (in == out) is allowed.
void min_max_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval,
                      int origin, bool minimum, StreamHandle stream = nullptr);

}  // namespace ndimg::ndimage
