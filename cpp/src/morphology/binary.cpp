// The binary erosion entry: validate once, route to the engine.
#include "morphology/binary.hpp"

#include <string>

namespace ndimg::morphology {

BinaryPass make_pass(const View& in, std::span<const int64_t> offsets, bool border_value, bool invert,
                     bool centre, ndimage::Taps& taps, const char* op) {
  View work = in;  // the C-contiguous uint8 working buffer's geometry
  work.dtype = DType::U8;
  int64_t s = 1;
  for (int d = in.ndim - 1; d >= 0; --d) {
    work.strides[d] = s;
    s *= in.shape[d];
  }
  taps = ndimage::make_taps(work, work, offsets, op);
  BinaryPass p;
  p.g = taps.geom;
  p.border = uint8_t(border_value != invert);
  p.centre = centre;
  return p;
}

void binary_erosion(const View& in, const View& out, std::span<const int64_t> offsets, const View& mask,
                    bool use_mask, bool border_value, bool invert, bool centre_is_true, int64_t iterations,
                    StreamHandle stream) {
  const char* op = "binary_erosion";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype != DType::Bool) throw TypeError("binary_erosion: output must be bool");
  if (use_mask) {
    require_same_device(in, mask, op);
    bool same = mask.ndim == in.ndim;
    for (int d = 0; same && d < in.ndim; ++d) same = mask.shape[d] == in.shape[d];
    if (!same) throw ValueError("binary_erosion: mask and input shapes differ");
  }
  if (in.ndim < 1) throw ValueError("binary_erosion: 0-d arrays are not supported");
  ndimage::Taps taps;
  const BinaryPass p = make_pass(in, offsets, border_value, invert, centre_is_true, taps, op);
  if (in.size() == 0) return;
  const View* m = use_mask ? &mask : nullptr;
  NDIMG_ROUTE(in, op, binary_erosion_cpu(in, out, p, taps, m, invert, iterations),
              binary_erosion_cuda(in, out, p, taps, m, invert, iterations, stream));
}

}  // namespace ndimg::morphology
