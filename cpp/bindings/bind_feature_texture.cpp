#include "binders.hpp"
#include "ndimg/feature_texture.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(feature_texture) {
  using feature::LbpMethod;
  nb::enum_<LbpMethod>(m, "LbpMethod")
      .value("default", LbpMethod::Default)
      .value("ror", LbpMethod::Ror)
      .value("uniform", LbpMethod::Uniform)
      .value("nri_uniform", LbpMethod::NriUniform)
      .value("var", LbpMethod::Var);
  bind<&feature::gradient_magnitude>(m, "gradient_magnitude", "gi", "gj", Out{"output"}, nb::arg("stream") = 0);
  bind<&feature::canny_suppress>(m, "canny_suppress", "gi", "gj", "magnitude", "mask", "low", "high", Out{"output"},
                                 nb::arg("stream") = 0);
  bind<&feature::canny_hysteresis>(m, "canny_hysteresis", "classes", Out{"output"});
  bind<&feature::local_binary_pattern>(m, "local_binary_pattern", "image", "rp", "cp", "method", Out{"output"},
                                       nb::arg("stream") = 0);
  bind<&feature::corner_fast>(m, "corner_fast", "image", "n", "threshold", Out{"output"}, nb::arg("stream") = 0);
  bind<&feature::corner_moravec>(m, "corner_moravec", "image", "window_size", Out{"output"}, nb::arg("stream") = 0);
  using feature::GlcmProp;
  nb::enum_<GlcmProp>(m, "GlcmProp")
      .value("contrast", GlcmProp::Contrast)
      .value("dissimilarity", GlcmProp::Dissimilarity)
      .value("homogeneity", GlcmProp::Homogeneity)
      .value("ASM", GlcmProp::Asm)
      .value("energy", GlcmProp::Energy)
      .value("correlation", GlcmProp::Correlation)
      .value("mean", GlcmProp::Mean)
      .value("variance", GlcmProp::Variance)
      .value("std", GlcmProp::Std);
  bind<&feature::glcm_props>(m, "glcm_props", "P", "prop", Out{"out"});
  bind<&feature::multiblock_lbp>(m, "multiblock_lbp", "int_image", "r", "c", "width", "height");
  bind<&feature::corner_orientations>(m, "corner_orientations", "image", "corners", "mask", Out{"output"},
                                      nb::arg("stream") = 0);
  bind<&feature::steered_pair_tests>(m, "steered_pair_tests", "image", "keypoints", "sin", "cos", "pairs",
                                     Out{"output"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
