#include "binders.hpp"
#include "morphology/convex_hull.hpp"
#include "morphology/skeleton.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(skeleton) {
  nb::enum_<morphology::Thinning>(m, "Thinning")
      .value("Zhang", morphology::Thinning::Zhang)
      .value("GuoHall", morphology::Thinning::GuoHall);
  bind<&morphology::thin2d>(m, "thin2d", "input", Out{"output"}, "method", "max_iter", nb::arg("stream") = 0);
  bind<&morphology::thin_lee>(m, "thin_lee", Out{"image"}, nb::arg("stream") = 0);
  bind<&morphology::fill_convex_polygon>(m, "fill_convex_polygon", Out{"output"}, "twice", "strict",
                                         nb::arg("stream") = 0);
  bind<&morphology::fill_convex_polygons>(m, "fill_convex_polygons", Out{"output"}, "twice", "starts",
                                          nb::arg("stream") = 0);
  bind<&morphology::fill_convex_hull_nd>(m, "fill_convex_hull_nd", Out{"output"}, "equations", "tolerance",
                                         nb::arg("stream") = 0);
  bind<&morphology::medial_axis_thin>(m, "medial_axis_thin", Out{"result"}, "distance", "tiebreak",
                                      nb::arg("stream") = 0);
}

}  // namespace ndimg::py
