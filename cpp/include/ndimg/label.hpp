// ndimg::label — connected components (union-find) of n-D arrays, on either engine.
#pragma once
#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::label {

// out (bool) = the elements with value > low whose face-connected component (scipy.ndimage.label's
// default structure) of {value > low} contains an element with value > high: hysteresis thresholding.
// Comparisons in double.
void seeded_components(const View& in, double low, double high, const View& out, StreamHandle stream = nullptr);

// seeded_components, and each element's component: roots (int64, C-contiguous) = -1 for the elements <= low,
// else the C-order index of the first element of its component. Per-block components whose labels are then
// merged across block faces (hysteresis and labels over chunked arrays).
void seeded_roots(const View& in, double low, double high, const View& out, const View& roots,
                  StreamHandle stream = nullptr);

}  // namespace ndimg::label
