#include "binders.hpp"
#include "measure/moments.hpp"
#include "measure/region_hull.hpp"
#include "measure/window_codes.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(moments) {
  bind<&measure::label_moments>(m, "measure_label_moments", "input", "slots", "origin", "center", "spacing", "order",
                                Out{"out"}, nb::arg("stream") = 0);
  bind<&measure::image_moments>(m, "measure_image_moments", "input", "center", "spacing", "order", Out{"out"},
                                nb::arg("stream") = 0);
  bind<&measure::window_codes>(m, "measure_window_codes", "input", Out{"hist"}, nb::arg("stream") = 0);
  bind<&measure::perimeter_codes>(m, "measure_perimeter_codes", "image", "eight", Out{"hist"}, nb::arg("stream") = 0);
  bind<static_cast<void (*)(const View&, const View&, const View&, const View&, StreamHandle)>(&measure::hull_spans)>(
      m, "measure_hull_spans", "slots", "boxes", "row_offsets", Out{"spans"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
