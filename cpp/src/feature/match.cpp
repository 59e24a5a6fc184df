// The Hamming distances' entry: validate once, route to the engine.
#include <string>

#include "feature/match.hpp"

namespace ndimg::feature {

void hamming_distances(const View& a, const View& b, int64_t nbits, const View& out, StreamHandle stream) {
  const char* op = "hamming_distances";
  for (const View* v : {&a, &b})
    if (v->dtype != DType::U64 || v->ndim != 2 || !v->c_contiguous())
      throw ValueError("hamming_distances: descriptors must be C-contiguous 2-D uint64 arrays of packed bits");
  if (a.shape[1] != b.shape[1]) throw ValueError("hamming_distances: descriptors of different lengths");
  if (nbits < 1 || nbits > 64 * a.shape[1])
    throw ValueError("hamming_distances: nbits must be between 1 and 64 bits per word");
  if (out.dtype != DType::F64 || out.ndim != 2 || !out.c_contiguous() || out.shape[0] != a.shape[0] ||
      out.shape[1] != b.shape[0])
    throw ValueError("hamming_distances: out must be a C-contiguous float64 (n1, n2) array");
  require_same_device(a, b, op);
  require_same_device(a, out, op);
  if (out.size() == 0) return;
  NDIMG_ROUTE(a, op, hamming_distances_cpu(a, b, nbits, out), hamming_distances_cuda(a, b, nbits, out, stream));
}

}  // namespace ndimg::feature
