#include "binders.hpp"
#include "ndimg/label.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(label) {
  bind<&label::seeded_components>(m, "seeded_components", "input", "low", "high", Out{"output"},
                                  nb::arg("stream") = 0);
  bind<&label::seeded_roots>(m, "seeded_roots", "input", "low", "high", Out{"output"}, Out{"roots"},
                             nb::arg("stream") = 0);
  bind<&label::label>(m, "label", "input", "structure", Out{"output"}, nb::arg("stream") = 0);
  bind<&label::label_values>(m, "label_values", "input", "background", "structure", Out{"output"},
                             nb::arg("stream") = 0);
  bind<&label::find_objects>(m, "find_objects", "labels", "max_label", Out{"boxes"}, nb::arg("stream") = 0);
  bind<&label::value_groups>(m, "value_groups", "input", "lo", Out{"counts"}, Out{"coords"});
  bind<&label::watershed_ift>(m, "watershed_ift", "input", "markers", "structure", Out{"output"});
}

}  // namespace ndimg::py
