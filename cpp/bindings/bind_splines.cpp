#include "binders.hpp"
#include "interp/spline_filter.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(splines) {
  using interp::SplineBoundary;
  nb::enum_<SplineBoundary>(m, "SplineBoundary")
      .value("mirror", SplineBoundary::Mirror).value("reflect", SplineBoundary::Reflect)
      .value("wrap", SplineBoundary::Wrap)
      .value("reflect_scipy117", SplineBoundary::ReflectScipy117);
  bind<&interp::spline_filter>(m, "spline_filter", "input", Out{"output"}, "order", "axes", "boundary",
                               nb::arg("stream") = 0);
}

}  // namespace ndimg::py
