// CPU schedule of the PCG64 stream: blocks of positions on the thread pool, each jumping to its first
// position and stepping from there.
#include "ndimg/parallel.hpp"
#include "random/pcg64.hpp"

namespace ndimg::random {

void pcg64_random_cpu(U128 state, U128 inc, uint64_t offset, double* out, int64_t n) {
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    U128 s = pcg64_advance(state, inc, offset + uint64_t(a));
    for (int64_t i = a; i < b; ++i) out[i] = pcg64_next_double(s, inc);
  });
}

}  // namespace ndimg::random
