// The reductions' entries: validate once, route to the engine.
#include "reduce/stats.hpp"

namespace ndimg::reduce {

Stats stats(const View& in, StreamHandle stream) {
  if (in.size() == 0) throw ValueError("image_stats: empty image");
  NDIMG_ROUTE(in, "image_stats", stats_cpu(in), stats_cuda(in, stream));
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

}  // namespace ndimg::reduce
