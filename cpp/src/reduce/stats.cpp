// The reductions' entries: validate once, route to the engine.
#include "reduce/stats.hpp"

namespace ndimg::reduce {

Stats stats(const View& in, StreamHandle stream) {
  if (in.size() == 0) throw ValueError("image_stats: empty image");
  NDIMG_ROUTE(in, "image_stats", stats_cpu(in), stats_cuda(in, stream));
}

void mean(const View& in, const View& out, StreamHandle stream) {
  const char* op = "mean";
  if (in.size() == 0) throw ValueError("mean: empty image");
  if (out.ndim != 0 || !(out.dtype == DType::F64 || (out.dtype == DType::F32 && in.dtype == DType::F32)))
    throw TypeError("mean: out must be a 0-d float64 array (or float32 for float32 input)");
  require_same_device(in, out, op);
  NDIMG_ROUTE(in, op, mean_cpu(in, out), mean_cuda(in, out, stream));
}

SplitSums split_sums(const View& in, double shift, double t, StreamHandle stream) {
  if (!is_float(in.dtype)) throw TypeError("split_sums: float image expected");
  if (in.size() == 0) return {};
  NDIMG_ROUTE(in, "split_sums", split_sums_cpu(in, shift, t), split_sums_cuda(in, shift, t, stream));
}

double min_gap(const View& in, double shift, StreamHandle stream) {
  if (!is_float(in.dtype)) throw TypeError("min_gap: float image expected");
  if (in.size() < 2) return INFINITY;
  NDIMG_ROUTE(in, "min_gap", min_gap_cpu(in, shift), min_gap_cuda(in, shift, stream));
}

DiffSums diff_sums(const View& a, const View& b, StreamHandle stream) {
  const char* op = "diff_sums";
  bool same = a.ndim == b.ndim && a.dtype == b.dtype;
  for (int d = 0; same && d < a.ndim; ++d) same = a.shape[d] == b.shape[d];
  if (!same) throw ValueError("diff_sums: two arrays of one shape and dtype expected");
  require_same_device(a, b, op);
  if (a.size() == 0) return {};
  NDIMG_ROUTE(a, op, diff_sums_cpu(a, b), diff_sums_cuda(a, b, stream));
}

void numpy_sum(const View& in, const View& out, StreamHandle stream) {
  const char* op = "numpy_sum";
  if (in.dtype != DType::F32 && in.dtype != DType::F64) throw TypeError("numpy_sum: float32 or float64 array expected");
  if (in.size() > 0 && !in.c_contiguous()) throw ValueError("numpy_sum: C-contiguous array expected");
  if (out.ndim != 0 || out.dtype != in.dtype) throw TypeError("numpy_sum: out must be a 0-d array of the input's dtype");
  require_same_device(in, out, op);
  NDIMG_ROUTE(in, op, numpy_sum_cpu(in, out), numpy_sum_cuda(in, out, stream));
}

}  // namespace ndimg::reduce
