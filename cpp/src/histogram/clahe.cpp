// CLAHE's entry: validate once, route to the engine.
#include <string>

#include "histogram/clahe.hpp"

namespace ndimg::histogram {

void clahe(const View& in, const View& bins, std::span<const int64_t> kernel, int64_t nbins, int64_t clip_limit,
           const View& out, StreamHandle stream) {
  const char* op = "clahe";
  if (in.dtype != DType::U8 && in.dtype != DType::U16) throw TypeError("clahe: uint8 or uint16 image expected");
  if (!in.c_contiguous() || !out.c_contiguous()) throw ValueError("clahe: C-contiguous arrays expected");
  if (out.dtype != DType::U16) throw TypeError("clahe: out must be uint16");
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  require_same_device(in, bins, op);
  const int64_t values = in.dtype == DType::U8 ? 256 : 65536;
  if (bins.dtype != DType::I32 || bins.ndim != 1 || bins.shape[0] != values || bins.strides[0] != 1)
    throw ValueError("clahe: bins must be a contiguous int32 table over every value of the image's dtype");
  if (in.ndim < 1 || in.ndim > 16) throw ValueError("clahe: 1 to 16 dimensions expected");
  if (int64_t(kernel.size()) != in.ndim) throw ValueError("clahe: one kernel length per axis expected");
  if (nbins < 1 || clip_limit < 1) throw ValueError("clahe: nbins and clip_limit must be positive");
  clahe_math::Geometry g;
  g.ndim = in.ndim;
  g.nbins = nbins;
  g.clip_limit = clip_limit;
  for (int d = 0; d < in.ndim; ++d) {
    if (kernel[d] < 1) throw ValueError("clahe: kernel lengths must be positive");
    g.shape[d] = in.shape[d];
    g.kernel[d] = kernel[d];
    g.tiles[d] = (in.shape[d] + kernel[d] - 1) / kernel[d];
    g.ntiles *= g.tiles[d];
    g.tile_size *= kernel[d];
  }
  if (in.size() == 0) return;
  NDIMG_ROUTE(in, op, clahe_cpu(in, bins, g, out), clahe_cuda(in, bins, g, out, stream));
}

}  // namespace ndimg::histogram
