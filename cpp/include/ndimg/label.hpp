// ndimg::label — connected components (union-find) of n-D arrays, on either engine.
#pragma once
#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::label {

// out (bool) = the elements with value > low whose face-connected component (scipy.ndimage.label's
// default structure) of {value > low} contains an element with value > high: hysteresis thresholding.
// Comparisons in double.
void seeded_components(const View& in, double low, double high, const View& out, StreamHandle stream = nullptr);

}  // namespace ndimg::label
