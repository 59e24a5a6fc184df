// The Fourier filters on the CUDA engine: the per-axis tables in device memory; threads along the innermost
// axis (x) and over lines (y), each joining its line's outer axes and its own inner entry.
#include <algorithm>

#include "core/cuda.cuh"
#include "ndimage/fourier.hpp"

namespace ndimg::ndimage {
namespace {

template <FourierKind K, bool CIN, bool COUT, class TI, class TO>
__global__ void fourier_kernel(const TI* __restrict__ ir, const TI* __restrict__ ii, TO* orr, TO* oi,
                               const double* __restrict__ tables, const __grid_constant__ FourierArgs a,
                               int64_t nlines) {
  using M = FourierMath<K>;
  constexpr int w = K == FourierKind::Shift ? 2 : 1;
  const Layout& l = a.l;
  const int last = l.ndim - 1;
  const int64_t n = l.shape[last];
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const double* inner = tables + a.start[last] + i * w;
  const bool small = nlines <= 0xffffffffLL;  // line coordinates in 32-bit divisions
  for (int64_t line = blockIdx.y * int64_t(blockDim.y) + threadIdx.y; line < nlines;
       line += int64_t(gridDim.y) * blockDim.y) {
    // the outer axes in order (the CPU's join order), each coordinate from the line index directly: no
    // per-thread coordinate array (it would live in local memory)
    int64_t io = i * l.in_strides[last], oo = i * l.out_strides[last];
    Factor f = M::start();
    for (int d = 0; d < last; ++d) {
      const int64_t c = small ? int64_t(uint32_t(line) / uint32_t(a.line_stride[d]) % uint32_t(l.shape[d]))
                              : line / a.line_stride[d] % l.shape[d];
      io += c * l.in_strides[d];
      oo += c * l.out_strides[d];
      f = M::join(f, tables + a.start[d] + c * w);
    }
    f = M::finish(M::join(f, inner), a.ndim);
    const Factor r = M::template apply<CIN>(f, double(ir[io]), CIN ? double(ii[io]) : 0.0);
    orr[oo] = TO(r.re);
    if constexpr (COUT) oi[oo] = TO(r.im);
  }
}

template <FourierKind K, bool CIN, bool COUT, class TI, class TO>
void launch(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* tables,
            cudaStream_t s, const char* op) {
  const int last = a.l.ndim - 1;
  const int64_t n = a.l.shape[last];
  int64_t nlines = 1;
  for (int d = 0; d < last; ++d) nlines *= a.l.shape[d];
  // 256 threads: as many along the line as it has elements (a warp at least), the rest over lines
  unsigned tx = 32;
  while (tx < 256 && int64_t(tx) < n) tx *= 2;
  const unsigned ty = 256 / tx;
  const dim3 block(tx, ty);
  const dim3 grid(unsigned((n + tx - 1) / tx), unsigned(std::min<int64_t>((nlines + ty - 1) / ty, 65535)));
  fourier_kernel<K, CIN, COUT, TI, TO><<<grid, block, 0, s>>>(
      in[0].ptr<TI>(), CIN ? in[1].ptr<TI>() : nullptr, out[0].ptr<TO>(), COUT ? out[1].ptr<TO>() : nullptr, tables,
      a, nlines);
  cuda::check_launch(op);
}

template <FourierKind K, class TI, class TO>
void fourier_typed(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* t,
                   cudaStream_t s, const char* op) {
  if (in.size() == 2) launch<K, true, true, TI, TO>(in, out, a, t, s, op);
  else if (out.size() == 2) launch<K, false, true, TI, TO>(in, out, a, t, s, op);
  else if constexpr (K != FourierKind::Shift) launch<K, false, false, TI, TO>(in, out, a, t, s, op);
}

template <FourierKind K>
void fourier_kind(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* t,
                  cudaStream_t s, const char* op) {
  const bool fi = in[0].dtype == DType::F32, fo = out[0].dtype == DType::F32;
  if (fi && fo) fourier_typed<K, float, float>(in, out, a, t, s, op);
  else if (fi) fourier_typed<K, float, double>(in, out, a, t, s, op);
  else if (fo) fourier_typed<K, double, float>(in, out, a, t, s, op);
  else fourier_typed<K, double, double>(in, out, a, t, s, op);
}

}  // namespace

void fourier_cuda(std::span<const View> in, std::span<const View> out, FourierKind kind, const FourierArgs& a,
                  const std::vector<double>& tables, StreamHandle stream) {
  const char* op = "fourier_filter";
  cuda::DeviceGuard guard(in[0].device_id, op);
  const auto s = static_cast<cudaStream_t>(stream);
  const size_t bytes = tables.size() * sizeof(double);
  cuda::Scratch dt(bytes, s, op);
  // pageable source: staged before cudaMemcpyAsync returns, so `tables` may go out of scope
  cuda::check(cudaMemcpyAsync(dt.get<void>(), tables.data(), bytes, cudaMemcpyHostToDevice, s), op);
  const double* t = dt.get<double>();
  switch (kind) {
    case FourierKind::Gaussian: return fourier_kind<FourierKind::Gaussian>(in, out, a, t, s, op);
    case FourierKind::Uniform: return fourier_kind<FourierKind::Uniform>(in, out, a, t, s, op);
    case FourierKind::Ellipsoid: return fourier_kind<FourierKind::Ellipsoid>(in, out, a, t, s, op);
    case FourierKind::Shift: return fourier_kind<FourierKind::Shift>(in, out, a, t, s, op);
  }
}

}  // namespace ndimg::ndimage
