// The entries of B-spline sampling: validate once, route to the engine the views live on.
#include <string>

#include "core/engine.hpp"
#include "interp/sample.hpp"

namespace ndimg::interp {
namespace {

void check_common(const View& in, const View& out, int order, Mode mode, std::span<const int64_t> npad,
                  const char* op) {
  if (order < 0 || order > kMaxOrder) throw Error(std::string(op) + ": spline order not supported");
  if (int(mode) < 0 || int(mode) > int(Mode::grid_constant))
    throw Error(std::string(op) + ": boundary mode not supported");
  if (in.ndim < 1 || out.ndim < 1) throw Error(std::string(op) + ": input and output rank must be > 0");
  if (!npad.empty() && npad.size() != size_t(in.ndim))
    throw ValueError(std::string(op) + ": npad needs one value per input axis");
  for (int64_t p : npad)
    if (p < 0) throw ValueError(std::string(op) + ": npad must not be negative");
  require_same_device(in, out, op);
}

}  // namespace

Geometry make_geometry(const View& in, const View& out, int order, Mode mode, double cval,
                       std::span<const int64_t> npad, std::span<const int64_t> exact_axes) {
  Geometry g;
  g.in_nd = in.ndim;
  g.out_nd = out.ndim;
  for (int d = 0; d < in.ndim; ++d) g.order[d] = order;
  for (int64_t d : exact_axes) {
    if (d < 0 || d >= in.ndim) throw ValueError("exact_axes: axis out of range");
    g.order[d] = 0;
  }
  // an empty input has nothing to read: every point takes cval, as constant mode gives along an empty axis
  g.mode = in.size() == 0 ? Mode::constant : mode;
  g.cval = cval;
  for (int d = 0; d < in.ndim; ++d) {
    g.in_shape[d] = in.shape[d];
    g.in_strides[d] = in.strides[d];
    g.npad[d] = npad.empty() ? 0.0 : double(npad[d]);
  }
  for (int d = 0; d < out.ndim; ++d) {
    g.out_shape[d] = out.shape[d];
    g.out_strides[d] = out.strides[d];
  }
  return g;
}

void map_coordinates(const View& in, const View& coords, const View& out, int order, Mode mode, double cval,
                     std::span<const int64_t> npad, StreamHandle stream) {
  const char* op = "map_coordinates";
  check_common(in, out, order, mode, npad, op);
  require_same_device(in, coords, op);
  bool shape_ok = coords.ndim == out.ndim + 1 && coords.shape[0] == in.ndim;
  for (int d = 0; shape_ok && d < out.ndim; ++d) shape_ok = coords.shape[d + 1] == out.shape[d];
  if (!shape_ok) throw Error(std::string(op) + ": invalid shape for coordinate array");
  if (!is_float(coords.dtype)) throw TypeError(std::string(op) + ": coordinates must be float32 or float64");
  const Geometry g = make_geometry(in, out, order, mode, cval, npad);
  NDIMG_ROUTE(in, op, map_coordinates_cpu(in, coords, out, g), map_coordinates_cuda(in, coords, out, g, stream));
}

void affine(const View& in, std::span<const double> matrix, std::span<const double> offset, const View& out,
            int order, Mode mode, double cval, std::span<const int64_t> npad, std::span<const int64_t> exact_axes,
            StreamHandle stream) {
  const char* op = "affine_transform";
  check_common(in, out, order, mode, npad, op);
  if (matrix.size() != size_t(in.ndim) * size_t(out.ndim))
    throw Error(std::string(op) + ": affine matrix has wrong shape");
  if (offset.size() != size_t(in.ndim)) throw Error(std::string(op) + ": no proper offset provided");
  const Geometry g = make_geometry(in, out, order, mode, cval, npad, exact_axes);
  NDIMG_ROUTE(in, op, affine_cpu(in, matrix.data(), offset.data(), out, g),
              affine_cuda(in, matrix.data(), offset.data(), out, g, stream));
}

void zoom_shift(const View& in, std::span<const double> zoom, std::span<const double> shift, bool grid_mode,
                const View& out, int order, Mode mode, double cval, std::span<const int64_t> npad,
                StreamHandle stream) {
  const char* op = "zoom_shift";
  check_common(in, out, order, mode, npad, op);
  if (out.ndim != in.ndim) throw Error(std::string(op) + ": input and output rank differ");
  if ((!zoom.empty() && zoom.size() != size_t(in.ndim)) || (!shift.empty() && shift.size() != size_t(in.ndim)))
    throw Error(std::string(op) + ": zoom and shift need one value per axis");
  const Geometry g = make_geometry(in, out, order, mode, cval, npad);
  const double* z = zoom.empty() ? nullptr : zoom.data();
  const double* s = shift.empty() ? nullptr : shift.data();
  NDIMG_ROUTE(in, op, zoom_shift_cpu(in, z, s, grid_mode, out, g), zoom_shift_cuda(in, z, s, grid_mode, out, g, stream));
}

}  // namespace ndimg::interp
