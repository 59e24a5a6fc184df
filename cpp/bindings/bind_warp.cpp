#include "binders.hpp"
#include "interp/warp_fast.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(warp) {
  nb::enum_<interp::PadMode>(m, "PadMode")
      .value("constant", interp::PadMode::constant)
      .value("edge", interp::PadMode::edge)
      .value("symmetric", interp::PadMode::symmetric)
      .value("reflect", interp::PadMode::reflect)
      .value("wrap", interp::PadMode::wrap);
  bind<&interp::warp_homography>(m, "warp_homography", "input", "matrix", Out{"output"}, "order", "mode", "cval",
                                 "window", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
