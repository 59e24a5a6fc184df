// CUDA pieces shared by the footprint filters: tap tables in device memory, and the output-dtype funnel
// (core/output.hpp) with its CUDA scratch and cast pass.
#pragma once
#include <cuda_runtime.h>

#include "core/cuda.cuh"
#include "core/output.hpp"
#include "ndimage/footprint.hpp"

namespace ndimg::ndimage {

// The taps' offsets and linear offsets, copied to the device on the caller's stream.
class DeviceTaps {
 public:
  DeviceTaps(const Taps& t, cudaStream_t s, const char* op)
      : mem_((t.offsets.size() + t.linear.size()) * sizeof(int64_t), s, op) {
    // pageable sources: each copy is staged before cudaMemcpyAsync returns
    if (!t.offsets.empty())
      cuda::check(cudaMemcpyAsync(mem_.get<int64_t>(), t.offsets.data(), t.offsets.size() * sizeof(int64_t),
                                  cudaMemcpyHostToDevice, s), op);
    if (!t.linear.empty())
      cuda::check(cudaMemcpyAsync(mem_.get<int64_t>() + t.offsets.size(), t.linear.data(),
                                  t.linear.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s), op);
    offsets = mem_.get<int64_t>();
    linear = offsets + t.offsets.size();
  }
  const int64_t* offsets = nullptr;
  const int64_t* linear = nullptr;

 private:
  cuda::Scratch mem_;
};

template <class TO>
__global__ void cast_from_f64(const double* src, TO* dst, Layout l, int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = idx, oi = 0, oo = 0;
    for (int d = l.ndim - 1; d >= 0; --d) {
      int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      oi += c * l.in_strides[d];
      oo += c * l.out_strides[d];
    }
    dst[oo] = cast_to<TO>(src[oi]);
  }
}

// The output-dtype funnel (core/output.hpp) on the CUDA engine: the float64 scratch on `s`, cast by a kernel.
template <class TI, class F>
void with_kernel_output(const View& out, cudaStream_t s, const char* op, F&& f) {
  ndimg::with_kernel_output<TI>(out, f, [&](const View& o, auto&& run) {
    cuda::Scratch tmp(size_t(o.size()) * sizeof(double), s, op);
    const View v = f64_like(o, tmp.get<void>());
    run(v);
    const Layout l = make_layout(v, o);
    dispatch_dtype(o.dtype, [&]<class TO>() {
      cast_from_f64<TO><<<cuda::blocks_for(o.size(), 256), 256, 0, s>>>(tmp.get<double>(), o.ptr<TO>(), l, o.size());
      cuda::check_launch(op);
    });
  });
}

}  // namespace ndimg::ndimage
