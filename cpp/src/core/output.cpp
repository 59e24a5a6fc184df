#include "core/output.hpp"

#include <algorithm>

#include "ndimg/parallel.hpp"

namespace ndimg {

void cast_from_f64_cpu(const double* src, const View& out) {
  const int last = out.ndim - 1;
  const int64_t n = last < 0 ? 1 : out.shape[last], lines = n ? out.size() / n : 0;
  const int64_t s = last < 0 ? 1 : out.strides[last];
  dispatch_dtype(out.dtype, [&]<class TO>() {
    parallel_for(lines, std::max<int64_t>(1, 65536 / std::max<int64_t>(n, 1)), [&](int64_t l0, int64_t l1) {
      for (int64_t l = l0; l < l1; ++l) {
        // element offset of line l (C order over the axes before the last)
        int64_t o = 0, rem = l;
        for (int d = last - 1; d >= 0; --d) {
          o += (rem % out.shape[d]) * out.strides[d];
          rem /= out.shape[d];
        }
        TO* dst = out.ptr<TO>() + o;
        const double* a = src + l * n;
        for (int64_t i = 0; i < n; ++i) dst[i * s] = cast_to<TO>(a[i]);
      }
    });
  });
}

}  // namespace ndimg
