// ndimg::morphology convex hull rasterisation (convex_hull_image's 2-D step), on the host.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"

namespace ndimg::morphology {

// out (bool, 2-D, any strides) = the pixels (row, column) inside the convex polygon whose vertices are
// `twice` (k rows of (2 * row, 2 * column), integers: half-pixel vertices are exact), or on its boundary
// unless `strict`. The tests are exact integer arithmetic, so points on edges and vertices are told exactly
// (as scikit-image's crossing test tells them for these coordinates).
void fill_convex_polygon(const View& out, std::span<const int64_t> twice, bool strict);

}  // namespace ndimg::morphology

namespace ndimg::morphology {

// out (bool, C-contiguous, n-D) = the pixels x with normal . x + offset < tolerance for every facet of
// `equations` (rows of ndim normal components then the offset, Qhull's ConvexHull.equations). Per line along
// the last axis the facets bound an interval; its ends are settled by testing pixels one by one.
void fill_convex_hull_nd(const View& out, std::span<const double> equations, double tolerance);

}  // namespace ndimg::morphology
