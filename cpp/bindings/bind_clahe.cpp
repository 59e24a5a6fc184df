#include "binders.hpp"
#include "ndimg/clahe.hpp"
#include "ndimg/unique.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(clahe) {
  bind<&histogram::clahe_maps>(m, "clahe_maps", "input", "bins", "kernel", "clip_limit", Out{"maps"},
                               nb::arg("stream") = 0);
  bind<&histogram::clahe_apply>(m, "clahe_apply", "input", "bins", "kernel", "origin", "full_shape", "maps", Out{"out"},
                                nb::arg("stream") = 0);
  bind<&histogram::unique_inverse>(m, "unique_inverse", "input", Out{"inverse"}, Out{"counts"});
}

}  // namespace ndimg::py
