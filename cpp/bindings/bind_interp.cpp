#include "binders.hpp"
#include "ndimg/interp.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(interp) {
  nb::enum_<interp::Mode>(m, "InterpMode")
      .value("nearest", interp::Mode::nearest)
      .value("wrap", interp::Mode::wrap)
      .value("reflect", interp::Mode::reflect)
      .value("mirror", interp::Mode::mirror)
      .value("constant", interp::Mode::constant)
      .value("grid_wrap", interp::Mode::grid_wrap)
      .value("grid_constant", interp::Mode::grid_constant);
  bind<&interp::map_coordinates>(m, "map_coordinates", "input", "coordinates", Out{"output"}, "order", "mode",
                                 "cval", "npad", nb::arg("stream") = 0);
  bind<&interp::affine>(m, "affine_sample", "input", "matrix", "offset", Out{"output"}, "order", "mode", "cval",
                        "npad", "exact_axes", nb::arg("stream") = 0);
  bind<&interp::zoom_shift>(m, "zoom_shift", "input", "zoom", "shift", "grid_mode", Out{"output"}, "order", "mode",
                            "cval", "npad", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
