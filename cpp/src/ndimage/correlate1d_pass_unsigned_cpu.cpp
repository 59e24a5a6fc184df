// The separable pass's CPU schedule for unsigned inputs (see correlate1d_pass_cpu.hpp).
#include "ndimage/correlate1d_pass_cpu.hpp"

namespace ndimg::ndimage {
template void pass1d_cpu_typed<bool>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<uint8_t>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<uint16_t>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<uint32_t>(const View&, const View&, const Pass1d&);
template void pass1d_cpu_typed<uint64_t>(const View&, const View&, const Pass1d&);
}  // namespace ndimg::ndimage
