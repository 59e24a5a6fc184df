// CUDA schedule of Niblack/Sauvola: value and square into double buffers, window sums per axis, then the
// formula.
#include <algorithm>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "filters/threshold.hpp"

namespace ndimg::threshold {
namespace {

constexpr unsigned kThreads = 256;

template <class T, class F>
__global__ void load_values(const T* in, Layout l, int64_t n, double* sum, double* sq) {
  NDIMG_GRID_STRIDE(i, n) {
    const F v = static_cast<F>(in[in_offset(l, i)]);
    sum[i] = double(v);
    sq[i] = double(F(v * v));
  }
}
__global__ void window_pass(const double* sum, const double* sq, double* sum_out, double* sq_out, int64_t n,
                            int64_t len, int64_t inner, int64_t w) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t pos = (i / inner) % len, base = i - pos * inner;
    sum_out[i] = window_sum(pos, len, w, [&](int64_t q) { return sum[base + q * inner]; });
    sq_out[i] = window_sum(pos, len, w, [&](int64_t q) { return sq[base + q * inner]; });
  }
}
template <class F>
__global__ void write_local(const double* sum, const double* sq, Layout l, int64_t n, F size, LocalKind kind, F k,
                            F r, F* out) {
  NDIMG_GRID_STRIDE(i, n) out[out_offset(l, i)] = local_value<F>(sum[i], sq[i], size, kind, k, r);
}

}  // namespace

void local_threshold_cuda(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind,
                          double k, double r, StreamHandle stream) {
  const char* op = "local_threshold";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  const Layout l = make_layout(in, out);
  cuda::Scratch buf(4 * n * sizeof(double), s, op);
  double* a_sum = buf.get<double>();
  double* a_sq = a_sum + n;
  double* b_sum = a_sq + n;
  double* b_sq = b_sum + n;
  int64_t area = 1;
  for (int64_t w : window) area *= w;
  auto body = [&]<class F>() {
    dispatch_dtype(in.dtype, [&]<class T>() {
      load_values<T, F><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), l, n, a_sum, a_sq);
    });
    cuda::check_launch(op);
    int64_t inner = n;
    for (int d = 0; d < in.ndim; ++d) {
      inner /= in.shape[d];
      if (window[d] == 1) continue;
      window_pass<<<blocks, kThreads, 0, s>>>(a_sum, a_sq, b_sum, b_sq, n, in.shape[d], inner, window[d]);
      cuda::check_launch(op);
      std::swap(a_sum, b_sum);
      std::swap(a_sq, b_sq);
    }
    write_local<F><<<blocks, kThreads, 0, s>>>(a_sum, a_sq, l, n, F(area), kind, F(k), F(r), out.ptr<F>());
    cuda::check_launch(op);
  };
  if (out.dtype == DType::F32) body.template operator()<float>();
  else body.template operator()<double>();
}

}  // namespace ndimg::threshold
