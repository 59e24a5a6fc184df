// CPU schedule of scikit-image's 2-D homography warp: output rows in parallel on the pool; each pixel's
// coordinates once, then every channel.
#include <algorithm>

#include "interp/warp_fast.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::interp {

void warp_homography_cpu(const View& in, const double* matrix, const View& out, int order, PadMode mode,
                         double cval) {
  const int64_t nch = in.ndim == 3 ? in.shape[2] : 1;
  const int64_t in_ch = in.ndim == 3 ? in.strides[2] : 0, out_ch = out.ndim == 3 ? out.strides[2] : 0;
  const int64_t rows = out.shape[0], cols = out.shape[1];
  if (rows == 0 || cols == 0) return;
  auto run = [&]<class T>() {
    const Homography<T> H = make_homography<T>(matrix);
    T* o = out.ptr<T>();
    parallel_for(rows, std::max<int64_t>(1, 4096 / (cols * nch)), [&](int64_t r0, int64_t r1) {
      for (int64_t y = r0; y < r1; ++y) {
        for (int64_t x = 0; x < cols; ++x) {
          T c, r;
          homography_point(H, T(x), T(y), c, r);
          T* dst = o + y * out.strides[0] + x * out.strides[1];
          for (int64_t k = 0; k < nch; ++k) {
            const Plane<T> im{in.ptr<T>() + k * in_ch, in.shape[0], in.shape[1], in.strides[0], in.strides[1],
                              mode, T(cval)};
            dst[k * out_ch] = order == 1 ? bilinear(im, r, c) : bicubic(im, r, c);
          }
        }
      }
    });
  };
  if (in.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace ndimg::interp
