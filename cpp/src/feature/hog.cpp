// HOG's entries: validate once, route to the engine.
#include <string>

#include "feature/hog.hpp"

namespace ndimg::feature {
namespace {

void require_f64(const View& v, int ndim, const char* what, const char* op) {
  if (v.dtype != DType::F64 || v.ndim != ndim || !v.c_contiguous())
    throw ValueError(std::string(op) + ": " + what + " must be a C-contiguous " + std::to_string(ndim) +
                     "-D float64 array");
}

}  // namespace

void hog_histograms(const View& image, int64_t cell_rows, int64_t cell_cols, const View& hist, StreamHandle stream) {
  const char* op = "hog_histograms";
  if (!is_float(image.dtype) || image.ndim != 3 || !image.c_contiguous())
    throw ValueError("hog_histograms: image must be a C-contiguous (rows, cols, channels) float array");
  require_f64(hist, 3, "hist", op);
  require_same_device(image, hist, op);
  if (cell_rows < 1 || cell_cols < 1) throw ValueError("hog_histograms: cells must be at least 1 pixel");
  if (hist.shape[0] * cell_rows > image.shape[0] || hist.shape[1] * cell_cols > image.shape[1])
    throw ValueError("hog_histograms: more cells than the image holds");
  if (image.shape[2] < 1) throw ValueError("hog_histograms: the image has no channel");
  if (hist.size() == 0) return;
  NDIMG_ROUTE(image, op, hog_histograms_cpu(image, cell_rows, cell_cols, hist),
              hog_histograms_cuda(image, cell_rows, cell_cols, hist, stream));
}

void hog_normalize(const View& hist, HogNorm norm, const View& blocks, StreamHandle stream) {
  const char* op = "hog_normalize";
  require_f64(hist, 3, "hist", op);
  if (!is_float(blocks.dtype) || blocks.ndim != 5 || !blocks.c_contiguous())
    throw ValueError("hog_normalize: blocks must be a C-contiguous 5-D float array");
  require_same_device(hist, blocks, op);
  if (blocks.shape[4] != hist.shape[2] || blocks.shape[0] + blocks.shape[2] - 1 != hist.shape[0] ||
      blocks.shape[1] + blocks.shape[3] - 1 != hist.shape[1])
    throw ValueError("hog_normalize: the blocks do not tile the cells");
  if (int(norm) < 0 || int(norm) > 3) throw ValueError("hog_normalize: unknown normalisation");
  if (blocks.size() == 0) return;
  NDIMG_ROUTE(hist, op, hog_normalize_cpu(hist, norm, blocks), hog_normalize_cuda(hist, norm, blocks, stream));
}

}  // namespace ndimg::feature
