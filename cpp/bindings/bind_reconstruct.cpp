#include "binders.hpp"
#include "morphology/reconstruct.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(reconstruct) {
  bind<&morphology::reconstruct_dilation>(m, "reconstruct_dilation", Out{"marker"}, "mask", "offsets", "lo", "hi",
                                          "tile_rows");
  bind<&morphology::plateau_maxima>(m, "plateau_maxima", "image", Out{"flags"}, "offsets", "line_candidates");
  bind<&morphology::flood_flags>(m, "flood_flags", Out{"flags"}, "offsets", "seed");
}

}  // namespace ndimg::py
