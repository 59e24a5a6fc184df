// HOG's CPU schedules: cells (and blocks) split over the pool, each computed whole by one thread.
#include "feature/hog.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::feature {

void hog_histograms_cpu(const View& image, int64_t cell_rows, int64_t cell_cols, const View& hist) {
  const int64_t ncr = hist.shape[0], ncc = hist.shape[1], n = hist.shape[2];
  const int64_t rows = image.shape[0], cols = image.shape[1], nch = image.shape[2];
  double* h = hist.ptr<double>();
  const int64_t per_cell = std::max<int64_t>(1, cell_rows * cell_cols * nch);
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* img = image.ptr<T>();
      parallel_for(ncr * ncc, std::max<int64_t>(1, 16384 / per_cell), [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i)
          hog_cell(img, rows, cols, nch, cell_rows, cell_cols, i / ncc, i % ncc, n, h + i * n);
      });
    }
  });
}

void hog_normalize_cpu(const View& hist, HogNorm norm, const View& blocks) {
  const int64_t nbr = blocks.shape[0], nbc = blocks.shape[1], br = blocks.shape[2], bc = blocks.shape[3];
  const int64_t n = blocks.shape[4], ncc = hist.shape[1], per_block = br * bc * n;
  const double* h = hist.ptr<double>();
  dispatch_dtype(blocks.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      T* out = blocks.ptr<T>();
      parallel_for(nbr * nbc, std::max<int64_t>(1, 16384 / per_block), [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i)
          hog_block(h, ncc, n, br, bc, i / nbc, i % nbc, norm, out + i * per_block);
      });
    }
  });
}

}  // namespace ndimg::feature
