// Entries of reconstruct.hpp: validate once, run the host schedule (the GPU engine composes these
// operations from ndimg.ndimage's primitives in Python: python/ndimg/morphology).
#include "morphology/reconstruct.hpp"

#include <string>

namespace ndimg::morphology {
namespace {

void require_host_c(const View& v, const char* op, const char* what) {
  if (v.device != Device::CPU) throw ValueError(std::string(op) + ": host arrays only");
  if (!v.c_contiguous()) throw ValueError(std::string(op) + ": " + what + " must be C-contiguous");
}
// every offset from every element of the buffer's interior stays inside: the caller's padding covers them
void require_offsets(const View& v, std::span<const int64_t> offsets, const char* op) {
  for (int64_t o : offsets)
    if (o == 0 || o >= v.size() || -o >= v.size()) throw ValueError(std::string(op) + ": bad neighbour offset");
}

}  // namespace

void reconstruct_dilation(const View& marker, const View& mask, std::span<const int64_t> offsets,
                          std::span<const int64_t> lo, std::span<const int64_t> hi, int64_t tile_rows) {
  const char* op = "reconstruction";
  require_host_c(marker, op, "marker");
  require_host_c(mask, op, "mask");
  require_same_shape(marker, mask, op);
  if (marker.dtype != mask.dtype || !is_float(marker.dtype))
    throw TypeError("reconstruction: float32 or float64 buffers");
  if (int64_t(lo.size()) != marker.ndim || int64_t(hi.size()) != marker.ndim)
    throw ValueError("reconstruction: one padding per axis");
  for (int d = 0; d < marker.ndim; ++d)
    if (lo[d] < 0 || hi[d] < 0 || lo[d] + hi[d] > marker.shape[d]) throw ValueError("reconstruction: bad padding");
  if (marker.size() == 0 || marker.ndim == 0) return;
  // the interior's first and last elements, moved by any offset either way, stay inside the buffer (so do
  // all elements between them)
  int64_t first = 0, last = 0;
  for (int d = 0; d < marker.ndim; ++d) {
    if (lo[d] + hi[d] == marker.shape[d]) return;  // no interior
    first += lo[d] * marker.strides[d];
    last += (marker.shape[d] - 1 - hi[d]) * marker.strides[d];
  }
  for (int64_t o : offsets)
    if (o == 0 || first - (o < 0 ? -o : o) < 0 || last + (o < 0 ? -o : o) >= marker.size())
      throw ValueError("reconstruction: the padding does not cover the neighbour offsets");
  reconstruct_dilation_cpu(marker, mask, offsets, lo, hi, tile_rows);
}

void plateau_maxima(const View& image, const View& flags, std::span<const int64_t> offsets, bool line_candidates) {
  const char* op = "local_maxima";
  require_host_c(image, op, "image");
  require_host_c(flags, op, "flags");
  require_same_shape(image, flags, op);
  if (flags.dtype != DType::U8) throw TypeError("local_maxima: flags must be uint8");
  require_offsets(image, offsets, op);
  if (image.size() == 0) return;
  plateau_maxima_cpu(image, flags, offsets, line_candidates);
}

void flood_flags(const View& flags, std::span<const int64_t> offsets, int64_t seed) {
  const char* op = "flood";
  require_host_c(flags, op, "flags");
  if (flags.dtype != DType::U8) throw TypeError("flood: flags must be uint8");
  if (seed < 0 || seed >= flags.size()) throw ValueError("flood: seed outside the image");
  require_offsets(flags, offsets, op);
  flood_flags_cpu(flags, offsets, seed);
}

}  // namespace ndimg::morphology
