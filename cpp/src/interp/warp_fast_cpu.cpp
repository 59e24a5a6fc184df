// CPU schedule of scikit-image's 2-D homography warp: output rows in parallel on the pool; each pixel's
// coordinates once, then every channel.
#include <algorithm>

#include "interp/warp_fast.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::interp {

void warp_homography_cpu(const View& in, const double* matrix, const View& out, int order, PadMode mode,
                         double cval, const WarpWindow& w) {
  const int64_t nch = in.ndim == 3 ? in.shape[2] : 1;
  const int64_t in_ch = in.ndim == 3 ? in.strides[2] : 0, out_ch = out.ndim == 3 ? out.strides[2] : 0;
  const int64_t rows = out.shape[0], cols = out.shape[1];
  if (rows == 0 || cols == 0) return;
  // the matrix kind and the order fixed per instantiation: the per-pixel loop has no dispatch left
  auto rows_of = [&]<class T, int Kind, int Order>(const Homography<T>& H, int64_t y0, int64_t y1) {
    T* o = out.ptr<T>();
    const Plane<T> plane{in.ptr<T>(), w.rows, w.cols, in.strides[0], in.strides[1], mode, T(cval),
                         w.r_lo, w.r_lo + in.shape[0], w.c_lo, w.c_lo + in.shape[1]};
    for (int64_t y = y0; y < y1; ++y) {
      for (int64_t x = 0; x < cols; ++x) {
        T c, r;
        homography_point<T, Kind>(H, T(x + w.ox), T(y + w.oy), c, r);
        T* dst = o + y * out.strides[0] + x * out.strides[1];
        Plane<T> im = plane;
        for (int64_t k = 0; k < nch; ++k, im.p += in_ch)
          dst[k * out_ch] = Order == 1 ? bilinear(im, r, c) : bicubic(im, r, c);
      }
    }
  };
  auto run = [&]<class T>() {
    const Homography<T> H = make_homography<T>(matrix);
    parallel_for(rows, std::max<int64_t>(1, 4096 / (cols * nch)), [&](int64_t y0, int64_t y1) {
      auto go = [&]<int Kind>() {
        if (order == 1) rows_of.template operator()<T, Kind, 1>(H, y0, y1);
        else rows_of.template operator()<T, Kind, 3>(H, y0, y1);
      };
      if (H.kind == 0) go.template operator()<0>();
      else if (H.kind == 1) go.template operator()<1>();
      else go.template operator()<2>();
    });
  };
  if (in.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace ndimg::interp
