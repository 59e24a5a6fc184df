#include "binders.hpp"
#include "ndimg/scan.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(scan) {
  bind<&scan::cumsum>(m, "cumsum", "input", Out{"output"}, "axis", nb::arg("half") = false, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
