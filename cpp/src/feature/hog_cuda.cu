// HOG's CUDA schedules: one thread per cell (its histogram accumulated in order, as on the CPU) and one per
// block of the normalisation.
#include <algorithm>
#include <type_traits>

#include "core/cuda.cuh"
#include "feature/hog.hpp"

namespace ndimg::feature {
namespace {

constexpr unsigned kThreads = 128;

template <class T>
__global__ void hog_cells_kernel(const T* img, int64_t rows, int64_t cols, int64_t nch, int64_t cell_rows,
                                 int64_t cell_cols, int64_t ncells, int64_t ncc, int64_t n, double* hist) {
  NDIMG_GRID_STRIDE(i, ncells) {
    hog_cell(img, rows, cols, nch, cell_rows, cell_cols, i / ncc, i % ncc, n, hist + i * n);
  }
}

template <class T>
__global__ void hog_blocks_kernel(const double* hist, int64_t ncc, int64_t n, int64_t br, int64_t bc, int64_t nbc,
                                  int64_t nblocks, HogNorm norm, T* out) {
  NDIMG_GRID_STRIDE(i, nblocks) {
    hog_block(hist, ncc, n, br, bc, i / nbc, i % nbc, norm, out + i * br * bc * n);
  }
}

}  // namespace

void hog_histograms_cuda(const View& image, int64_t cell_rows, int64_t cell_cols, const View& hist,
                         StreamHandle stream) {
  const char* op = "hog_histograms";
  cuda::DeviceGuard guard(image.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t ncells = hist.shape[0] * hist.shape[1];
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      hog_cells_kernel<T><<<cuda::blocks_for(ncells, kThreads), kThreads, 0, s>>>(
          image.ptr<T>(), image.shape[0], image.shape[1], image.shape[2], cell_rows, cell_cols, ncells, hist.shape[1],
          hist.shape[2], hist.ptr<double>());
      cuda::check_launch(op);
    }
  });
}

void hog_normalize_cuda(const View& hist, HogNorm norm, const View& blocks, StreamHandle stream) {
  const char* op = "hog_normalize";
  cuda::DeviceGuard guard(hist.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t nblocks = blocks.shape[0] * blocks.shape[1];
  dispatch_dtype(blocks.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      hog_blocks_kernel<T><<<cuda::blocks_for(nblocks, kThreads), kThreads, 0, s>>>(
          hist.ptr<double>(), hist.shape[1], blocks.shape[4], blocks.shape[2], blocks.shape[3], blocks.shape[1],
          nblocks, norm, blocks.ptr<T>());
      cuda::check_launch(op);
    }
  });
}

}  // namespace ndimg::feature
