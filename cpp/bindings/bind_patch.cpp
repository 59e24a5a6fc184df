#include "binders.hpp"
#include "ndimg/patch.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(patch) {
  bind<&restoration::bilateral>(m, "bilateral", "image", "win_size", "mode", "cval", "dist_scale", "color_lut",
                                "range_lut", Out{"out"}, nb::arg("stream") = 0);
  bind<&restoration::rolling_ball>(m, "rolling_ball", "padded", "kernel", Out{"out"}, "nansafe",
                                   nb::arg("stream") = 0);
  bind<&restoration::nl_means_fast>(m, "nl_means_fast", "padded", "patch_size", "distance", "h", "var", Out{"out"},
                                    nb::arg("stream") = 0);
  bind<&restoration::nl_means>(m, "nl_means", "padded", "w", "distance", "var", Out{"out"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
