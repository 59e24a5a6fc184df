#include "binders.hpp"
#include "ndimg/color.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(color) {
  using color::Conversion;
  nb::enum_<Conversion>(m, "ColorConversion")
      .value("Matrix", Conversion::Matrix).value("OffsetMatrix", Conversion::OffsetMatrix)
      .value("RgbToXyz", Conversion::RgbToXyz).value("XyzToRgb", Conversion::XyzToRgb)
      .value("XyzToLab", Conversion::XyzToLab).value("LabToXyz", Conversion::LabToXyz)
      .value("RgbToLab", Conversion::RgbToLab).value("LabToRgb", Conversion::LabToRgb)
      .value("XyzToLuv", Conversion::XyzToLuv).value("LuvToXyz", Conversion::LuvToXyz)
      .value("RgbToLuv", Conversion::RgbToLuv).value("LuvToRgb", Conversion::LuvToRgb)
      .value("RgbToHsv", Conversion::RgbToHsv).value("HsvToRgb", Conversion::HsvToRgb)
      .value("LabToLch", Conversion::LabToLch).value("LchToLab", Conversion::LchToLab)
      .value("RgbaToRgb", Conversion::RgbaToRgb).value("SeparateStains", Conversion::SeparateStains)
      .value("CombineStains", Conversion::CombineStains);
  bind<&color::convert>(m, "color_convert", "input", Out{"output"}, "conversion", "matrix", "vec",
                        nb::arg("stream") = 0);
  using color::Difference;
  nb::enum_<Difference>(m, "ColorDifference")
      .value("Cie76", Difference::Cie76).value("Ciede94", Difference::Ciede94)
      .value("Ciede2000", Difference::Ciede2000).value("Cmc", Difference::Cmc);
  bind<&color::difference>(m, "color_difference", "lab1", "lab2", Out{"output"}, "kind", "k", nb::arg("stream") = 0);
  bind<&color::stack_channels>(m, "stack_channels", "planes", Out{"out"});
}

}  // namespace ndimg::py
