#include "binders.hpp"
#include "ndimg/histogram.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(histogram) {
  bind<&histogram::integer>(m, "histogram_integer", "input", "lo", Out{"counts"}, nb::arg("stream") = 0);
  bind<&histogram::uniform>(m, "histogram_uniform", "input", "edges", Out{"counts"}, nb::arg("stream") = 0);
  bind<&histogram::joint_integer>(m, "histogram_joint_integer", "input0", "lo0", "input1", "lo1", Out{"counts"},
                                  nb::arg("stream") = 0);
  bind<&histogram::joint_uniform>(m, "histogram_joint_uniform", "input0", "edges0", "input1", "edges1",
                                  Out{"counts"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
