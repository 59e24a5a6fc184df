#include "binders.hpp"
#include "ndimg/feature_deriv.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(feature_deriv) {
  bind<&feature::sym_eigvals>(m, "sym_eigvals", "elems", Out{"out"}, nb::arg("stream") = 0);
  bind<&feature::hessian_det_box>(m, "hessian_det_box", "integral", Out{"out"}, "sigma", nb::arg("stream") = 0);
  bind<&feature::basic_features_2d>(m, "basic_features_2d", "smooth", Out{"out"}, "first", "intensity", "edges",
                                    "texture");
  bind<&feature::ensure_spacing>(m, "ensure_spacing", "coords", Out{"keep"}, "spacing", "p_norm", "inclusive",
                                 "max_out");
}

}  // namespace ndimg::py
