// ndimg::restoration — the "patch" primitives: per-pixel neighbourhood loops of scikit-image's denoisers
// (bilateral filter, non-local means in its fast and exact forms) and of rolling_ball's min-plus filter,
// computed with scikit-image's arithmetic (its working float type, its LUTs, its fast exponential).
// All run on both engines.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::restoration {

// scikit-image's bilateral filter of a C-contiguous float32/float64 (rows, cols, channels) image whose
// minimum is >= 0 (the caller shifts it). mode: 'C'onstant, 'E'dge, 'S'ymmetric, 'R'eflect, 'W'rap, as
// scikit-image's get_pixel3d maps coordinates; cval in that mode. The colour weight of a neighbour at
// Euclidean colour distance r is color_lut[min(int(r * dist_scale), bins - 1)], its spatial weight
// range_lut[ky * win_size + kx]; every sum in the image's float type. `out`: like `image`.
void bilateral(const View& image, int64_t win_size, char mode, double cval, double dist_scale, const View& color_lut,
               const View& range_lut, const View& out, StreamHandle stream = nullptr);

// Rolling-ball background: out[i] = min over the kernel's elements k of padded[i + k] + diff[k], with
// `padded` the image padded by diff.shape // 2 (with +inf) on every side, all in one float type. Elements
// of `diff` that are +inf are never the minimum. nansafe: a NaN sum makes the element NaN (otherwise NaNs
// are passed over, as scikit-image's two kernels do).
void rolling_ball(const View& padded, const View& diff, const View& out, bool nansafe, StreamHandle stream = nullptr);

// Fast non-local means (Darbon et al., scikit-image's _fast_nl_means_denoising_{2,3,4}d) of `padded`, a
// C-contiguous float64 (spatial..., channels) image reflect-padded by patch_size // 2 + distance + 1 on
// every spatial side (1 to 4 spatial axes). patch_size is odd. Each pair of pixels at a shift within
// `distance` is weighted by scikit-image's fast exp of minus their patch distance (the box of half-open
// extent (x - p/2, x + p/2] of the squared differences minus channels * 2 var, over channels * h^2 *
// patch_size^ndim, clipped at 0; pairs past 5 skipped). `out`: float64 (unpadded spatial..., channels).
void nl_means_fast(const View& padded, int64_t patch_size, int64_t distance, double h, double var, const View& out,
                   StreamHandle stream = nullptr);

// Exact non-local means (scikit-image's _nl_means_denoising_{2,3}d) in the image's float type: `padded` is
// the (spatial..., channels) image reflect-padded by patch_size // 2, `w` the (patch_size,)*ndim patch
// weights (already divided by channels * sum * h^2), var the noise variance (doubled inside). `out`: like
// the unpadded image.
void nl_means(const View& padded, const View& w, int64_t distance, double var, const View& out,
              StreamHandle stream = nullptr);

}  // namespace ndimg::restoration
