#include "binders.hpp"
#include "ndimg/distance.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(distance) {
  nb::enum_<distance::Metric>(m, "DistanceMetric")
      .value("euclidean", distance::Metric::euclidean)
      .value("taxicab", distance::Metric::taxicab)
      .value("chessboard", distance::Metric::chessboard);
  bind<&distance::edt>(m, "edt", "input", "sampling", Out{"distances"}, nb::arg("stream") = 0);
  bind<&distance::edt_features>(m, "edt_features", "input", "sampling", Out{"distances"}, Out{"features"},
                                nb::arg("stream") = 0);
  bind<&distance::unravel>(m, "unravel_features", "features", Out{"indices"}, nb::arg("stream") = 0);
  bind<&distance::chamfer>(m, "chamfer", "input", "structure", Out{"distances"}, nb::arg("stream") = 0);
  bind<&distance::chamfer_features>(m, "chamfer_features", "input", "structure", Out{"distances"},
                                    Out{"features"}, nb::arg("stream") = 0);
  bind<&distance::brute_force>(m, "brute_force", "input", "border", "metric", "sampling", Out{"distances"},
                               nb::arg("stream") = 0);
  bind<&distance::brute_force_features>(m, "brute_force_features", "input", "border", "metric", "sampling",
                                        Out{"distances"}, Out{"features"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
