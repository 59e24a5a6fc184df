// The ridge filters' entries: validate once, route to the engine.
#include <limits>
#include <string>

#include "filters/ridges.hpp"

namespace ndimg::filters {
namespace {

using ridge_math::n_elems;

// The checks both entry points share.
void check_args(Ridge kind, std::span<const View> h, const View* acc, const char* op) {
  auto fail = [&](const std::string& what) { throw ValueError(std::string(op) + ": " + what); };
  if (h.empty()) fail("no Hessian elements given");
  const View& h0 = h[0];
  const int n = h0.ndim;
  const bool two_three = kind == Ridge::Frangi || kind == Ridge::Sato;
  if (two_three ? (n != 2 && n != 3) : (n < 1 || n > kMaxRidgeDim))
    fail(two_three ? "only 2-D and 3-D images are supported"
                   : "images of 1 to " + std::to_string(kMaxRidgeDim) + " dimensions are supported");
  if (int(h.size()) != n_elems(n)) fail("expected " + std::to_string(n_elems(n)) + " Hessian elements");
  if (!is_float(h0.dtype)) throw TypeError(std::string(op) + ": Hessian elements must be float32 or float64");
  for (const View& v : h) {
    require_same_shape(h0, v, op);
    require_same_device(h0, v, op);
    if (v.dtype != h0.dtype) fail("Hessian elements differ in dtype");
    if (!v.c_contiguous()) fail("Hessian elements must be C-contiguous");
  }
  if (acc) {
    require_same_shape(h0, *acc, op);
    require_same_device(h0, *acc, op);
    if (!acc->c_contiguous()) fail("the accumulator must be C-contiguous");
    if (acc->dtype != h0.dtype && acc->dtype != DType::F64)
      throw TypeError(std::string(op) + ": the accumulator must have the Hessian's dtype or float64");
  }
}

}  // namespace

double ridge_max(Ridge kind, std::span<const View> hessian, const RidgeParams& p, StreamHandle stream) {
  const char* op = "ridge_max";
  if (kind != Ridge::Meijering && kind != Ridge::Norm) throw ValueError("ridge_max: only for meijering and norm");
  check_args(kind, hessian, nullptr, op);
  if (hessian[0].size() == 0) return -std::numeric_limits<double>::infinity();
  NDIMG_ROUTE(hessian[0], op, ridge_max_cpu(kind, hessian, p), ridge_max_cuda(kind, hessian, p, stream));
}

void ridge_accumulate(Ridge kind, std::span<const View> hessian, const View& acc, const RidgeParams& p,
                      StreamHandle stream) {
  const char* op = "ridge_accumulate";
  if (kind == Ridge::Norm) throw ValueError("ridge_accumulate: norm is not a filter");
  check_args(kind, hessian, &acc, op);
  if (acc.size() == 0) return;
  NDIMG_ROUTE(acc, op, ridge_accumulate_cpu(kind, hessian, acc, p),
              ridge_accumulate_cuda(kind, hessian, acc, p, stream));
}

}  // namespace ndimg::filters
