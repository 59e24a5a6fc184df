#include <vector>

#include "core/output.hpp"
#include "ndimage/correlate_nd.hpp"

namespace ndimg::ndimage {

void correlate(const View& in, const View& out, std::span<const int64_t> offsets, std::span<const double> w,
               Mode mode, double cval, StreamHandle stream) {
  const char* op = "correlate";
  const Taps t = make_taps(in, out, offsets, op);
  if (int64_t(w.size()) != t.count) throw ValueError("correlate: one weight per offset is required");
  if (out.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, correlate_cuda(in, out, t, w, mode, cval, stream));
    return;
  }
  // CPU schedule: lines of the last axis over the pool, taps at precomputed offsets away from borders.
  dispatch_dtype(in.dtype, [&]<class TI>() {
    const TI* src = in.ptr<TI>();
    with_kernel_output_cpu<TI>(out, [&]<class TO>(const View& ov) {
      using C = correlate_t<TI, TO>;
      const std::vector<C> wc(w.begin(), w.end());
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = ov.strides[d];
      TO* dst = ov.ptr<TO>();
      cpu_for_each_output(g, 32768 / std::max<int64_t>(t.count, 1), [&](const int64_t* c, int64_t o) {
        dst[o] = cast_to<TO>(correlate_taps<C>(g, c, src, t.offsets.data(), t.linear.data(), wc.data(), t.count,
                                               mode, C(cval)));
      });
    });
  });
}

}  // namespace ndimg::ndimage
