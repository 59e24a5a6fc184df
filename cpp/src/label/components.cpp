// The connected-components entry: validate once, route to the engine.
#include "label/components.hpp"

namespace ndimg::label {

void seeded_components(const View& in, double low, double high, const View& out, StreamHandle stream) {
  const char* op = "seeded_components";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype != DType::Bool) throw TypeError("seeded_components: output must be bool");
  if (in.size() == 0) return;
  if (in.ndim == 0) throw ValueError("seeded_components: 0-d input");
  NDIMG_ROUTE(in, op, seeded_components_cpu(in, low, high, out), seeded_components_cuda(in, low, high, out, stream));
}

void seeded_roots(const View& in, double low, double high, const View& out, const View& roots, StreamHandle stream) {
  const char* op = "seeded_roots";
  require_same_shape(in, roots, op);
  require_same_device(in, roots, op);
  if (roots.dtype != DType::I64 || !roots.c_contiguous())
    throw TypeError("seeded_roots: roots must be a C-contiguous int64 array");
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype != DType::Bool) throw TypeError("seeded_roots: output must be bool");
  if (in.size() == 0) return;
  if (in.ndim == 0) throw ValueError("seeded_roots: 0-d input");
  int64_t* r = roots.ptr<int64_t>();
  NDIMG_ROUTE(in, op, seeded_components_cpu(in, low, high, out, r),
              seeded_components_cuda(in, low, high, out, stream, r));
}

}  // namespace ndimg::label
