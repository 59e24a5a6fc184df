#include "binders.hpp"
#include "ndimg/clahe.hpp"
#include "ndimg/unique.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(clahe) {
  bind<&histogram::clahe>(m, "clahe", "input", "bins", "kernel", "nbins", "clip_limit", Out{"out"},
                          nb::arg("stream") = 0);
  bind<&histogram::unique_inverse>(m, "unique_inverse", "input", Out{"inverse"}, Out{"counts"});
}

}  // namespace ndimg::py
