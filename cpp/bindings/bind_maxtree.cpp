#include "binders.hpp"
#include "morphology/maxtree.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(maxtree) {
  bind<&morphology::max_tree>(m, "max_tree", "image", "offsets", "points", Out{"parent"}, Out{"traverser"},
                              "tile_rows", nb::arg("stream") = 0);
  bind<&morphology::max_tree_filter>(m, "max_tree_filter", "image", "parent", "traverser", "attribute", "threshold",
                                     Out{"output"}, nb::arg("stream") = 0);
  bind<&morphology::max_tree_local_maxima>(m, "max_tree_local_maxima", "image", "parent", "traverser",
                                           Out{"output"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py
