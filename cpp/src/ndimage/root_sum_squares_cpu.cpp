// The gradient magnitude of the edge filters, one sweep on the thread pool instead of a NumPy
// temporary per part.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "ndimg/dispatch.hpp"
#include "ndimg/error.hpp"
#include "ndimg/ndimage.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {

void root_sum_squares(std::span<const View> parts, const View& out, double scale) {
  const char* op = "root_sum_squares";
  if (parts.empty()) throw ValueError("root_sum_squares: no parts given");
  if (!is_float(out.dtype)) throw TypeError("root_sum_squares: the output must be floating point");
  for (const View& p : parts) {
    require_same_shape(p, out, op);
    require_same_device(p, out, op);
    if (p.dtype != out.dtype) throw TypeError("root_sum_squares: parts and output differ in dtype");
  }
  if (out.device != Device::CPU) throw ValueError("root_sum_squares: CPU arrays only");
  if (out.size() == 0) return;
  const int64_t n = out.ndim == 0 ? 1 : out.shape[out.ndim - 1], nlines = out.size() / n;
  dispatch_dtype(out.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T s = T(scale);
      // line by line, a part at a time over a line buffer, so that contiguous lines vectorize
      auto line = [](const View& v, int64_t l) { return v.ndim == 0 ? 0 : line_offset(v, v.ndim - 1, l); };
      auto step = [](const View& v) { return v.ndim == 0 ? int64_t(1) : v.strides[v.ndim - 1]; };
      parallel_for(nlines, std::max<int64_t>(1, 16384 / n), [&](int64_t l0, int64_t l1) {
        std::vector<T> acc(static_cast<size_t>(n));
        for (int64_t l = l0; l < l1; ++l) {
          for (size_t q = 0; q < parts.size(); ++q) {
            const T* a = parts[q].ptr<T>() + line(parts[q], l);
            const int64_t sa = step(parts[q]);
            auto add = [&](int64_t i, T v) { acc[size_t(i)] = q == 0 ? v * v : acc[size_t(i)] + v * v; };
            if (sa == 1)
              for (int64_t i = 0; i < n; ++i) add(i, a[i]);
            else
              for (int64_t i = 0; i < n; ++i) add(i, a[i * sa]);
          }
          T* o = out.ptr<T>() + line(out, l);
          const int64_t so = step(out);
          if (so == 1)
            for (int64_t i = 0; i < n; ++i) o[i] = std::sqrt(acc[size_t(i)]) / s;
          else
            for (int64_t i = 0; i < n; ++i) o[i * so] = std::sqrt(acc[size_t(i)]) / s;
        }
      });
    }
  });
}

}  // namespace ndimg::ndimage
