#include "binders.hpp"
#include "ndimg/random.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(random) {
  bind<&random::pcg64_random>(m, "pcg64_random", "state_hi", "state_lo", "inc_hi", "inc_lo", "offset", Out{"out"},
                              nb::arg("stream") = 0);
}

}  // namespace ndimg::py
