#include "binders.hpp"
#include "ndimg/ndimage_grey.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(grey) {
  bind<&ndimage::grey_filter>(m, "grey_filter", "input", Out{"output"}, "offsets", "structure", "minimum", "mode",
                              "cval", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
