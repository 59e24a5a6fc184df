#include <vector>

#include "core/output.hpp"
#include "ndimage/grey.hpp"

namespace ndimg::ndimage {

void grey_filter(const View& in, const View& out, std::span<const int64_t> offsets, std::span<const double> s,
                 bool minimum, Mode mode, double cval, StreamHandle stream) {
  const char* op = minimum ? "grey_erosion" : "grey_dilation";
  require_same_shape(in, out, op);
  const Taps t = make_taps(in, out, offsets, op);
  if (t.count == 0) throw ValueError(std::string(op) + ": the footprint has no taps");
  if (int64_t(s.size()) != t.count) throw ValueError(std::string(op) + ": one structure value per offset is required");
  if (out.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, grey_filter_cuda(in, out, t, s, minimum, mode, cval, stream));
    return;
  }
  // CPU schedule: lines over the pool (cpu_for_each_output), each element a pass over the taps.
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using A = grey_t<TI>;
    const std::vector<A> sa = [&] {
      std::vector<A> v;
      for (double x : s) v.push_back(cast_to<A>(x));
      return v;
    }();
    const TI* src = in.ptr<TI>();
    with_kernel_output_cpu<TI>(out, [&]<class TO>(const View& ov) {
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = ov.strides[d];
      TO* dst = ov.ptr<TO>();
      cpu_for_each_output(g, 32768 / t.count, [&](const int64_t* c, int64_t o) {
        dst[o] = cast_to<TO>(grey_taps<A>(g, c, src, t.offsets.data(), t.linear.data(), s.data(), sa.data(),
                                          t.count, minimum, mode, cast_to<A>(cval)));
      });
    });
  });
}

}  // namespace ndimg::ndimage
