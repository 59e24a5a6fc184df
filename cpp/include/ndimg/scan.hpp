// ndimg::scan — cumulative sums along one axis, on either engine.
#pragma once

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::scan {

// out = numpy.cumsum(in, axis, dtype=out.dtype): each input element converted to out's dtype as NumPy's cast
// converts it, then summed along `axis` in out's type, one element after the other in index order on every
// line (floats round as np.cumsum's do, bit for bit, on both engines; integers wrap). `in` and `out` have one
// shape; `in` may be `out` itself (in place, same strides), else they must not overlap. Out's dtype: any but
// bool. In each view the axes before `axis` must merge into one (step over each other contiguously), and so
// must those after it (C-contiguous views always do; reshape the others first). `half`: NumPy's float16
// cumsum, held in a float32 `out` (each element rounded to float16 and each sum of two float16 values in
// float rounded to float16 again; out's values convert to float16 exactly).
void cumsum(const View& in, const View& out, int axis, bool half = false, StreamHandle stream = nullptr);

// Window sums along the middle axis of (outer, n, inner) host views (C-contiguous, float32 or float64, one
// dtype): with c = numpy.cumsum(in, axis=1) (its roundings), out[:, i] = c[:, i + w] - c[:, i] for i in
// [0, n - w - 1) (scikit-image's _window_sum_2d/_3d along one axis). out: (outer, n - w - 1, inner).
void window_sums(const View& in, const View& out, int64_t w);

}  // namespace ndimg::scan
