#include "binders.hpp"
#include "ndimg/histogram.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(histogram) {
  bind<&histogram::integer>(m, "histogram_integer", "input", "lo", Out{"counts"}, nb::arg("stream") = 0);
  bind<&histogram::uniform>(m, "histogram_uniform", "input", "edges", Out{"counts"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
