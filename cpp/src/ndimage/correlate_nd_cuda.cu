#include <vector>

#include "ndimage/correlate_nd.hpp"
#include "ndimage/footprint.cuh"

namespace ndimg::ndimage {
namespace {

// One thread per output element of any strided layout.
template <class TI, class TO, class C>
__global__ void correlate_kernel(const TI* in, TO* out, Geometry g, const int64_t* offsets, const int64_t* linear,
                                 const C* w, int64_t count, Mode mode, C cval, int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[kMaxDim];
    const int64_t o = unravel(g, idx, c);
    out[o] = cast_to<TO>(correlate_taps<C>(g, c, in, offsets, linear, w, count, mode, cval));
  }
}

}  // namespace

void correlate_cuda(const View& in, const View& out, const Taps& t, std::span<const double> w, Mode mode,
                    double cval, StreamHandle stream) {
  const char* op = "correlate";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const DeviceTaps dt(t, s, op);
  const int64_t total = out.size();
  dispatch_dtype(in.dtype, [&]<class TI>() {
    with_kernel_output<TI>(out, s, op, [&]<class TO>(const View& o) {
      using C = correlate_t<TI, TO>;
      const std::vector<C> wc(w.begin(), w.end());
      cuda::Scratch dw(wc.size() * sizeof(C), s, op);
      if (!wc.empty())
        cuda::check(cudaMemcpyAsync(dw.get<C>(), wc.data(), wc.size() * sizeof(C), cudaMemcpyHostToDevice, s), op);
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = o.strides[d];
      correlate_kernel<TI, TO, C><<<cuda::blocks_for(total, 256), 256, 0, s>>>(
          in.ptr<TI>(), o.ptr<TO>(), g, dt.offsets, dt.linear, dw.get<C>(), t.count, mode, C(cval), total);
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
