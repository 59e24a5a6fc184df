#include "binders.hpp"
#include "ndimg/scan.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(scan) {
  bind<&scan::cumsum>(m, "cumsum", "input", Out{"output"}, "axis", nb::arg("half") = false, nb::arg("stream") = 0);
  bind<&scan::window_sums>(m, "window_sums", "input", Out{"output"}, "w");
}

}  // namespace ndimg::py
