// ndimg::restoration — the iterations of skimage.restoration's total-variation denoisers.
#pragma once
#include <cstdint>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::restoration {

// Chambolle's projection algorithm on an n-D float image (C-contiguous), result in `out` (same shape and
// dtype): at most `max_num_iter` iterations, stopping once the energy changes by less than eps times the
// first iteration's. Returns the number of iterations run. CPU arrays.
int64_t tv_chambolle(const View& image, const View& out, double weight, double eps, int64_t max_num_iter);

// Split Bregman TV of `image` (rows, cols, channels), C-contiguous float, written into `out`
// (rows + 2, cols + 2, channels), whose values on entry also start the split variables (scikit-image's
// zeros, or the previous channel's result when it reuses one output per channel): Gauss-Seidel sweeps until
// the root mean square update is at most eps or `max_num_iter` sweeps. Isotropic or anisotropic shrinkage.
// Either engine: each pixel reads its neighbours' new values above and to the left, so both run the sweep
// as a wavefront of tiles over their anti-diagonals, with scikit-image's values. Returns the sweeps run.
int64_t tv_bregman(const View& image, const View& out, double weight, int64_t max_num_iter, double eps,
                   bool isotropic, StreamHandle stream = nullptr);

}  // namespace ndimg::restoration

namespace ndimg::restoration {

// Phase unwrapping of a 2-D or 3-D float64 image (C-contiguous) by reliability-sorted edges (Herraez et al.,
// as scikit-image's unwrap_2d / unwrap_3d run it: the same reliabilities, edge order, sort and merges, so the
// same result). `mask` (uint8, 1 = masked) removes pixels from the edges; masked pixels get the minimum of
// the unwrapped phase. wrap_* connect the last and first slices along z (axis 0 of 3-D), y and x. Pixels
// whose reliability is not computed (the borders without wrap) take C's rand(): `reseed` calls srand(0)
// first (scikit-image does when no rng is given), else the process's generator continues. Either engine
// (on CUDA the reliabilities, edges, sort and result on the device, the sequential merge on the host).
void unwrap_phase(const View& image, const View& mask, const View& out, bool wrap_z, bool wrap_y, bool wrap_x,
                  bool reseed, StreamHandle stream = nullptr);

}  // namespace ndimg::restoration
