#include "binders.hpp"
#include "ndimg/threshold.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(threshold) {
  using threshold::LocalKind;
  nb::enum_<LocalKind>(m, "LocalKind").value("niblack", LocalKind::Niblack).value("sauvola", LocalKind::Sauvola);
  bind<&threshold::local_threshold>(m, "local_threshold", "input", Out{"output"}, "window", "kind", "k", "r",
                                    nb::arg("stream") = 0);
  bind<&threshold::multiotsu_indices>(m, "multiotsu_indices", "prob", "thresh_count");
}

}  // namespace ndimg::py
