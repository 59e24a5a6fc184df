#include "binders.hpp"
#include "ndimg/ridges.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(ridges) {
  using filters::Ridge, filters::RidgeParams;
  nb::enum_<Ridge>(m, "Ridge")
      .value("frangi", Ridge::Frangi).value("sato", Ridge::Sato).value("meijering", Ridge::Meijering)
      .value("norm", Ridge::Norm);
  nb::class_<RidgeParams>(m, "RidgeParams")
      .def(
          "__init__",
          [](RidgeParams* p, double alpha, double beta, double gamma, double scale, double norm, bool fill) {
            new (p) RidgeParams{alpha, beta, gamma, scale, norm, fill};
          },
          nb::kw_only(), nb::arg("alpha") = 0.5, nb::arg("beta") = 0.5, nb::arg("gamma") = 15.0,
          nb::arg("scale") = 1.0, nb::arg("norm") = 1.0, nb::arg("fill") = false)
      .def_ro("alpha", &RidgeParams::alpha).def_ro("beta", &RidgeParams::beta).def_ro("gamma", &RidgeParams::gamma)
      .def_ro("scale", &RidgeParams::scale).def_ro("norm", &RidgeParams::norm).def_ro("fill", &RidgeParams::fill);
  bind<&filters::ridge_max>(m, "ridge_max", "kind", "hessian", "params", nb::arg("stream") = 0);
  bind<&filters::ridge_accumulate>(m, "ridge_accumulate", "kind", "hessian", Out{"acc"}, "params",
                                   nb::arg("stream") = 0);
}

}  // namespace ndimg::py
