// Split Bregman's Gauss-Seidel sweep on the GPU. Pixel (r, c) reads the new values of its neighbours above and
// to the left and the old ones below and to the right, so the pixels of one anti-diagonal r + c are
// independent given the diagonals before them: a wavefront. The image is cut into 32 x 32 tiles swept in
// tile anti-diagonals (one launch each: tile (I, J) needs the new values of tiles (I - 1, J) and (I, J - 1)
// only, swept by the launch before); a block stages its tile and halo in shared memory, one warp sweeps the tile's own
// anti-diagonals (lane = tile row), and the block writes the tile back. Channels are independent sweeps. Each
// pixel runs bregman_pixel of tv.hpp, built without FMA contraction: the CPU engine's values to the bit.
//
// The stopping test (bregman_rmse_above) takes the blocks' sums of the squared updates, added atomically in
// any order, and when they cannot decide it, the raster-order sum of the squares on one thread.
#include <cfloat>
#include <cmath>

#include "core/cuda.cuh"
#include "restoration/tv.hpp"

namespace ndimg::restoration {
namespace {

constexpr int kTile = 32;        // a tile's rows (one lane each) and columns
constexpr int kThreads = 128;    // stage and write back the tile; warp 0 sweeps it
// shared memory, in elements: u with its halo all round (corners unused), dx and bx with the column to the
// left, dy and by with the row above, the image
constexpr int kU = kTile + 2, kX = kTile + 1;
constexpr int kShared = kU * kU + 4 * kTile * kX + kTile * kTile;

struct Geometry {
  int64_t rows, cols, dims;
  int64_t first_j;   // the first tile column on this launch's tile anti-diagonal
  int64_t diag;
};

template <class T>
__global__ void __launch_bounds__(kThreads) sweep_tiles(BregmanParams<T> p, Geometry g, const T* f, T* u, T* dx, T* dy,
                                                         T* bx, T* by, T* sq, double* acc) {
  cuda::wait_prior_grid();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* su = reinterpret_cast<T*>(shared_bytes);
  T* sdx = su + kU * kU;
  T* sbx = sdx + kTile * kX;
  T* sdy = sbx + kTile * kX;   // (kTile + 1) rows of kTile
  T* sby = sdy + kTile * kX;
  T* sf = sby + kTile * kX;
  const int64_t tj = g.first_j + blockIdx.x, ti = g.diag - tj;
  const int64_t r0 = 1 + ti * kTile, c0 = 1 + tj * kTile;   // the tile's first pixel in the padded arrays
  const int th = int(g.rows - ti * kTile < kTile ? g.rows - ti * kTile : kTile);
  const int tw = int(g.cols - tj * kTile < kTile ? g.cols - tj * kTile : kTile);
  const int64_t D = g.dims, ocols = g.cols + 2;
  const int tid = threadIdx.x;
  for (int64_t k = blockIdx.y; k < D; k += gridDim.y) {
    auto at = [&](int64_t r, int64_t c) { return (r * ocols + c) * D + k; };
    auto img = [&](int64_t r, int64_t c) { return ((r - 1) * g.cols + (c - 1)) * D + k; };
    for (int e = tid; e < (th + 2) * (tw + 2); e += kThreads) {
      const int a = e / (tw + 2), b = e % (tw + 2);
      // the corners belong to diagonal neighbours, which other blocks may be writing now
      if ((a == 0 || a == th + 1) && (b == 0 || b == tw + 1)) continue;
      su[a * kU + b] = u[at(r0 - 1 + a, c0 - 1 + b)];
    }
    for (int e = tid; e < th * (tw + 1); e += kThreads) {
      const int a = e / (tw + 1), b = e % (tw + 1);
      sdx[a * kX + b] = dx[at(r0 + a, c0 - 1 + b)];
      sbx[a * kX + b] = bx[at(r0 + a, c0 - 1 + b)];
    }
    for (int e = tid; e < (th + 1) * tw; e += kThreads) {
      const int a = e / tw, b = e % tw;
      sdy[a * kTile + b] = dy[at(r0 - 1 + a, c0 + b)];
      sby[a * kTile + b] = by[at(r0 - 1 + a, c0 + b)];
    }
    for (int e = tid; e < th * tw; e += kThreads) {
      const int a = e / tw, b = e % tw;
      sf[a * kTile + b] = f[img(r0 + a, c0 + b)];
    }
    __syncthreads();
    if (tid < kTile) {
      const int a = tid;
      double part = 0;
      // step d: lane a updates pixel (a, d - a); lane a - 1 updated the pixel above it at step d - 1
      for (int d = 0; d < th + tw - 1; ++d) {
        const int b = d - a;
        if (a < th && b >= 0 && b < tw) {
          T* cu = su + (a + 1) * kU + (b + 1);
          const T uprev = *cu;
          const T unew = bregman_pixel(p, uprev, cu[-kU], cu[kU], cu[-1], cu[1], sdx[a * kX + b], sdy[a * kTile + b],
                                       sbx[a * kX + b], sby[a * kTile + b], sf[a * kTile + b], sdx[a * kX + b + 1],
                                       sdy[(a + 1) * kTile + b], sbx[a * kX + b + 1], sby[(a + 1) * kTile + b]);
          *cu = unew;
          const T t = unew - uprev, t2 = t * t;
          sq[img(r0 + a, c0 + b)] = t2;
          part += double(t2);
        }
        __syncwarp();
      }
      for (int o = kTile / 2; o > 0; o /= 2) part += __shfl_down_sync(0xffffffffu, part, o);
      if (a == 0) atomicAdd(acc, part);
    }
    __syncthreads();
    for (int e = tid; e < th * tw; e += kThreads) {
      const int a = e / tw, b = e % tw;
      const int64_t x = at(r0 + a, c0 + b);
      u[x] = su[(a + 1) * kU + b + 1];
      dx[x] = sdx[a * kX + b + 1];
      bx[x] = sbx[a * kX + b + 1];
      dy[x] = sdy[(a + 1) * kTile + b];
      by[x] = sby[(a + 1) * kTile + b];
    }
    __syncthreads();
  }
}

// The CPU engine's sum: in double, in raster order, on one thread.
template <class T>
__global__ void sum_in_order(const T* sq, int64_t n, double* out) {
  cuda::wait_prior_grid();
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += double(sq[i]);
  *out = s;
}

template <class T>
int64_t bregman_cuda(const View& image, const View& out, T weight, int64_t max_num_iter, double eps, bool isotropic,
                     cudaStream_t s) {
  const char* op = "tv_bregman";
  const int64_t rows = image.shape[0], cols = image.shape[1], dims = image.shape[2];
  const int64_t total = rows * cols * dims, orow = (cols + 2) * dims, ext = (rows + 2) * orow;
  const size_t es = sizeof(T);
  const T* f = image.ptr<const T>();
  T* u = out.ptr<T>();
  cuda::Scratch split(4 * size_t(ext) * es, s, op), squares(size_t(total) * es, s, op), sum(sizeof(double), s, op);
  T* dx = split.get<T>();
  T* dy = dx + ext;
  T* bx = dy + ext;
  T* by = bx + ext;
  // the split variables start as copies of `out` as given (the previous channel's result when scikit-image
  // reuses one output), then `out` takes the image and its reflected border (corners untouched)
  for (T* v : {dx, dy, bx, by}) cuda::check(cudaMemcpyAsync(v, u, size_t(ext) * es, cudaMemcpyDeviceToDevice, s), op);
  const size_t row = size_t(cols * dims) * es, pitch = size_t(orow) * es;
  cuda::check(cudaMemcpy2DAsync(u + orow + dims, pitch, f, row, row, size_t(rows), cudaMemcpyDeviceToDevice, s), op);
  cuda::check(cudaMemcpyAsync(u + dims, f + cols * dims, row, cudaMemcpyDeviceToDevice, s), op);
  cuda::check(cudaMemcpyAsync(u + (rows + 1) * orow + dims, f + (rows - 1) * cols * dims, row,
                              cudaMemcpyDeviceToDevice, s), op);
  cuda::check(cudaMemcpy2DAsync(u + orow, pitch, f + dims, row, size_t(dims) * es, size_t(rows),
                                cudaMemcpyDeviceToDevice, s), op);
  cuda::check(cudaMemcpy2DAsync(u + orow + (cols + 1) * dims, pitch, f + (cols - 1) * dims, row, size_t(dims) * es,
                                size_t(rows), cudaMemcpyDeviceToDevice, s), op);
  const T lam = 2 * weight;
  const BregmanParams<T> p{weight, lam, weight + 4 * lam, isotropic};
  const int64_t tile_rows = (rows + kTile - 1) / kTile, tile_cols = (cols + kTile - 1) / kTile;
  const size_t shared = size_t(kShared) * es;
  cuda::check(cudaFuncSetAttribute(sweep_tiles<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)), op);
  const unsigned grid_k = unsigned(dims < 65535 ? dims : 65535);
  double* acc = sum.get<double>();
  T* sq = squares.get<T>();
  auto in_order = [&] {
    cuda::launch_overlapped(sum_in_order<T>, dim3(1), dim3(1), 0, s, op, sq, total, acc);
    double v;
    cuda::check(cudaMemcpyAsync(&v, acc, sizeof v, cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    return v;
  };
  bool more = DBL_MAX > eps;   // the CPU engine's first test, rmse = DBL_MAX
  int64_t i = 0;
  for (; i < max_num_iter && more; ++i) {
    cuda::check(cudaMemsetAsync(acc, 0, sizeof(double), s), op);
    for (int64_t diag = 0; diag < tile_rows + tile_cols - 1; ++diag) {
      const int64_t first = diag - tile_rows + 1 > 0 ? diag - tile_rows + 1 : 0;
      const int64_t last = diag < tile_cols - 1 ? diag : tile_cols - 1;
      const Geometry g{rows, cols, dims, first, diag};
      cuda::launch_overlapped(sweep_tiles<T>, dim3(unsigned(last - first + 1), grid_k), dim3(kThreads), shared, s, op,
                              p, g, f, u, dx, dy, bx, by, sq, acc);
    }
    double any_order;
    cuda::check(cudaMemcpyAsync(&any_order, acc, sizeof any_order, cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    more = bregman_rmse_above(any_order, total, eps, in_order);
  }
  return i;
}

}  // namespace

int64_t tv_bregman_cuda(const View& image, const View& out, double weight, int64_t max_num_iter, double eps,
                        bool isotropic, StreamHandle stream) {
  cuda::DeviceGuard guard(image.device_id, "tv_bregman");
  auto s = static_cast<cudaStream_t>(stream);
  if (image.dtype == DType::F32) return bregman_cuda<float>(image, out, float(weight), max_num_iter, eps, isotropic, s);
  return bregman_cuda<double>(image, out, weight, max_num_iter, eps, isotropic, s);
}

}  // namespace ndimg::restoration
