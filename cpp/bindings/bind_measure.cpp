#include "binders.hpp"
#include "ndimg/measure.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(measure) {
  using measure::Map;
  nb::enum_<Map>(m, "SlotMap")
      .value("all", Map::all).value("positive", Map::positive).value("dense", Map::dense).value("sorted", Map::sorted);
  bind<&measure::slots>(m, "measure_slots", "labels", "map", "lo", "table", Out{"out"}, nb::arg("stream") = 0);
  bind<&measure::moments>(m, "measure_moments", "input", "slots", Out{"counts"}, Out{"sums"}, Out{"isums"},
                          nb::arg("stream") = 0);
  bind<&measure::centered>(m, "measure_centered", "input", "slots", "means", Out{"sq"}, nb::arg("stream") = 0);
  bind<&measure::weighted_coords>(m, "measure_weighted_coords", "input", "slots", Out{"coords"},
                                  nb::arg("stream") = 0);
  bind<&measure::extrema>(m, "measure_extrema", "input", "slots", Out{"mins"}, Out{"maxs"}, Out{"minpos"},
                          Out{"maxpos"}, Out{"nans"}, Out{"nanpos"}, nb::arg("stream") = 0);
  bind<&measure::histogram>(m, "measure_histogram", "input", "slots", "edges", Out{"hist"}, nb::arg("stream") = 0);
  bind<&measure::order>(m, "measure_order", "slots", "counts", Out{"out"}, nb::arg("stream") = 0);
  bind<&measure::median>(m, "measure_median", "input", "slots", Out{"out"}, "propagate_nan",
                         nb::arg("stream") = 0);
}

}  // namespace ndimg::py
