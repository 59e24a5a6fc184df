// ndimg::ndimage Fourier filters (scipy.ndimage's fourier_gaussian, fourier_uniform, fourier_ellipsoid and
// fourier_shift): the input is an FFT's output and each element is multiplied by the filter's transform at
// its frequency.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/ndimage.hpp"

namespace ndimg::ndimage {

enum class FourierKind : uint8_t { Gaussian, Uniform, Ellipsoid, Shift };

// out = in times the transform of the filter `kind` with `params` (one per axis: sigma, box size, ellipsoid
// size or shift). `in` and `out` are given as their parts: one real view, or the real and imaginary parts
// of complex data (two views of one dtype and shape). in: float32/float64; out: float32/float64 parts
// (real out only for real in and the three real filters). n < 0: every axis holds a complex FFT's
// frequencies in numpy.fft.fftfreq's order; n >= 0: axis `axis` holds a real FFT's (0, 1, ...) of a signal
// of length n. `full_shape`/`offset` (empty: in's shape and zeros) place `in` as a block of a larger
// transform, so that each element gets its frequency in that transform (Dask chunks). Factors are computed
// in double as scipy computes them; fourier_ellipsoid takes 1 to 3 dimensions. `in` may be `out`.
void fourier_filter(std::span<const View> in, std::span<const View> out, FourierKind kind,
                    std::span<const double> params, int64_t n, int axis, std::span<const int64_t> full_shape,
                    std::span<const int64_t> offset, StreamHandle stream = nullptr);

}  // namespace ndimg::ndimage
