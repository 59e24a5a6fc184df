// The patch primitives' CUDA schedules: one thread per output element, each running the CPU engine's
// per-element arithmetic in the same order with every product, sum and difference rounded on its own (no
// FMA contraction), so both engines give scikit-image's results. Non-local means has no CUDA schedule yet.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/cuda.cuh"
#include "restoration/patch.hpp"

namespace ndimg::restoration {
namespace {

using patch_math::color_bin;
using patch_math::coord_map;
using patch_math::kMaxBilateralChannels;

constexpr unsigned kThreads = 256;

template <class T>
__global__ void bilateral_kernel(const T* img, int64_t rows, int64_t cols, int64_t dims, int64_t win, char mode,
                                 T cval, T dist_scale, const T* color_lut, int64_t max_bin, const T* range_lut,
                                 T* out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  const int64_t r = i / cols, c = i % cols, ext = (win - 1) / 2;
  const T* centre = img + i * dims;
  T totals[kMaxBilateralChannels];
  for (int64_t d = 0; d < dims; ++d) totals[d] = 0;
  T total_weight = 0;
  for (int64_t wr = -ext; wr <= ext; ++wr) {
    const int64_t rr = wr + r, kr = wr + ext;
    for (int64_t wc = -ext; wc <= ext; ++wc) {
      const int64_t cc = wc + c, kc = wc + ext;
      const bool outside = mode == 'C' && (rr < 0 || rr >= rows || cc < 0 || cc >= cols);
      const T* px = outside ? nullptr : img + (coord_map(rows, rr, mode) * cols + coord_map(cols, cc, mode)) * dims;
      T dist = 0;
      for (int64_t d = 0; d < dims; ++d) dist = add_rn(dist, square_rn(sub_rn(centre[d], outside ? cval : px[d])));
      dist = sqrt(dist);   // correctly rounded, as the CPU engine's
      const T weight = mul_rn(range_lut[kr * win + kc], color_lut[color_bin(mul_rn(dist, dist_scale), max_bin)]);
      for (int64_t d = 0; d < dims; ++d) totals[d] = add_rn(totals[d], mul_rn(outside ? cval : px[d], weight));
      total_weight = add_rn(total_weight, weight);
    }
  }
  for (int64_t d = 0; d < dims; ++d) out[i * dims + d] = totals[d] / total_weight;
}

struct RollGeometry {
  int ndim = 0;
  int64_t shape[kMaxDim];     // the output's
  int64_t pstride[kMaxDim];   // the padded image's strides
};

template <class T>
__global__ void rolling_ball_kernel(const T* padded, RollGeometry g, int64_t n, const int64_t* offsets, const T* values,
                                    int64_t nterms, bool nansafe, T* out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t base = 0;
  for (int64_t d = g.ndim - 1, r = i; d >= 0; r /= g.shape[d], --d) base += (r % g.shape[d]) * g.pstride[d];
  T m = std::numeric_limits<T>::infinity();
  bool nan = false;
  for (int64_t k = 0; k < nterms; ++k) {
    const T t = add_rn(padded[base + offsets[k]], values[k]);
    m = t < m ? t : m;
    nan |= isnan(t);
  }
  out[i] = nansafe && nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

}  // namespace

void bilateral_cuda(const View& image, int64_t win_size, char mode, double cval, double dist_scale,
                    const View& color_lut, const View& range_lut, const View& out, StreamHandle stream) {
  const char* op = "bilateral";
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = image.shape[0] * image.shape[1];
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    bilateral_kernel<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(
        image.ptr<const T>(), image.shape[0], image.shape[1], image.shape[2], win_size, mode, T(cval), T(dist_scale),
        color_lut.ptr<const T>(), color_lut.shape[0] - 1, range_lut.ptr<const T>(), out.ptr<T>());
  };
  if (image.dtype == DType::F32)
    launch(float(0));
  else
    launch(double(0));
  cuda::check_launch(op);
}

void rolling_ball_cuda(const View& padded, const View& diff, const View& out, bool nansafe, StreamHandle stream) {
  const char* op = "rolling_ball";
  auto s = static_cast<cudaStream_t>(stream);
  RollGeometry g;
  g.ndim = out.ndim;
  for (int64_t d = out.ndim - 1, st = 1; d >= 0; st *= padded.shape[d], --d) {
    g.shape[d] = out.shape[d];
    g.pstride[d] = st;
  }
  // the kernel's terms (offset in the padded image, value) gathered on the host, as the CPU engine's
  const bool f32 = diff.dtype == DType::F32;
  const int64_t nk = diff.size();
  const size_t esize = f32 ? sizeof(float) : sizeof(double);
  std::vector<unsigned char> host_diff(static_cast<size_t>(nk) * esize);
  cuda::check(cudaMemcpyAsync(host_diff.data(), diff.data, host_diff.size(), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  std::vector<int64_t> offsets;
  std::vector<unsigned char> values;   // in the image's float type
  for (int64_t k = 0; k < nk; ++k) {
    const unsigned char* e = host_diff.data() + size_t(k) * esize;
    double v;
    if (f32) {
      float f;
      memcpy(&f, e, sizeof f);
      v = f;
    } else {
      memcpy(&v, e, sizeof v);
    }
    if (!nansafe && v == std::numeric_limits<double>::infinity()) continue;
    int64_t off = 0, r = k;
    for (int d = diff.ndim - 1; d >= 0; r /= diff.shape[d], --d) off += (r % diff.shape[d]) * g.pstride[d];
    offsets.push_back(off);
    values.insert(values.end(), e, e + esize);
  }
  const int64_t nterms = int64_t(offsets.size());
  cuda::Scratch d_off(size_t(nterms) * sizeof(int64_t), s, op), d_val(values.size(), s, op);
  if (nterms) {
    cuda::check(cudaMemcpyAsync(d_off.get<int64_t>(), offsets.data(), size_t(nterms) * sizeof(int64_t),
                                cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaMemcpyAsync(d_val.get<unsigned char>(), values.data(), values.size(), cudaMemcpyHostToDevice, s), op);
  }
  const int64_t n = out.size();
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    rolling_ball_kernel<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(
        padded.ptr<const T>(), g, n, d_off.get<int64_t>(), d_val.get<T>(), nterms, nansafe, out.ptr<T>());
  };
  if (f32)
    launch(float(0));
  else
    launch(double(0));
  cuda::check_launch(op);
  // the host copies of the terms must outlive their asynchronous uploads
  cuda::check(cudaStreamSynchronize(s), op);
}

}  // namespace ndimg::restoration
