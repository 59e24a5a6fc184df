// stencils' entry: validate once, route to an engine.
#include <string>

#include "ndimage/stencils.hpp"

namespace ndimg::ndimage {

void stencils(const View& in, const View& out, std::span<const int64_t> offsets, std::span<const double> weights,
              std::span<const int64_t> counts, Mode mode, double cval, double scale, bool scale_in_double,
              StreamHandle stream) {
  const char* op = "stencils";
  require_same_shape(in, out, op);
  const Taps t = make_taps(in, out, offsets, op);
  if (!is_float(in.dtype) || out.dtype != in.dtype)
    throw TypeError("stencils: input and output must be float32 or float64 of one dtype");
  if (int64_t(weights.size()) != t.count) throw ValueError("stencils: one weight per offset is required");
  if (counts.empty()) throw ValueError("stencils: at least one stencil is required");
  int64_t taps = 0;
  for (int64_t n : counts) {
    if (n < 0) throw ValueError("stencils: negative tap count");
    taps += n;
  }
  if (taps != t.count) throw ValueError("stencils: the tap counts do not add up to the number of offsets");
  const StencilCombine sc{int64_t(counts.size()), scale, scale_in_double};
  if (out.size() == 0) return;
  NDIMG_ROUTE(in, op, stencils_cpu(in, out, t, weights, counts, sc, mode, cval),
              stencils_cuda(in, out, t, weights, counts, sc, mode, cval, stream));
}

}  // namespace ndimg::ndimage
