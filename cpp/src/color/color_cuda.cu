// CUDA schedule of the colour conversions: one thread per pixel, its channels read in the input dtype (a
// switch every thread of the launch takes alike), converted by the shared per-pixel math and written through
// the output's strides. Clipped-Z counts are summed per block, then once per block into one device counter.
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

// One thread per pixel (the grid covers n): every thread of a block reaches the block's count of clipped Z.
template <class Op, class T>
__global__ void convert_kernel(const void* in, DType dtype, int64_t ics, typename Op::template out_t<T>* out,
                               int64_t ocs, Layout l, int64_t n, Params p, bool pre, unsigned long long* clipped) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  int c = 0;
  if (i < n) {
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
    c = Op::run(x, y, p);
    const int64_t oo = out_offset(l, i);
    NDIMG_EACH_OUT(j, p) out[oo + j * ocs] = y[j];
  }
  if (clipped) {  // the same for the whole launch
    const int block = __syncthreads_count(c);
    if (threadIdx.x == 0 && block) atomicAdd(clipped, (unsigned long long)block);
  }
}

// Channel c of the pixel at `o`, cast to double.
__device__ __forceinline__ double read(const void* data, DType t, int64_t o) {
  switch (t) {
    case DType::Bool: return static_cast<const bool*>(data)[o];
    case DType::U8: return static_cast<const uint8_t*>(data)[o];
    case DType::U16: return static_cast<const uint16_t*>(data)[o];
    case DType::U32: return static_cast<const uint32_t*>(data)[o];
    case DType::U64: return double(static_cast<const uint64_t*>(data)[o]);
    case DType::I8: return static_cast<const int8_t*>(data)[o];
    case DType::I16: return static_cast<const int16_t*>(data)[o];
    case DType::I32: return static_cast<const int32_t*>(data)[o];
    case DType::I64: return double(static_cast<const int64_t*>(data)[o]);
    case DType::F32: return static_cast<const float*>(data)[o];
    case DType::F64: return static_cast<const double*>(data)[o];
  }
  return 0;
}

// lab1's pixel offsets at the layout's in_strides, lab2's at its out_strides; `out` is C-contiguous.
template <class Diff, class O>
__global__ void difference_kernel(const void* lab1, DType t1, int64_t cs1, const void* lab2, DType t2, int64_t cs2,
                                  Layout l, int64_t n, DiffParams p, O* out) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t o1 = in_offset(l, i), o2 = out_offset(l, i);
    double x[3], y[3];
    for (int c = 0; c < 3; ++c) {
      x[c] = read(lab1, t1, o1 + c * cs1);
      y[c] = read(lab2, t2, o2 + c * cs2);
    }
    out[i] = O(Diff::run(x, y, p));
  }
}

}  // namespace

void difference_cuda(const View& lab1, const View& lab2, const View& out, Difference d, const DiffParams& p,
                     StreamHandle stream) {
  const char* op = "color_difference";
  cuda::DeviceGuard guard(lab1.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const View px1 = pixels(lab1), px2 = pixels(lab2);
  const Layout l = flat_layout(px1, px2);  // merged axes keep the C-order flat index: the output's
  const int64_t n = px1.size();
  dispatch_difference(d, [&]<class Diff>() {
    dispatch_float(out.dtype, [&]<class O>() {
      difference_kernel<Diff, O><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(
          lab1.data, lab1.dtype, lab1.strides[lab1.ndim - 1], lab2.data, lab2.dtype, lab2.strides[lab2.ndim - 1], l, n,
          p, out.ptr<O>());
      cuda::check_launch(op);
    });
  });
}

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
