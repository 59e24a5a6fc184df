#include "binders.hpp"
#include "ndimg/feature_kp.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(feature_kp) {
  bind<&feature::sift_extrema>(m, "sift_extrema", "dog", "threshold", Out{"mask"}, nb::arg("stream") = 0);
  bind<&feature::sift_patches>(m, "sift_patches", "g_row", "g_col", "geometry", "bounds", Out{"starts"},
                               Out{"pixels"}, nb::arg("stream") = 0);
  bind<&feature::sift_descriptor_histograms>(m, "sift_descriptor_histograms", "pixels", "starts", "rc_bins",
                                             "spacing", "ori_bins", Out{"hist"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
