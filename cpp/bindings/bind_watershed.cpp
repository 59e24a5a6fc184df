#include "binders.hpp"
#include "segmentation/watershed.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(watershed) {
  bind<&segmentation::watershed>(m, "watershed", "image", Out{"mask"}, Out{"labels"}, "offsets", "compactness",
                                 "watershed_line", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
