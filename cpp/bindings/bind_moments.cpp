#include "binders.hpp"
#include "measure/moments.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(moments) {
  bind<&measure::label_moments>(m, "measure_label_moments", "input", "slots", "origin", "center", "spacing", "order",
                                Out{"out"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
