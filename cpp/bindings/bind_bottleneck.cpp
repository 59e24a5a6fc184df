#include "binders.hpp"
#include "morphology/bottleneck.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(bottleneck) {
  bind<&morphology::bottleneck_forest>(m, "bottleneck_forest", "mask", "ids", "offsets", Out{"edges"},
                                       Out{"weights"});
  bind<&morphology::widest_paths>(m, "widest_paths", Out{"values"}, "edges", "weights");
}

}  // namespace ndimg::py
