// The rank filters' entry: validate once, turn the footprint into its element and edge lists, route to the
// engine.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "rank/rank.hpp"

namespace ndimg::rank {
namespace {

using namespace math;

constexpr const char* kNames[kStatCount] = {
    "autolevel", "equalize", "gradient", "maximum", "mean", "geometric_mean", "subtract_mean", "median",
    "minimum", "modal", "enhance_contrast", "pop", "sum", "threshold", "noise_filter", "entropy", "otsu",
    "windowed_histogram", "majority", "autolevel_percentile", "gradient_percentile", "mean_percentile",
    "sum_percentile", "subtract_mean_percentile", "enhance_contrast_percentile", "percentile", "pop_percentile",
    "threshold_percentile", "mean_bilateral", "pop_bilateral", "sum_bilateral"};

int stat_of(const std::string& name) {
  for (int s = 0; s < kStatCount; ++s)
    if (name == kNames[s]) return s;
  throw ValueError("rank_filter: unknown statistic '" + name + "'");
}

}  // namespace

void rank_filter(const View& image, const View& footprint, std::span<const int64_t> centre, const View& mask,
                 bool use_mask, const std::string& statistic, int64_t n_bins, double p0, double p1, int64_t s0,
                 int64_t s1, const View& out, StreamHandle stream) {
  const char* op = "rank_filter";
  Geometry q;
  q.stat = stat_of(statistic);
  if (image.dtype != DType::U8 && image.dtype != DType::U16) throw TypeError("rank_filter: uint8 or uint16 image expected");
  if (image.ndim != 2 && image.ndim != 3) throw ValueError("rank_filter: a 2-D or 3-D image expected");
  if (!image.c_contiguous()) throw ValueError("rank_filter: a C-contiguous image expected");
  if (footprint.dtype != DType::U8 || footprint.ndim != image.ndim || !footprint.c_contiguous() ||
      footprint.device != Device::CPU)
    throw ValueError("rank_filter: the footprint must be a C-contiguous uint8 host array of the image's dimensions");
  if (int64_t(centre.size()) != image.ndim) throw ValueError("rank_filter: one centre index per axis expected");
  const int64_t max_bins = image.dtype == DType::U8 ? 256 : 65536;
  if (n_bins < 1 || n_bins > max_bins) throw ValueError("rank_filter: n_bins out of range for the image's dtype");
  if (use_mask) {
    if ((mask.dtype != DType::U8 && mask.dtype != DType::Bool) || !mask.c_contiguous())
      throw ValueError("rank_filter: the mask must be C-contiguous uint8");
    require_same_shape(image, mask, op);
    require_same_device(image, mask, op);
  }
  if (out.dtype != DType::U8 && out.dtype != DType::U16 && out.dtype != DType::F32 && out.dtype != DType::F64)
    throw TypeError("rank_filter: out must be uint8, uint16, float32 or float64");
  bool shape_ok = out.ndim == image.ndim + 1 && out.c_contiguous();
  for (int d = 0; shape_ok && d < image.ndim; ++d) shape_ok = out.shape[d] == image.shape[d];
  if (!shape_ok) throw ValueError("rank_filter: out must be C-contiguous of the image's shape plus one axis");
  require_same_device(image, out, op);
  q.odepth = out.shape[image.ndim];
  if (q.stat != kWindowedHistogram && q.odepth != 1) throw ValueError("rank_filter: out's last axis must have length 1");

  const int off = 3 - image.ndim;  // a 2-D image is one plane
  int64_t ishape[3] = {1, 1, 1}, fshape[3] = {1, 1, 1}, c[3] = {0, 0, 0};
  for (int d = 0; d < image.ndim; ++d) {
    ishape[d + off] = image.shape[d];
    fshape[d + off] = footprint.shape[d];
    c[d + off] = centre[d];
    if (centre[d] < 0 || centre[d] >= footprint.shape[d]) throw ValueError("rank_filter: the centre lies outside the footprint");
  }
  q.planes = ishape[0];
  q.rows = ishape[1];
  q.cols = ishape[2];
  q.n_bins = n_bins;
  q.mid_bin = n_bins / 2;
  q.p0 = p0;
  q.p1 = q.stat == kPercentile ? 1.0 : p1;
  q.s0 = s0;
  q.s1 = s1;
  q.use_mask = use_mask;
  q.need_bins = reads_bins(q.stat);
  q.need_groups = reads_groups(q.stat);
  if (const char* env = std::getenv("NDIMG_RANK_SCHEDULE"))
    q.schedule = std::string(env) == "direct" ? kForceDirect : std::string(env) == "histogram" ? kForceHistogram : kAuto;

  // Every element, then the east ends of the footprint's runs along the columns (they enter the window as
  // it moves one column on), then the west ends (they leave it, one column behind).
  const uint8_t* fp = footprint.ptr<uint8_t>();
  auto at = [&](int64_t p, int64_t r, int64_t col) { return fp[(p * fshape[1] + r) * fshape[2] + col] != 0; };
  std::vector<Offset> full, east, west;
  for (int64_t p = 0; p < fshape[0]; ++p)
    for (int64_t r = 0; r < fshape[1]; ++r)
      for (int64_t col = 0; col < fshape[2]; ++col) {
        if (!at(p, r, col)) continue;
        const Offset o{int32_t(p - c[0]), int32_t(r - c[1]), int32_t(col - c[2])};
        full.push_back(o);
        if (col + 1 == fshape[2] || !at(p, r, col + 1)) east.push_back(o);
        if (col == 0 || !at(p, r, col - 1)) west.push_back(o);
        q.min_dc = full.size() == 1 ? o.dc : std::min<int64_t>(q.min_dc, o.dc);
        q.max_dc = full.size() == 1 ? o.dc : std::max<int64_t>(q.max_dc, o.dc);
      }
  q.n_full = int64_t(full.size());
  q.n_east = int64_t(east.size());
  q.n_west = int64_t(west.size());
  std::vector<Offset> lists(full);
  lists.insert(lists.end(), east.begin(), east.end());
  lists.insert(lists.end(), west.begin(), west.end());
  std::vector<double> log_levels;
  if (q.stat == kGeometricMean) {   // one table for both engines: the same logarithms
    log_levels.resize(size_t(n_bins));
    for (int64_t i = 0; i < n_bins; ++i) log_levels[size_t(i)] = std::log(double(i + 1));
    q.log_levels = log_levels.data();
  }
  if (image.size() == 0) return;
  NDIMG_ROUTE(image, op, rank_cpu(image, mask, lists.data(), q, out), rank_cuda(image, mask, lists.data(), q, out, stream));
}

}  // namespace ndimg::rank
