#include "binders.hpp"
#include "segmentation/felzenszwalb.hpp"
#include "segmentation/quickshift.hpp"
#include "segmentation/slic.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(superpixels) {
  bind<&segmentation::slic_iterate>(m, "slic_iterate", "image", "mask", "use_mask", Out{"segments"}, "step",
                                    "grid_steps", "max_num_iter", "spacing", "slic_zero", "start_label",
                                    "ignore_color", Out{"labels"}, nb::arg("stream") = 0);
  bind<&segmentation::slic_enforce_connectivity>(m, "slic_enforce_connectivity", "labels", "min_size", "max_size",
                                                 "start_label", Out{"out"});
  bind<&segmentation::felzenszwalb_costs>(m, "felzenszwalb_costs", "image", Out{"costs"}, nb::arg("stream") = 0);
  bind<&segmentation::felzenszwalb_sort>(m, "felzenszwalb_sort", "costs", Out{"sorted"}, Out{"order"},
                                         nb::arg("stream") = 0);
  bind<&segmentation::felzenszwalb_merge>(m, "felzenszwalb_merge", "costs", "order", "scale", "min_size",
                                          Out{"labels"});
  bind<&segmentation::quickshift>(m, "quickshift", "image", "kernel_size", Out{"densities"}, Out{"parent"},
                                  Out{"dist_parent"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
