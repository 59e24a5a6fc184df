#include "binders.hpp"
#include "ndimg/morphology.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(morphology) {
  bind<&morphology::binary_erosion>(m, "binary_erosion", "input", Out{"output"}, "offsets", "mask", "use_mask",
                                    "border_value", "invert", "centre_is_true", "iterations", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
