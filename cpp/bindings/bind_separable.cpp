#include "binders.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(separable) {
  // scipy's boundary modes, for every ndimage primitive (Python maps the grid-* aliases onto these)
  nb::enum_<Mode>(m, "Mode")
      .value("reflect", Mode::Reflect).value("constant", Mode::Constant).value("nearest", Mode::Nearest)
      .value("mirror", Mode::Mirror).value("wrap", Mode::Wrap);
  using ndimage::Pass1d;
  nb::class_<Pass1d>(m, "Pass1d")
      .def(
          "__init__",
          [](Pass1d* p, int axis, std::vector<double> weights, Mode mode, double cval, int origin, int64_t mean) {
            new (p) Pass1d{axis, std::move(weights), mode, cval, origin, mean > 0, mean};
          },
          nb::arg("axis"), nb::arg("weights"), nb::arg("mode"), nb::arg("cval"), nb::arg("origin"),
          nb::arg("mean"))  // mean: 0 for a correlation with weights, n > 0 for the mean of n values
      .def_ro("axis", &Pass1d::axis).def_ro("mode", &Pass1d::mode).def_ro("cval", &Pass1d::cval)
      .def_ro("origin", &Pass1d::origin).def_ro("size", &Pass1d::size);
  bind<&ndimage::separable>(m, "separable", "input", Out{"output"}, "passes", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
