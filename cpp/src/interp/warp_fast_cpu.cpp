// CPU schedule of scikit-image's 2-D homography warp: output rows in parallel on the pool; each pixel's
// coordinates once, then every channel.
#include <algorithm>
#include <type_traits>

#include "interp/warp_fast.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::interp {
namespace {

typedef float f4 __attribute__((vector_size(16)));
// lanes (a0, b0, a1, b1) and the like from two vectors, in GCC's and Clang's spellings
#if defined(__clang__)
#define NDIMG_SHUFFLE(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
typedef int i4 __attribute__((vector_size(16)));
#define NDIMG_SHUFFLE(a, b, i, j, k, l) __builtin_shuffle(a, b, i4{i, j, k, l})
#endif

// Points x .. x + 3 of row y of a float image with contiguous rows, bicubic, where all four points' 4x4 taps
// lie inside the window (else false, nothing written): each tap row one 16-byte load, the four points' rows
// transposed into the columns of the Catmull-Rom arithmetic, done in vector lanes (each lane rounded as the
// scalar bicubic rounds it).
template <int Kind>
bool bicubic_quad(const Homography<float>& H, const Plane<float>& plane, const WarpWindow& w, int64_t y, int64_t x,
                  float* o, const View& out, int64_t nch, int64_t in_ch, int64_t out_ch) {
  {
    int64_t base[4];
    f4 xr, xc;
    for (int l = 0; l < 4; ++l) {
      float c, r;
      homography_point<float, Kind>(H, float(x + l + w.ox), float(y + w.oy), c, r);
      const int64_t rf = floor_index(r), cf = floor_index(c);
      if (!plane.inside(rf - 1, rf + 2, cf - 1, cf + 2)) return false;
      xr[l] = r - float(rf);
      xc[l] = c - float(cf);
      base[l] = (rf - 1 - plane.r_lo) * plane.rs + (cf - 1 - plane.c_lo);
    }
    float* dst = o + y * out.strides[0] + x * out.strides[1];
    for (int64_t k = 0; k < nch; ++k) {
      const float* p = plane.p + k * in_ch;
      f4 fr[4];
      for (int pr = 0; pr < 4; ++pr) {
        f4 row[4];
        for (int l = 0; l < 4; ++l) __builtin_memcpy(&row[l], p + base[l] + pr * plane.rs, sizeof(f4));
        const f4 t0 = NDIMG_SHUFFLE(row[0], row[1], 0, 4, 1, 5), t1 = NDIMG_SHUFFLE(row[2], row[3], 0, 4, 1, 5);
        const f4 t2 = NDIMG_SHUFFLE(row[0], row[1], 2, 6, 3, 7), t3 = NDIMG_SHUFFLE(row[2], row[3], 2, 6, 3, 7);
        const f4 fc[4] = {NDIMG_SHUFFLE(t0, t1, 0, 1, 4, 5), NDIMG_SHUFFLE(t0, t1, 2, 3, 6, 7),
                          NDIMG_SHUFFLE(t2, t3, 0, 1, 4, 5), NDIMG_SHUFFLE(t2, t3, 2, 3, 6, 7)};
        fr[pr] = catmull_rom<float>(xc, fc);
      }
      const f4 v = catmull_rom<float>(xr, fr);
      for (int l = 0; l < 4; ++l) dst[l * out.strides[1] + k * out_ch] = v[l];
    }
  }
  return true;
}

}  // namespace

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
      auto point = [&](int64_t x) {
        T c, r;
        homography_point<T, Kind>(H, T(x + w.ox), T(y + w.oy), c, r);
        T* dst = o + y * out.strides[0] + x * out.strides[1];
        Plane<T> im = plane;
        for (int64_t k = 0; k < nch; ++k, im.p += in_ch)
          dst[k * out_ch] = Order == 1 ? bilinear(im, r, c) : bicubic(im, r, c);
      };
      int64_t x = 0;
      if constexpr (Order == 3 && std::is_same_v<T, float>) {
        if (plane.cs == 1)
          for (; x + 4 <= cols; x += 4)
            if (!bicubic_quad<Kind>(H, plane, w, y, x, o, out, nch, in_ch, out_ch))
              for (int l = 0; l < 4; ++l) point(x + l);
      }
      for (; x < cols; ++x) point(x);
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
