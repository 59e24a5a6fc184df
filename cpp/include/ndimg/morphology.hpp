// ndimg::morphology — binary morphology with scipy.ndimage's semantics, on either engine.
//
// A structure is passed as a list of taps: `offsets` holds K rows of in.ndim integers, the position of each
// true structure element relative to the output element (scipy's centre and origin applied).
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::morphology {

// scipy.ndimage's binary erosion, the step every binary operation is made of. The values are
// v = (in != 0) XOR invert; one pass computes, per element i,
//   v[i]                                     where use_mask and mask[i] == 0 (the element is kept),
//   0                                        where centre_is_true and v[i] == 0 (scipy's shortcut),
//   AND over taps k of v[i + offsets[k]]     else, border_value XOR invert for taps outside the array,
// and `iterations` passes run (< 1: until a pass changes nothing); out (bool, same shape) = the result XOR
// invert. invert = true with the reflected taps is scipy's dilation. `mask` has the input's shape (any
// real dtype, nonzero = set); it is not read unless use_mask.
void binary_erosion(const View& in, const View& out, std::span<const int64_t> offsets, const View& mask,
                    bool use_mask, bool border_value, bool invert, bool centre_is_true, int64_t iterations,
                    StreamHandle stream = nullptr);

}  // namespace ndimg::morphology
