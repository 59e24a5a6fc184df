// CUDA schedule of the binary erosion: a kernel per pass over the working buffers, one thread per element,
// each pass counting its changed elements in its own device counter; the counters are read back after a
// batch of passes (passes after one that changed nothing change nothing, so a batch may overrun).
#include <algorithm>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "morphology/binary.hpp"
#include "ndimage/footprint.cuh"

namespace ndimg::morphology {
namespace {

constexpr unsigned kThreads = 256;
constexpr int64_t kBatch = 16;  // passes between read-backs of the change counters

template <class T>
__global__ void load_kernel(const T* in, Layout l, int64_t n, bool flip, uint8_t* dst) {
  NDIMG_GRID_STRIDE(i, n) dst[i] = uint8_t((in[in_offset(l, i)] != T(0)) != flip);
}

// l from layout_of(out): its "in" strides are the output view's
__global__ void store_kernel(const uint8_t* src, Layout l, int64_t n, bool flip, bool* out) {
  NDIMG_GRID_STRIDE(i, n) out[in_offset(l, i)] = bool(src[i]) != flip;
}

// changed[0]: blocks where the pass changed an element; changed[1]: blocks where it differs from what nxt
// held (the state of two passes before), which tells a cycle of period two.
__global__ void pass_kernel(BinaryPass p, const uint8_t* cur, const uint8_t* m, uint8_t* nxt,
                            const int64_t* offsets, const int64_t* linear, int64_t count, int64_t n,
                            unsigned long long* changed) {
  bool any = false, other = false;
  NDIMG_GRID_STRIDE(i, n) {
    int64_t c[kMaxDim];
    ndimage::unravel(p.g, i, c);
    const uint8_t v = erode_at(p, cur, m, i, c, offsets, linear, count);
    other |= v != nxt[i];
    nxt[i] = v;
    any |= v != cur[i];
  }
  // one atomic per block: counts of blocks, enough to tell zero
  if (__syncthreads_or(any) && threadIdx.x == 0) atomicAdd(changed, 1ull);
  if (__syncthreads_or(other) && threadIdx.x == 0) atomicAdd(changed + 1, 1ull);
}

// One erosion from a C-contiguous bool input straight into a C-contiguous bool output, both read and
// written XOR flip: no working buffers (the common single erosion or dilation).
__global__ void once_kernel(BinaryPass p, const uint8_t* in, uint8_t flip, const uint8_t* m, uint8_t* out,
                            const int64_t* offsets, const int64_t* linear, int64_t count, int64_t n) {
  NDIMG_GRID_STRIDE(i, n) {
    int64_t c[kMaxDim];
    ndimage::unravel(p.g, i, c);
    out[i] = erode_at(p, in, m, i, c, offsets, linear, count, flip) ^ flip;
  }
}

// A bool view as 0/1 bytes in C order, or nullptr.
const uint8_t* bool_bytes(const View* v) {
  return v && v->dtype == DType::Bool && v->c_contiguous() ? v->ptr<uint8_t>() : nullptr;
}

// A view's layout (as the "in" side) against the C-contiguous working buffer of the same shape.
Layout layout_of(const View& v) {
  View work = v;
  int64_t s = 1;
  for (int d = v.ndim - 1; d >= 0; --d) {
    work.strides[d] = s;
    s *= v.shape[d];
  }
  return make_layout(v, work);
}

}  // namespace

void binary_erosion_cuda(const View& in, const View& out, const BinaryPass& p, const ndimage::Taps& t,
                         const View* mask, bool invert, int64_t iterations, StreamHandle stream) {
  const char* op = "binary_erosion";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  const uint8_t* mask_bytes = bool_bytes(mask);
  if (iterations == 1 && bool_bytes(&in) && bool_bytes(&out) && (!mask || mask_bytes)) {
    const ndimage::DeviceTaps taps(t, s, op);
    once_kernel<<<blocks, kThreads, 0, s>>>(p, bool_bytes(&in), uint8_t(invert), mask_bytes, out.ptr<uint8_t>(),
                                            taps.offsets, taps.linear, t.count, n);
    cuda::check_launch(op);
    return;
  }
  cuda::Scratch a(size_t(n), s, op), b(size_t(n), s, op), mb(mask && !mask_bytes ? size_t(n) : 0, s, op);
  cuda::Scratch counters(2 * kBatch * sizeof(unsigned long long), s, op);
  dispatch_dtype(in.dtype, [&]<class T>() {
    load_kernel<T><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), layout_of(in), n, invert, a.get<uint8_t>());
  });
  cuda::check_launch(op);
  if (mask && !mask_bytes) {
    mask_bytes = mb.get<uint8_t>();
    dispatch_dtype(mask->dtype, [&]<class T>() {
      load_kernel<T><<<blocks, kThreads, 0, s>>>(mask->ptr<T>(), layout_of(*mask), n, false, mb.get<uint8_t>());
    });
    cuda::check_launch(op);
  }
  // the first pass compares with b's contents too (ignored): defined bytes for the sanitizer's initcheck
  cuda::check(cudaMemsetAsync(b.get<uint8_t>(), 0, size_t(n), s), op);
  const ndimage::DeviceTaps taps(t, s, op);
  uint8_t* cur = a.get<uint8_t>();
  uint8_t* nxt = b.get<uint8_t>();
  unsigned long long* cnt = counters.get<unsigned long long>();
  std::vector<unsigned long long> host(2 * kBatch);
  const bool watch = !p.centre;  // passes that may cycle (see binary_cpu.cpp)
  bool cycle = false;
  int64_t done = 0;
  bool stable = false;
  while (!stable && !cycle && (iterations < 1 || done < iterations)) {
    const int64_t batch = iterations < 1 ? kBatch : std::min(kBatch, iterations - done);
    cuda::check(cudaMemsetAsync(cnt, 0, size_t(2 * batch) * sizeof(unsigned long long), s), op);
    for (int64_t k = 0; k < batch; ++k) {
      pass_kernel<<<blocks, kThreads, 0, s>>>(p, cur, mask_bytes, nxt, taps.offsets,
                                              taps.linear, t.count, n, cnt + 2 * k);
      cuda::check_launch(op);
      std::swap(cur, nxt);
    }
    done += batch;
    if (iterations >= 1 && done >= iterations) break;  // all passes queued: nothing to read back
    cuda::check(cudaMemcpyAsync(host.data(), cnt, size_t(2 * batch) * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    for (int64_t k = 0; k < batch && !stable && !cycle; ++k) {
      stable = host[size_t(2 * k)] == 0;
      // pass done - batch + k + 1 (from 1) compares with a state from pass 2 on (the first overwrites scratch)
      cycle = watch && !stable && done - batch + k + 1 >= 2 && host[size_t(2 * k + 1)] == 0;
    }
    if (cycle) {  // the states alternate from here: cur holds pass `done`'s, nxt the one before
      if (iterations < 1) throw ValueError(kCycle);
      if ((iterations - done) % 2) std::swap(cur, nxt);
    }
  }
  store_kernel<<<blocks, kThreads, 0, s>>>(cur, layout_of(out), n, invert, out.ptr<bool>());
  cuda::check_launch(op);
}

}  // namespace ndimg::morphology
