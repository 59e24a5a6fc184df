#include <vector>

#include "binders.hpp"
#include "convert.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(root_sum_squares) {
  m.def("root_sum_squares",
        [](std::vector<nb::handle> parts, nb::handle out, double scale) {
          std::vector<View> views;
          for (auto p : parts) views.push_back(to_view(array_arg<InArray>(p, "parts")));
          View vo = to_view(array_arg<OutArray>(out, "output"));
          nb::gil_scoped_release nogil;
          ndimage::root_sum_squares(views, vo, scale);
        },
        nb::arg("parts"), nb::arg("output"), nb::arg("scale"));
}

}  // namespace ndimg::py
