// SIFT's extrema and descriptor histograms: validate once, route to the engine.
#include <string>

#include "feature/sift.hpp"

namespace ndimg::feature {

void sift_extrema(const View& dog, double threshold, const View& mask, StreamHandle stream) {
  const char* op = "sift_extrema";
  if (!is_float(dog.dtype) || dog.ndim != 3 || !dog.c_contiguous())
    throw ValueError("sift_extrema: dog must be a C-contiguous (scales, rows, cols) float array");
  if (mask.dtype != DType::U8 || mask.ndim != 3 || !mask.c_contiguous() || mask.shape[0] != dog.shape[0] ||
      mask.shape[1] != dog.shape[1] || mask.shape[2] != dog.shape[2])
    throw ValueError("sift_extrema: mask must be a C-contiguous uint8 array of dog's shape");
  require_same_device(dog, mask, op);
  if (dog.size() == 0) return;
  NDIMG_ROUTE(dog, op, sift_extrema_cpu(dog, threshold, mask), sift_extrema_cuda(dog, threshold, mask, stream));
}

void sift_patches(const View& g_row, const View& g_col, const View& geometry, const View& bounds,
                  const View& starts, const View& pixels, StreamHandle stream) {
  const char* op = "sift_patches";
  if (!is_float(g_row.dtype) || g_row.ndim != 3 || !g_row.c_contiguous() || g_col.dtype != g_row.dtype ||
      g_col.ndim != 3 || !g_col.c_contiguous() || g_col.shape[0] != g_row.shape[0] ||
      g_col.shape[1] != g_row.shape[1] || g_col.shape[2] != g_row.shape[2])
    throw ValueError("sift_patches: g_row and g_col must be C-contiguous (scales, rows, cols) float arrays of one "
                     "shape and dtype");
  const int64_t k = geometry.ndim == 2 ? geometry.shape[0] : -1;
  if (geometry.dtype != g_row.dtype || geometry.ndim != 2 || geometry.shape[1] != 5 || !geometry.c_contiguous())
    throw ValueError("sift_patches: geometry must be a C-contiguous (K, 5) array of the gradients' dtype");
  if (bounds.dtype != DType::I64 || bounds.ndim != 2 || bounds.shape[0] != k || bounds.shape[1] != 5 ||
      !bounds.c_contiguous())
    throw ValueError("sift_patches: bounds must be a C-contiguous (K, 5) int64 array");
  if (starts.dtype != DType::I64 || starts.ndim != 1 || starts.shape[0] != k + 1 || !starts.c_contiguous())
    throw ValueError("sift_patches: starts must be a contiguous int64 array of K + 1 entries");
  if (pixels.dtype != g_row.dtype || pixels.ndim != 2 || pixels.shape[1] != 4 ||
      (pixels.shape[0] > 0 && !pixels.c_contiguous()))
    throw ValueError("sift_patches: pixels must be a C-contiguous (P, 4) array of the gradients' dtype");
  for (const View* v : {&g_col, &geometry, &bounds, &starts, &pixels}) require_same_device(g_row, *v, op);
  if (bounds.device == Device::CPU) {
    // boxes inside the gradients: the reads need no further checks (the device kernel clamps instead)
    const int64_t* b = bounds.ptr<int64_t>();
    for (int64_t i = 0; i < k; ++i, b += 5)
      if (b[0] < 0 || b[0] >= g_row.shape[0] || b[1] < 0 || b[2] > g_row.shape[1] || b[3] < 0 ||
          b[4] > g_row.shape[2])
        throw ValueError("sift_patches: a keypoint's box or scale lies outside the gradients");
    if (pixels.shape[0] > 0) {
      const int64_t* s = starts.ptr<int64_t>();
      for (int64_t i = 0; i < k; ++i)
        if (s[i] < 0 || s[i] > s[i + 1] || s[i + 1] > pixels.shape[0])
          throw ValueError("sift_patches: starts must rise from 0 to at most the number of pixels");
    }
  }
  if (k == 0) return;
  NDIMG_ROUTE(g_row, op, sift_patches_cpu(g_row, g_col, geometry, bounds, starts, pixels),
              sift_patches_cuda(g_row, g_col, geometry, bounds, starts, pixels, stream));
}

void sift_descriptor_histograms(const View& pixels, const View& starts, const View& rc_bins, const View& spacing,
                                const View& ori_bins, const View& hist, StreamHandle stream) {
  const char* op = "sift_descriptor_histograms";
  if (!is_float(pixels.dtype) || pixels.ndim != 2 || pixels.shape[1] != 4 || !pixels.c_contiguous())
    throw ValueError("sift_descriptor_histograms: pixels must be a C-contiguous (P, 4) float array");
  const int64_t k = hist.ndim == 4 ? hist.shape[0] : -1;
  if (hist.dtype != pixels.dtype || hist.ndim != 4 || !hist.c_contiguous() || hist.shape[1] != hist.shape[2])
    throw ValueError("sift_descriptor_histograms: hist must be a C-contiguous (K, n_hist, n_hist, n_ori) array of "
                     "the pixels' dtype");
  const int64_t n_hist = hist.shape[1], n_ori = hist.shape[3];
  if (starts.dtype != DType::I64 || starts.ndim != 1 || starts.shape[0] != k + 1 || !starts.c_contiguous())
    throw ValueError("sift_descriptor_histograms: starts must be a contiguous int64 array of K + 1 offsets");
  if (rc_bins.dtype != pixels.dtype || rc_bins.ndim != 2 || rc_bins.shape[0] != k || rc_bins.shape[1] != n_hist ||
      !rc_bins.c_contiguous())
    throw ValueError("sift_descriptor_histograms: rc_bins must be a C-contiguous (K, n_hist) array of the pixels' "
                     "dtype");
  if (spacing.dtype != pixels.dtype || spacing.ndim != 1 || spacing.shape[0] != k || !spacing.c_contiguous())
    throw ValueError("sift_descriptor_histograms: spacing must be a contiguous (K,) array of the pixels' dtype");
  if (ori_bins.dtype != pixels.dtype || ori_bins.ndim != 1 || ori_bins.shape[0] != n_ori || !ori_bins.c_contiguous())
    throw ValueError("sift_descriptor_histograms: ori_bins must be a contiguous (n_ori,) array of the pixels' dtype");
  for (const View* v : {&starts, &rc_bins, &spacing, &ori_bins, &hist}) require_same_device(pixels, *v, op);
  if (k == 0 || n_ori == 0 || n_hist == 0) return;
  // the offsets index the pixels: checked here (on the host they are read directly, on the device by the
  // caller's construction; a bad offset there is clamped by the kernel)
  if (starts.device == Device::CPU) {
    const int64_t* s = starts.ptr<int64_t>();
    for (int64_t i = 0; i < k; ++i)
      if (s[i] < 0 || s[i] > s[i + 1] || s[i + 1] > pixels.shape[0])
        throw ValueError("sift_descriptor_histograms: starts must rise from 0 to at most the number of pixels");
  }
  NDIMG_ROUTE(pixels, op, sift_descriptor_histograms_cpu(pixels, starts, rc_bins, spacing, ori_bins, hist),
              sift_descriptor_histograms_cuda(pixels, starts, rc_bins, spacing, ori_bins, hist, stream));
}

}  // namespace ndimg::feature
