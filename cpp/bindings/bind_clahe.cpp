#include "binders.hpp"
#include "ndimg/clahe.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(clahe) {
  bind<&histogram::clahe>(m, "clahe", "input", "bins", "kernel", "nbins", "clip_limit", Out{"out"},
                          nb::arg("stream") = 0);
}

}  // namespace ndimg::py
