#include "binders.hpp"
#include "ndimg/feature_desc.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(feature_desc) {
  nb::enum_<feature::HogNorm>(m, "HogNorm")
      .value("L1", feature::HogNorm::L1)
      .value("L1_sqrt", feature::HogNorm::L1Sqrt)
      .value("L2", feature::HogNorm::L2)
      .value("L2_Hys", feature::HogNorm::L2Hys);
  bind<&feature::hog_histograms>(m, "hog_histograms", "image", "cell_rows", "cell_cols", Out{"hist"},
                                 nb::arg("stream") = 0);
  bind<&feature::hog_normalize>(m, "hog_normalize", "hist", "norm", Out{"blocks"}, nb::arg("stream") = 0);
  bind<&feature::haar_features>(m, "haar_features", "ii", "rects", Out{"out"}, nb::arg("stream") = 0);
  bind<&feature::hamming_distances>(m, "hamming_distances", "a", "b", "nbits", Out{"out"}, nb::arg("stream") = 0);
  bind<&feature::cascade_windows>(m, "cascade_windows", "ii", "stumps", "leaves", "luts", "stages", "limits", "step",
                                  Out{"out"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
