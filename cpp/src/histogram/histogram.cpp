// The histograms' entries: validate once, route to the engine.
#include <string>

#include "histogram/histogram.hpp"

namespace ndimg::histogram {
namespace {

void require_counts(const View& in, const View& counts, const char* op) {
  if (counts.dtype != DType::I64 || counts.ndim != 1 || (counts.shape[0] > 1 && counts.strides[0] != 1))
    throw ValueError(std::string(op) + ": counts must be a contiguous 1-D int64 array");
  require_same_device(in, counts, op);
}

}  // namespace

void integer(const View& in, int64_t lo, const View& counts, StreamHandle stream) {
  const char* op = "histogram_integer";
  require_counts(in, counts, op);
  if (!is_integer(in.dtype) && in.dtype != DType::Bool) throw TypeError("histogram_integer: integer image expected");
  if (in.size() == 0 || counts.shape[0] == 0) return;
  NDIMG_ROUTE(in, op, integer_cpu(in, lo, counts), integer_cuda(in, lo, counts, stream));
}

void uniform(const View& in, std::span<const double> edges, const View& counts, StreamHandle stream) {
  const char* op = "histogram_uniform";
  require_counts(in, counts, op);
  if (edges.size() < 2 || int64_t(edges.size()) != counts.shape[0] + 1)
    throw ValueError("histogram_uniform: need nbins + 1 edges for nbins counts");
  if (in.size() == 0) return;
  NDIMG_ROUTE(in, op, uniform_cpu(in, edges, counts), uniform_cuda(in, edges, counts, stream));
}

}  // namespace ndimg::histogram
