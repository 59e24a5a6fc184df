// The per-pixel math of reliability-sorted phase unwrapping, once for every schedule.
#pragma once
#include <numbers>

#include "ndimg/hd.hpp"

namespace ndimg::restoration {

// a phase difference brought into [-pi, pi] by one period at most
NDIMG_HD double wrap_phase(double d) {
  constexpr double pi = std::numbers::pi;
  return d > pi ? d - 2 * pi : (d < -pi ? d + 2 * pi : d);
}

// the periods to add to the second pixel of an edge to continue the first one
NDIMG_HD int edge_periods(double first, double second) {
  constexpr double pi = std::numbers::pi;
  const double d = first - second;
  return d > pi ? -1 : (d < -pi ? 1 : 0);
}

// one term of a pixel's reliability: the second difference through it, wrapped on each side
NDIMG_HD double second_difference(double before, double centre, double after) {
  return wrap_phase(before - centre) - wrap_phase(centre - after);
}

}  // namespace ndimg::restoration
