// The voting and projection transforms' entries: validate once, route to the engine.
#include <string>

#include "proj/proj.hpp"

namespace ndimg::proj {
namespace {

void require(bool ok, const char* op, const char* what) {
  if (!ok) throw ValueError(std::string(op) + ": " + what);
}

void require_points(const View& ys, const View& xs, const char* op) {
  require(ys.dtype == DType::I64 && xs.dtype == DType::I64 && ys.ndim == 1 && xs.ndim == 1 &&
              ys.shape[0] == xs.shape[0] && ys.c_contiguous() && xs.c_contiguous(),
          op, "points must be two contiguous 1-D int64 arrays of one length");
  require_same_device(ys, xs, op);
}

void require_float_c(const View& v, int ndim, const char* op, const char* what) {
  require(is_float(v.dtype) && v.ndim == ndim && v.c_contiguous(), op, what);
}

}  // namespace

void nonzero(const View& image, const View& ys, const View& xs) {
  const char* op = "nonzero";
  if (image.ndim != 2 || image.device != Device::CPU) throw ValueError("nonzero: a 2-D host image expected");
  require(ys.dtype == DType::I64 && xs.dtype == DType::I64 && ys.ndim == 1 && xs.ndim == 1 &&
              ys.shape[0] == xs.shape[0] && (ys.shape[0] == 0 || (ys.c_contiguous() && xs.c_contiguous())) &&
              ys.device == Device::CPU && xs.device == Device::CPU,
          op, "ys and xs must be contiguous 1-D int64 host arrays of one length");
  nonzero_cpu(image, ys, xs);
}

void hough_line(const View& ys, const View& xs, std::span<const double> cos, std::span<const double> sin,
                int64_t offset, const View& accum, StreamHandle stream) {
  const char* op = "hough_line";
  require_points(ys, xs, op);
  require(cos.size() == sin.size(), op, "one sine per cosine expected");
  require(accum.dtype == DType::U64 && accum.ndim == 2 && accum.c_contiguous() && offset >= 0 &&
              accum.shape[0] == 2 * offset + 1 && accum.shape[1] == int64_t(cos.size()),
          op, "accum must be a C-contiguous (2 * offset + 1, angles) uint64 array");
  require_same_device(ys, accum, op);
  if (ys.size() == 0 || cos.empty()) return;
  NDIMG_ROUTE(accum, op, hough_line_cpu(ys, xs, cos, sin, offset, accum),
              hough_line_cuda(ys, xs, cos, sin, offset, accum, stream));
}

void hough_circle(const View& ys, const View& xs, std::span<const int64_t> radii, int64_t shift, bool normalize,
                  const View& out, StreamHandle stream) {
  const char* op = "hough_circle";
  require_points(ys, xs, op);
  require(out.dtype == DType::F64 && out.ndim == 3 && out.c_contiguous() && out.shape[0] == int64_t(radii.size()),
          op, "out must be a C-contiguous (radii, rows, columns) float64 array");
  require_same_device(ys, out, op);
  if (out.size() == 0) return;
  NDIMG_ROUTE(out, op, hough_circle_cpu(ys, xs, radii, shift, normalize, out),
              hough_circle_cuda(ys, xs, radii, shift, normalize, out, stream));
}

void radon(const View& image, std::span<const double> matrix, const View& out, StreamHandle stream) {
  const char* op = "radon";
  require_float_c(image, 2, op, "a C-contiguous 2-D float image expected");
  require(image.shape[0] == image.shape[1], op, "the image must be square");
  require(out.dtype == image.dtype && out.ndim == 2 && out.c_contiguous() && out.shape[0] == image.shape[0] &&
              int64_t(matrix.size()) == 6 * out.shape[1],
          op, "out must be a C-contiguous (N, angles) array of the image's type, with 6 coefficients per angle");
  require_same_device(image, out, op);
  if (out.size() == 0) return;
  NDIMG_ROUTE(out, op, radon_cpu(image, matrix, out), radon_cuda(image, matrix, out, stream));
}

void backproject(const View& proj, std::span<const double> cos, std::span<const double> sin, int64_t radius,
                 Interp interp, std::span<const double> knots, const View& out, StreamHandle stream) {
  const char* op = "iradon";
  require(proj.dtype == DType::F64 && proj.ndim == 2 && proj.c_contiguous() && proj.shape[0] == int64_t(cos.size()) &&
              cos.size() == sin.size(),
          op, "projections must be a C-contiguous (angles, n) float64 array, one cosine and sine per angle");
  require_float_c(out, 2, op, "out must be a C-contiguous 2-D float array");
  require(out.shape[0] == out.shape[1], op, "out must be square");
  require(interp != Interp::Cubic || int64_t(knots.size()) == proj.shape[1] + 4, op, "cubic: n + 4 knots expected");
  require(proj.shape[1] > 0, op, "empty projections");
  require_same_device(proj, out, op);
  if (out.size() == 0 || cos.empty()) return;
  NDIMG_ROUTE(out, op, backproject_cpu(proj, cos, sin, radius, interp, knots, out),
              backproject_cuda(proj, cos, sin, radius, interp, knots, out, stream));
}

void sart(const View& image, const View& projections, std::span<const double> theta, std::span<const double> shift,
          double relaxation, std::span<const double> clip, StreamHandle stream) {
  const char* op = "iradon_sart";
  require_float_c(image, 2, op, "a C-contiguous 2-D float image expected");
  require(image.shape[0] == image.shape[1], op, "the image must be square");
  require(projections.dtype == image.dtype && projections.ndim == 2 && projections.c_contiguous() &&
              projections.shape[0] == int64_t(theta.size()) && theta.size() == shift.size(),
          op, "projections must be a C-contiguous (angles, P) array of the image's type, one angle and shift each");
  require(clip.empty() || clip.size() == 2, op, "clip takes two values");
  require_same_device(image, projections, op);
  if (image.size() == 0 || projections.size() == 0) return;
  NDIMG_ROUTE(image, op, sart_cpu(image, projections, theta, shift, relaxation, clip),
              sart_cuda(image, projections, theta, shift, relaxation, clip, stream));
}

}  // namespace ndimg::proj
