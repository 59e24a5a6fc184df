#include "binders.hpp"
#include "wavelet/dwt.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(wavelet) {
  bind<&wavelet::dwt>(m, "wavelet_dwt", "input", Out{"lo"}, Out{"hi"}, "axis", "dec_lo", "dec_hi");
  bind<&wavelet::idwt>(m, "wavelet_idwt", "ca", "cd", Out{"output"}, "axis", "rec_lo", "rec_hi");
}

}  // namespace ndimg::py
