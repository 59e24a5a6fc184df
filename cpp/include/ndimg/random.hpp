// ndimg::random — NumPy's random streams reproduced on either engine, so that a seed gives NumPy's numbers
// without drawing them on the host.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::random {

// out[i] = the float64 that numpy.random.Generator(PCG64).random() draws at position offset + i of the stream
// of a PCG64 bit generator whose 128-bit state and increment are (state_hi, state_lo) and (inc_hi, inc_lo)
// (one 64-bit draw per value, (x >> 11) * 2^-53), i = 0 .. out.size() - 1 in C order: positions anywhere
// in the stream, computed by jumping ahead. `out`: a C-contiguous float64 array.
void pcg64_random(uint64_t state_hi, uint64_t state_lo, uint64_t inc_hi, uint64_t inc_lo, uint64_t offset,
                  const View& out, StreamHandle stream = nullptr);

}  // namespace ndimg::random
