#include "binders.hpp"
#include "ndimg/proj.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(proj) {
  nb::enum_<proj::Interp>(m, "ProjInterp")
      .value("linear", proj::Interp::Linear)
      .value("nearest", proj::Interp::Nearest)
      .value("cubic", proj::Interp::Cubic);
  bind<&proj::nonzero>(m, "proj_nonzero", "image", Out{"ys"}, Out{"xs"});
  bind<&proj::hough_line>(m, "proj_hough_line", "ys", "xs", "cos", "sin", "offset", Out{"accum"},
                          nb::arg("stream") = 0);
  bind<&proj::hough_circle>(m, "proj_hough_circle", "ys", "xs", "radii", "shift", "normalize", Out{"out"},
                            nb::arg("stream") = 0);
  bind<&proj::radon>(m, "proj_radon", "image", "matrix", Out{"out"}, nb::arg("stream") = 0);
  bind<&proj::backproject>(m, "proj_backproject", "proj", "cos", "sin", "radius", "interp", "knots", Out{"out"},
                           nb::arg("stream") = 0);
  bind<&proj::sart>(m, "proj_sart", Out{"image"}, "projections", "theta", "shift", "relaxation", "clip",
                    nb::arg("stream") = 0);
  bind<&proj::hough_ellipse>(m, "proj_hough_ellipse", "ys", "xs", "threshold", "accuracy", "min_size",
                             "max_b_squared");
  bind<&proj::probabilistic_hough_line>(m, "proj_probabilistic_hough_line", "ys", "xs", "order", "height", "width",
                                        "threshold", "line_length", "line_gap", "cos", "sin");
}

}  // namespace ndimg::py
