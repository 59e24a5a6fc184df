// Derivative features' entries: validate once, route to the engine.
#include <string>

#include "feature/deriv.hpp"

namespace ndimg::feature {

using deriv_math::n_elems;

void sym_eigvals(std::span<const View> elems, const View& out, StreamHandle stream) {
  const char* op = "sym_eigvals";
  auto fail = [&](const std::string& what) { throw ValueError(std::string(op) + ": " + what); };
  if (elems.empty()) fail("no matrix elements given");
  const View& e0 = elems[0];
  const int n = elems.size() == 3 ? 2 : e0.ndim;
  if (n < 1 || n > kMaxSymDim) fail("matrices of 1 to " + std::to_string(kMaxSymDim) + " rows are supported");
  if (int(elems.size()) != n_elems(n)) fail("expected " + std::to_string(n_elems(n)) + " matrix elements");
  if (!is_float(e0.dtype)) throw TypeError(std::string(op) + ": elements must be float32 or float64");
  for (const View& v : elems) {
    require_same_shape(e0, v, op);
    require_same_device(e0, v, op);
    if (v.dtype != e0.dtype) fail("elements differ in dtype");
    if (!v.c_contiguous()) fail("elements must be C-contiguous");
  }
  bool shape_ok = out.ndim == e0.ndim + 1 && out.shape[0] == n;
  for (int a = 0; shape_ok && a < e0.ndim; ++a) shape_ok = out.shape[a + 1] == e0.shape[a];
  if (!shape_ok) fail("the output must have shape (n, *elements' shape)");
  require_same_device(e0, out, op);
  if (out.dtype != e0.dtype || !out.c_contiguous()) fail("the output must be C-contiguous, of the elements' dtype");
  if (e0.size() == 0) return;
  NDIMG_ROUTE(out, op, sym_eigvals_cpu(n, elems, out), sym_eigvals_cuda(n, elems, out, stream));
}

void hessian_det_box(const View& integral, const View& out, double sigma, StreamHandle stream) {
  const char* op = "hessian_det_box";
  if (integral.ndim != 2) throw ValueError(std::string(op) + ": a 2-D integral image is expected");
  if (integral.dtype != DType::F64 || !integral.c_contiguous())
    throw TypeError(std::string(op) + ": the integral image must be C-contiguous float64");
  require_same_shape(integral, out, op);
  require_same_device(integral, out, op);
  if (!is_float(out.dtype) || !out.c_contiguous())
    throw TypeError(std::string(op) + ": the output must be C-contiguous float32 or float64");
  if (!(sigma >= 0 && sigma < 1e15)) throw ValueError(std::string(op) + ": sigma must be finite and >= 0");
  if (out.size() == 0) return;
  NDIMG_ROUTE(out, op, hessian_det_box_cpu(integral, out, sigma), hessian_det_box_cuda(integral, out, sigma, stream));
}

}  // namespace ndimg::feature
