#include "binders.hpp"
#include "ndimg/ndimage_fourier.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(fourier) {
  nb::enum_<ndimage::FourierKind>(m, "FourierKind")
      .value("gaussian", ndimage::FourierKind::Gaussian)
      .value("uniform", ndimage::FourierKind::Uniform)
      .value("ellipsoid", ndimage::FourierKind::Ellipsoid)
      .value("shift", ndimage::FourierKind::Shift);
  bind<&ndimage::fourier_filter>(m, "fourier_filter", "input", "output", "kind", "params", "n", "axis",
                                 "full_shape", "offset", nb::arg("stream") = 0);
}

}  // namespace ndimg::py
