// CUDA schedule of the colour conversions: one thread per pixel, its channels read in the input dtype (a
// switch every thread of the launch takes alike), converted by the shared per-pixel math and written through
// the output's strides. Clipped-Z counts are summed per warp, then once per warp into one device counter.
#include <algorithm>

#include "color/color.hpp"
#include "core/cuda.cuh"
#include "core/index.hpp"

namespace ndimg::color {
namespace {

constexpr unsigned kThreads = 256;

template <class T, class S>
__device__ __forceinline__ void load(const void* data, int64_t o, int64_t cs, int nin, bool pre, const Params& p,
                                     T* x) {
  const S* src = static_cast<const S*>(data) + o;
  for (int c = 0; c < nin; ++c) {
    S v = src[c * cs];
    if constexpr (!std::is_same_v<S, bool>) {
      if (pre) v = minus(v, p.v[c]);
    }
    x[c] = scale<T>(v);
  }
}

template <class Op, class T>
__global__ void convert_kernel(const void* in, DType dtype, int64_t ics, typename Op::template out_t<T>* out,
                               int64_t ocs, Layout l, int64_t n, Params p, bool pre, unsigned long long* clipped) {
  NDIMG_GRID_STRIDE(i, n) {
    T x[kMaxIn];
    typename Op::template out_t<T> y[kMaxOut];
    const int64_t io = in_offset(l, i);
    switch (dtype) {
      case DType::Bool: load<T, bool>(in, io, ics, Op::in, pre, p, x); break;
      case DType::U8: load<T, uint8_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::U16: load<T, uint16_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::U32: load<T, uint32_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::U64: load<T, uint64_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::I8: load<T, int8_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::I16: load<T, int16_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::I32: load<T, int32_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::I64: load<T, int64_t>(in, io, ics, Op::in, pre, p, x); break;
      case DType::F32: load<T, float>(in, io, ics, Op::in, pre, p, x); break;
      case DType::F64: load<T, double>(in, io, ics, Op::in, pre, p, x); break;
    }
    const int c = Op::run(x, y, p);
    const int64_t oo = out_offset(l, i);
    for (int j = 0; j < p.k; ++j) out[oo + j * ocs] = y[j];
    if (clipped) {
      const unsigned active = __activemask();
      const unsigned votes = __ballot_sync(active, c != 0);
      if (votes && (threadIdx.x & 31) == unsigned(__ffs(active) - 1)) atomicAdd(clipped, (unsigned long long)__popc(votes));
    }
  }
}

}  // namespace

int64_t convert_cuda(const View& in, const View& out, Conversion c, const Params& p, StreamHandle stream) {
  const char* op = "color_convert";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const View ipx = pixels(in), opx = pixels(out);
  const Layout l = flat_layout(ipx, opx);
  const int64_t n = ipx.size();
  const bool counts = c == Conversion::LabToXyz || c == Conversion::LabToRgb;
  cuda::Scratch counter(counts ? sizeof(unsigned long long) : 0, s, op);
  auto* clipped = counter.get<unsigned long long>();
  if (counts) cuda::check(cudaMemsetAsync(clipped, 0, sizeof(unsigned long long), s), op);
  dispatch_conversion(c, [&]<class Op>() {
    dispatch_float(in.dtype, [&]<class T>() {
      using O = typename Op::template out_t<T>;
      convert_kernel<Op, T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(
          in.data, in.dtype, in.strides[in.ndim - 1], out.ptr<O>(), out.strides[out.ndim - 1], l, n, p,
          c == Conversion::OffsetMatrix, clipped);
      cuda::check_launch(op);
    });
  });
  if (!counts) return 0;
  unsigned long long host = 0;
  cuda::check(cudaMemcpyAsync(&host, clipped, sizeof(host), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  return int64_t(host);
}

}  // namespace ndimg::color
