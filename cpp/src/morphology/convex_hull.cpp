// The convex hull rasterisation entries: validate once, route to an engine.
#include "morphology/convex_hull.hpp"

namespace ndimg::morphology {
namespace {

void require_polygons(const View& out, std::span<const int64_t> twice, std::span<const int64_t> starts) {
  if (out.ndim != 2 || out.dtype != DType::Bool) throw ValueError("convex_hull_image: a 2-D bool output is expected");
  if (twice.size() % 2) throw ValueError("convex_hull_image: vertices of two coordinates");
  if (starts.empty() || starts.front() != 0 || starts.back() != int64_t(twice.size() / 2))
    throw ValueError("convex_hull_image: polygon starts must run from 0 to the vertex count");
  for (size_t p = 0; p + 1 < starts.size(); ++p)
    if (starts[p + 1] - starts[p] < 3) throw ValueError("convex_hull_image: a polygon of 3 vertices or more");
}

}  // namespace

void fill_convex_polygon(const View& out, std::span<const int64_t> twice, bool strict, StreamHandle stream) {
  const int64_t starts[2] = {0, int64_t(twice.size() / 2)};
  require_polygons(out, twice, starts);
  if (out.size() == 0) return;
  NDIMG_ROUTE(out, "convex_hull_image", fill_convex_polygons_cpu(out, twice, starts, strict, true),
              fill_convex_polygons_cuda(out, twice, starts, strict, true, stream));
}

void fill_convex_polygons(const View& out, std::span<const int64_t> twice, std::span<const int64_t> starts,
                          StreamHandle stream) {
  require_polygons(out, twice, starts);
  if (out.size() == 0 || starts.size() < 2) return;
  NDIMG_ROUTE(out, "convex_hull_object", fill_convex_polygons_cpu(out, twice, starts, false, false),
              fill_convex_polygons_cuda(out, twice, starts, false, false, stream));
}

void fill_convex_hull_nd(const View& out, std::span<const double> equations, double tolerance, StreamHandle stream) {
  if (out.dtype != DType::Bool || !out.c_contiguous() || out.ndim < 1)
    throw ValueError("convex_hull_image: a C-contiguous bool output is expected");
  if (equations.size() % size_t(out.ndim + 1)) throw ValueError("convex_hull_image: equations of ndim + 1 terms");
  if (out.size() == 0) return;
  NDIMG_ROUTE(out, "convex_hull_image", fill_convex_hull_nd_cpu(out, equations, tolerance),
              fill_convex_hull_nd_cuda(out, equations, tolerance, stream));
}

}  // namespace ndimg::morphology
