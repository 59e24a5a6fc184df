// The random streams' entry: validate once, route to the engine.
#include "random/pcg64.hpp"

namespace ndimg::random {

void pcg64_random(uint64_t state_hi, uint64_t state_lo, uint64_t inc_hi, uint64_t inc_lo, uint64_t offset,
                  const View& out, StreamHandle stream) {
  const char* op = "pcg64_random";
  if (out.dtype != DType::F64 || !out.c_contiguous()) throw ValueError("pcg64_random: out must be C-contiguous float64");
  if (out.size() == 0) return;
  const U128 state{state_hi, state_lo}, inc{inc_hi, inc_lo};
  NDIMG_ROUTE(out, op, pcg64_random_cpu(state, inc, offset, out.ptr<double>(), out.size()),
              pcg64_random_cuda(state, inc, offset, out.ptr<double>(), out.size(), out.device_id, stream));
}

}  // namespace ndimg::random
