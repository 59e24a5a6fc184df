// CUDA schedule of scikit-image's 2-D homography warp: one thread per output pixel (consecutive threads along
// a row), every channel in turn; the math of warp_fast.hpp, rounded operation by operation as on the host.
#include "core/cuda.cuh"
#include "interp/warp_fast.hpp"

namespace ndimg::interp {
namespace {

constexpr unsigned kThreads = 256;

struct WarpArgs {
  int64_t in_rs, in_cs, in_ch, out_rs, out_cs, out_ch, nch, out_cols;
  WarpWindow w;
  int64_t in_rows, in_cols;  // of the window held
};

template <class T, int Order>
__global__ void warp_kernel(const T* in, T* out, const Homography<T> H, const WarpArgs a, PadMode mode, T cval,
                            int64_t total) {
  NDIMG_GRID_STRIDE(i, total) {
    const int64_t y = i / a.out_cols, x = i - y * a.out_cols;
    T c, r;
    homography_point(H, T(x + a.w.ox), T(y + a.w.oy), c, r);
    T* dst = out + y * a.out_rs + x * a.out_cs;
    for (int64_t k = 0; k < a.nch; ++k) {
      const Plane<T> im{in + k * a.in_ch, a.w.rows, a.w.cols, a.in_rs, a.in_cs, mode, cval,
                        a.w.r_lo, a.w.r_lo + a.in_rows, a.w.c_lo, a.w.c_lo + a.in_cols};
      dst[k * a.out_ch] = Order == 1 ? bilinear(im, r, c) : bicubic(im, r, c);
    }
  }
}

}  // namespace

void warp_homography_cuda(const View& in, const double* matrix, const View& out, int order, PadMode mode,
                          double cval, const WarpWindow& w, StreamHandle stream) {
  const char* op = "warp";
  const int64_t total = out.shape[0] * out.shape[1];
  if (total == 0) return;
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const bool ch = in.ndim == 3;
  const WarpArgs a{in.strides[0], in.strides[1], ch ? in.strides[2] : 0, out.strides[0], out.strides[1],
                   ch ? out.strides[2] : 0, ch ? in.shape[2] : 1, out.shape[1], w, in.shape[0], in.shape[1]};
  auto launch = [&]<class T>() {
    const Homography<T> H = make_homography<T>(matrix);
    const unsigned blocks = cuda::blocks_for(total, kThreads);
    auto kernel = order == 1 ? warp_kernel<T, 1> : warp_kernel<T, 3>;
    kernel<<<blocks, kThreads, 0, s>>>(in.ptr<T>(), out.ptr<T>(), H, a, mode, T(cval), total);
  };
  if (in.dtype == DType::F32) launch.template operator()<float>();
  else launch.template operator()<double>();
  cuda::check_launch(op);
}

}  // namespace ndimg::interp
