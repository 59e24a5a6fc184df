// The separable pass's CPU schedule for float inputs (see correlate1d_pass_cpu.hpp).
#include "ndimage/correlate1d_pass_cpu.hpp"

namespace ndimg::ndimage {
template void pass1d_cpu_typed<float>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<double>(const View&, const View&, const Pass1d&);
}  // namespace ndimg::ndimage
