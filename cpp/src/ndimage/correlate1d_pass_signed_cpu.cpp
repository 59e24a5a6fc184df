// The separable pass's CPU schedule for signed inputs (see correlate1d_pass_cpu.hpp).
#include "ndimage/correlate1d_pass_cpu.hpp"

namespace ndimg::ndimage {
template void pass1d_cpu_typed<int8_t>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<int16_t>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<int32_t>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<int64_t>(const View&, const View&, const Pass1d&);
}  // namespace ndimg::ndimage
