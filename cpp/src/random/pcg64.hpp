// NumPy's PCG64 (a 128-bit linear congruential state, stepped before each 64-bit output, output by XSL-RR),
// written once for both engines, and the engine schedules' declarations. The entry is in pcg64.cpp.
#pragma once
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/random.hpp"

namespace ndimg::random {

struct U128 {
  uint64_t hi, lo;
};

NDIMG_HD uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
NDIMG_HD U128 mul(U128 a, U128 b) {  // modulo 2^128
  return {mulhi64(a.lo, b.lo) + a.hi * b.lo + a.lo * b.hi, a.lo * b.lo};
}
NDIMG_HD U128 add(U128 a, U128 b) {
  const uint64_t lo = a.lo + b.lo;
  return {a.hi + b.hi + (lo < a.lo), lo};
}

// The LCG's multiplier (PCG's 128-bit default).
NDIMG_HD U128 pcg64_multiplier() { return {0x2360ed051fc65da4ULL, 0x4385df649fccf645ULL}; }

// The state `delta` steps on (the LCG's jump ahead: log2(delta) squarings of the step).
NDIMG_HD U128 pcg64_advance(U128 state, U128 inc, uint64_t delta) {
  U128 acc_mult{0, 1}, acc_plus{0, 0}, cur_mult = pcg64_multiplier(), cur_plus = inc;
  for (; delta; delta >>= 1) {
    if (delta & 1) {
      acc_mult = mul(acc_mult, cur_mult);
      acc_plus = add(mul(acc_plus, cur_mult), cur_plus);
    }
    cur_plus = mul(add(cur_mult, U128{0, 1}), cur_plus);
    cur_mult = mul(cur_mult, cur_mult);
  }
  return add(mul(acc_mult, state), acc_plus);
}

// One draw: the state stepped, then its XSL-RR output as Generator.random()'s float64.
NDIMG_HD double pcg64_next_double(U128& state, U128 inc) {
  state = add(mul(state, pcg64_multiplier()), inc);
  const uint64_t x = state.hi ^ state.lo;
  const unsigned r = static_cast<unsigned>(state.hi >> 58);
  const uint64_t out = (x >> r) | (x << ((64 - r) & 63));
  return static_cast<double>(out >> 11) * (1.0 / 9007199254740992.0);
}

// ---- engine schedules (arguments validated by the entry) ----
void pcg64_random_cpu(U128 state, U128 inc, uint64_t offset, double* out, int64_t n);
#ifdef NDIMG_WITH_CUDA
void pcg64_random_cuda(U128 state, U128 inc, uint64_t offset, double* out, int64_t n, int device, StreamHandle s);
#endif

}  // namespace ndimg::random
