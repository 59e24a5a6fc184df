#include <nanobind/stl/string.h>

#include "binders.hpp"
#include "ndimg/rank.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(rank) {
  bind<&rank::rank_filter>(m, "rank_filter", "image", "footprint", "centre", "mask", "use_mask", "statistic", "n_bins",
                           "p0", "p1", "s0", "s1", Out{"out"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
