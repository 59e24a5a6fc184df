// CLAHE's entries: validate once, route to the engine.
#include <string>
#include <vector>

#include "histogram/clahe.hpp"

namespace ndimg::histogram {
namespace {

using clahe_math::Geometry;

// The geometry of `in` (a block at `origin` of an image of `full`, or the whole image) and the checks every
// entry shares.
Geometry geometry(const View& in, const View& bins, std::span<const int64_t> kernel, std::span<const int64_t> origin,
                  std::span<const int64_t> full, const char* op) {
  const std::string name(op);
  if (in.dtype != DType::U8 && in.dtype != DType::U16) throw TypeError(name + ": uint8 or uint16 image expected");
  if (!in.c_contiguous()) throw ValueError(name + ": a C-contiguous image expected");
  require_same_device(in, bins, op);
  const int64_t values = in.dtype == DType::U8 ? 256 : 65536;
  if (bins.dtype != DType::I32 || bins.ndim != 1 || bins.shape[0] != values || bins.strides[0] != 1)
    throw ValueError(name + ": bins must be a contiguous int32 table over every value of the image's dtype");
  if (in.ndim < 1 || in.ndim > clahe_math::kMaxClaheDim) throw ValueError(name + ": 1 to 16 dimensions expected");
  if (int64_t(kernel.size()) != in.ndim || int64_t(origin.size()) != in.ndim || int64_t(full.size()) != in.ndim)
    throw ValueError(name + ": one kernel length, origin and full length per axis expected");
  Geometry g;
  g.ndim = in.ndim;
  for (int d = 0; d < in.ndim; ++d) {
    if (kernel[d] < 1) throw ValueError(name + ": kernel lengths must be positive");
    if (origin[d] < 0 || origin[d] + in.shape[d] > full[d])
      throw ValueError(name + ": the block lies outside the image");
    g.shape[d] = in.shape[d];
    g.origin[d] = origin[d];
    g.kernel[d] = kernel[d];
    g.tiles[d] = (full[d] + kernel[d] - 1) / kernel[d];
    g.ntiles *= g.tiles[d];
    g.tile_size *= kernel[d];
  }
  return g;
}

// maps: C-contiguous uint16 (tiles..., nbins) on in's device.
void require_maps(const View& in, const View& maps, const Geometry& g, const char* op) {
  bool ok = maps.dtype == DType::U16 && maps.c_contiguous() && maps.ndim == g.ndim + 1 && maps.shape[g.ndim] >= 1;
  for (int d = 0; ok && d < g.ndim; ++d) ok = maps.shape[d] == g.tiles[d];
  if (!ok) throw ValueError(std::string(op) + ": maps must be a C-contiguous uint16 array (tiles per axis..., nbins)");
  require_same_device(in, maps, op);
}

}  // namespace

void clahe_maps(const View& in, const View& bins, std::span<const int64_t> kernel, int64_t clip_limit,
                const View& maps, StreamHandle stream) {
  const char* op = "clahe_maps";
  const std::span<const int64_t> full(in.shape.data(), size_t(in.ndim));
  const std::vector<int64_t> zero(size_t(in.ndim), 0);
  Geometry g = geometry(in, bins, kernel, zero, full, op);
  require_maps(in, maps, g, op);
  if (clip_limit < 1) throw ValueError("clahe_maps: clip_limit must be positive");
  g.nbins = maps.shape[g.ndim];
  g.clip_limit = clip_limit;
  if (in.size() == 0) return;
  NDIMG_ROUTE(in, op, clahe_maps_cpu(in, bins, g, maps), clahe_maps_cuda(in, bins, g, maps, stream));
}

void clahe_apply(const View& in, const View& bins, std::span<const int64_t> kernel, std::span<const int64_t> origin,
                 std::span<const int64_t> full_shape, const View& maps, const View& out, StreamHandle stream) {
  const char* op = "clahe_apply";
  Geometry g = geometry(in, bins, kernel, origin, full_shape, op);
  require_maps(in, maps, g, op);
  if (out.dtype != DType::U16 || !out.c_contiguous()) throw TypeError("clahe_apply: out must be C-contiguous uint16");
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  g.nbins = maps.shape[g.ndim];
  if (in.size() == 0) return;
  NDIMG_ROUTE(in, op, clahe_apply_cpu(in, bins, g, maps, out), clahe_apply_cuda(in, bins, g, maps, out, stream));
}

}  // namespace ndimg::histogram
