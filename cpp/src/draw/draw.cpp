// The fills' entries: validate once, route to the engine.
#include <string>

#include "draw/draw.hpp"

namespace ndimg::draw {
namespace {

void require_mask(const View& out, const char* op) {
  if (out.ndim != 2 || (out.dtype != DType::U8 && out.dtype != DType::Bool) || (out.size() && !out.c_contiguous()))
    throw ValueError(std::string(op) + ": out must be a C-contiguous 2-D uint8 or bool array");
}

}  // namespace

void polygon_mask(std::span<const double> vr, std::span<const double> vc, int64_t r0, int64_t c0, const View& out,
                  StreamHandle stream) {
  const char* op = "polygon_mask";
  require_mask(out, op);
  if (vr.size() != vc.size()) throw ValueError("polygon_mask: as many rows as columns expected");
  if (out.size() == 0 || vr.empty()) return;
  NDIMG_ROUTE(out, op, polygon_mask_cpu(vr, vc, r0, c0, out), polygon_mask_cuda(vr, vc, r0, c0, out, stream));
}

void ellipse_mask(const EllipseTest& test, const View& out) {
  const char* op = "ellipse_mask";
  require_mask(out, op);
  if (out.device != Device::CPU) throw TypeError("ellipse_mask: a CPU array expected");
  if (out.size() == 0) return;
  ellipse_mask_cpu(test, out);
}

}  // namespace ndimg::draw
