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

void require_pair(const View& in0, const View& in1, const View& counts, const char* op) {
  bool same = in0.ndim == in1.ndim && in0.dtype == in1.dtype;
  for (int d = 0; same && d < in0.ndim; ++d) same = in0.shape[d] == in1.shape[d];
  if (!same) throw ValueError(std::string(op) + ": two arrays of one shape and dtype expected");
  if (counts.dtype != DType::I64 || counts.ndim != 2 || !counts.c_contiguous())
    throw ValueError(std::string(op) + ": counts must be a C-contiguous 2-D int64 array");
  require_same_device(in0, in1, op);
  require_same_device(in0, counts, op);
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

void joint_integer(const View& in0, int64_t lo0, const View& in1, int64_t lo1, const View& counts,
                   StreamHandle stream) {
  const char* op = "histogram_joint_integer";
  require_pair(in0, in1, counts, op);
  if (!is_integer(in0.dtype) && in0.dtype != DType::Bool) throw TypeError(std::string(op) + ": integer arrays expected");
  if (in0.size() == 0 || counts.size() == 0) return;
  NDIMG_ROUTE(in0, op, joint_integer_cpu(in0, lo0, in1, lo1, counts),
              joint_integer_cuda(in0, lo0, in1, lo1, counts, stream));
}

void joint_uniform(const View& in0, std::span<const double> edges0, const View& in1, std::span<const double> edges1,
                   const View& counts, StreamHandle stream) {
  const char* op = "histogram_joint_uniform";
  require_pair(in0, in1, counts, op);
  if (int64_t(edges0.size()) != counts.shape[0] + 1 || int64_t(edges1.size()) != counts.shape[1] + 1 ||
      edges0.size() < 2 || edges1.size() < 2)
    throw ValueError(std::string(op) + ": need n0 + 1 and n1 + 1 edges for (n0, n1) counts");
  if (in0.size() == 0) return;
  NDIMG_ROUTE(in0, op, joint_uniform_cpu(in0, edges0, in1, edges1, counts),
              joint_uniform_cuda(in0, edges0, in1, edges1, counts, stream));
}

}  // namespace ndimg::histogram
