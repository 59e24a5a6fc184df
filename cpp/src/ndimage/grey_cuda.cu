#include <vector>

#include "ndimage/footprint.cuh"
#include "ndimage/grey.hpp"

namespace ndimg::ndimage {
namespace {

// One thread per output element of any strided layout and footprint (grey_taps, as the CPU engine).
template <bool Minimum, class TI, class TO, class A>
__global__ void grey_kernel(const TI* in, TO* out, Geometry g, const int64_t* offsets, const int64_t* linear,
                            const double* s, const A* sa, int64_t count, Mode mode, A cval, int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[kMaxDim];
    const int64_t o = unravel(g, idx, c);
    out[o] = cast_to<TO>(grey_taps<Minimum, A>(g, c, in, offsets, linear, s, sa, count, mode, cval));
  }
}

}  // namespace

void grey_filter_cuda(const View& in, const View& out, const Taps& t, std::span<const double> s, bool minimum,
                      Mode mode, double cval, StreamHandle stream) {
  const char* op = minimum ? "grey_erosion" : "grey_dilation";
  auto st = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int64_t total = out.size();
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using A = grey_t<TI>;
    std::vector<A> sa;
    for (double x : s) sa.push_back(cast_to<A>(x));
    const DeviceTaps dt(t, st, op);
    // the structure in double, then cast to A (doubles first keeps A's entries aligned); none when flat
    cuda::Scratch table(s.size() * (sizeof(double) + sizeof(A)), st, op);
    double* ds = s.empty() ? nullptr : table.get<double>();
    A* dsa = s.empty() ? nullptr : reinterpret_cast<A*>(ds + s.size());
    if (!s.empty()) {
      // pageable sources: each copy is staged before cudaMemcpyAsync returns
      cuda::check(cudaMemcpyAsync(ds, s.data(), s.size() * sizeof(double), cudaMemcpyHostToDevice, st), op);
      cuda::check(cudaMemcpyAsync(dsa, sa.data(), sa.size() * sizeof(A), cudaMemcpyHostToDevice, st), op);
    }
    with_kernel_output<TI>(out, st, op, [&]<class TO>(const View& o) {
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = o.strides[d];
      const unsigned blocks = cuda::blocks_for(total, 256);
      const A cv = cast_to<A>(cval);
      if (minimum)
        grey_kernel<true, TI, TO, A><<<blocks, 256, 0, st>>>(in.ptr<TI>(), o.ptr<TO>(), g, dt.offsets, dt.linear, ds,
                                                           dsa, t.count, mode, cv, total);
      else
        grey_kernel<false, TI, TO, A><<<blocks, 256, 0, st>>>(in.ptr<TI>(), o.ptr<TO>(), g, dt.offsets, dt.linear,
                                                            ds, dsa, t.count, mode, cv, total);
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
