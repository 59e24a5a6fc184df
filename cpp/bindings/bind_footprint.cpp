#include "binders.hpp"
#include "ndimg/ndimage_footprint.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(footprint) {
  bind<&ndimage::correlate>(m, "correlate", "input", Out{"output"}, "offsets", "weights", "mode", "cval",
                            nb::arg("stream") = 0);
  bind<&ndimage::rank_filter>(m, "rank_filter", "input", Out{"output"}, "offsets", "rank", "mode", "cval",
                              nb::arg("stream") = 0);
  bind<&ndimage::stencils>(m, "stencils", "input", Out{"output"}, "offsets", "weights", "counts", "mode", "cval",
                           "scale", "scale_in_double", nb::arg("stream") = 0);
  bind<&ndimage::min_max_filter1d>(m, "min_max_filter1d", "input", Out{"output"}, "size", "axis", "mode", "cval",
                                   "origin", "minimum", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
