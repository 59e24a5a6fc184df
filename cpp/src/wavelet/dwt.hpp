// ndimg::wavelet — one level of PyWavelets' discrete wavelet transform (mode 'symmetric') along one axis of an
// n-D float array, to PyWavelets' bit: its taps (given by the caller, float32 data with float32 taps), its order
// of summation, each product and sum rounded on its own (python/ndimg/restoration/_dwt.py states the order).
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::wavelet {

// Analysis along `axis` of a C-contiguous float32/float64 array with n samples there: `lo` and `hi`
// (C-contiguous, its dtype, its shape but (n + F - 1) // 2 along `axis`) get the approximation and detail
// coefficients of the F-tap filters dec_lo and dec_hi (F even). CPU arrays.
void dwt(const View& in, const View& lo, const View& hi, int axis, std::span<const double> dec_lo,
         std::span<const double> dec_hi);

// Synthesis along `axis` from approximation `ca` and detail `cd` (one shape and dtype, C-contiguous, m samples
// along `axis`) into `out` (their shape but 2 (m - F / 2 + 1) along `axis`): the sum of each band's upsampled
// 'valid' convolution with its reconstruction filter. A band whose filter is empty is absent (pywt.idwt's None;
// its array is then not read). CPU arrays.
void idwt(const View& ca, const View& cd, const View& out, int axis, std::span<const double> rec_lo,
          std::span<const double> rec_hi);

// Step s (0 <= s < F) of analysis output k of a signal of n samples: the tap it adds and the sample it
// multiplies. Output k is the convolution at i = 2k + 1 of the half-sample symmetric extension (period 2n);
// its taps go in order 0..F-1, except that one reaching past the right end adds those first, downwards
// from i - n to 0.
NDIMG_HD void analysis_step(int64_t n, int64_t k, int s, int& tap, int64_t& sample) {
  const int64_t i = 2 * k + 1, past = i - n;
  tap = s <= past ? int(past - s) : s;
  int64_t at = i - tap;
  if (at < 0 || at >= n) {
    at %= 2 * n;
    if (at < 0) at += 2 * n;
    if (at >= n) at = 2 * n - 1 - at;
  }
  sample = at;
}

// Synthesis output 2 m + phase of one band is the sum over j = 0..F/2-1, in order, of c[m + F/2 - 1 - j] times
// rec[2 j + phase]. PyWavelets' sums (both directions) start from +0, so they are never -0: the same values
// as from the first product, and the same zeros.

}  // namespace ndimg::wavelet
