// ndimg::ndimage grey morphology with a non-flat structuring element (scipy.ndimage's grey_erosion and
// grey_dilation given `structure`): the footprint family's tap lists with a value per tap.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/ndimage.hpp"

namespace ndimg::ndimage {

// out[i] = min_k (minimum) or max_k of in[ext(i + offsets[k])] + structure[k], over the K taps of `offsets`
// (K rows of in.ndim integers). scipy's arithmetic: the first tap is summed in double, the others in the
// input's type (integers wrap; the structure value cast to it as C casts), compared in double; cval is
// cast to the input's type. Erosion passes the negated structure; an empty structure is flat (scipy's
// minimum/maximum over a footprint). `in` and `out` have one shape.
void grey_filter(const View& in, const View& out, std::span<const int64_t> offsets,
                 std::span<const double> structure, bool minimum, Mode mode, double cval,
                 StreamHandle stream = nullptr);

}  // namespace ndimg::ndimage
