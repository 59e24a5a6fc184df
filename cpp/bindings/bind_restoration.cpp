#include "binders.hpp"
#include "ndimg/restoration.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(restoration) {
  bind<&restoration::tv_chambolle>(m, "tv_chambolle", "image", Out{"output"}, "weight", "eps", "max_num_iter");
  bind<&restoration::tv_bregman>(m, "tv_bregman", "image", Out{"output"}, "weight", "max_num_iter", "eps", "isotropic",
                                 nb::arg("stream") = 0);
  bind<&restoration::unwrap_phase>(m, "unwrap_phase", "image", "mask", Out{"output"}, "wrap_z", "wrap_y", "wrap_x",
                                   "reseed", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
