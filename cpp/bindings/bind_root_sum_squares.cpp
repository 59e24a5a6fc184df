#include "binders.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(root_sum_squares) {
  bind<&ndimage::root_sum_squares>(m, "root_sum_squares", "parts", Out{"output"}, "scale");
}

}  // namespace ndimg::py
