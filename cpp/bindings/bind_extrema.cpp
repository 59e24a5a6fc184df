#include "binders.hpp"
#include "morphology/extrema.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(extrema) {
  bind<&morphology::plateau_flags>(m, "plateau_flags", "image", "labels", "offsets", Out{"flags"},
                                   nb::arg("stream") = 0);
  bind<&morphology::plateau_top>(m, "plateau_top", "labels", "flags", Out{"output"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
