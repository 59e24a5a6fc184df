// CUDA schedules of B-spline sampling: one thread per output element (consecutive threads along the output's
// last axis, so stores coalesce), input read through the read-only cache. affine computes its coordinates on
// the fly, map_coordinates reads them, zoom/shift read per-axis taps computed once on the host. Float32 data
// into a float32 output are weighted and summed in float (coordinates and the fraction stay in double: a 4K
// row's coordinate in float would be off by 2e-4); everything else in double, as scipy and the CPU engine:
// integer and bool outputs round and truncate the sum, where float's rounding would land on the other side
// of a boundary.
#include <type_traits>
#include <vector>

#include "core/cuda.cuh"
#include "interp/sample.hpp"

namespace ndimg::interp {
namespace {

constexpr unsigned kThreads = 256;
constexpr int kInlineMatrix = 64;
// orders compiled with their taps unrolled (the common ones; higher orders unrolled cost minutes of ptxas)
constexpr int kCompiledOrder = 3;  // affine matrices of up to 64 entries travel in the kernel parameters

// Calls f.template operator()<W>() with W the arithmetic of the weights and sums (see above).
template <class TI, class F>
void with_weights(DType out, F&& f) {
  if constexpr (std::is_same_v<TI, float>) {
    if (out == DType::F32) return f.template operator()<float>();
  }
  f.template operator()<double>();
}

// The output multi-index and element offset of flat C-order index i (ND > 0: the output has ND axes). Outputs
// of fewer than 2^31 elements divide in 32 bits (64-bit division is emulated on the GPU).
template <int ND>
__device__ __forceinline__ int64_t out_index(const Geometry& g, int64_t i, int64_t* idx, bool small) {
  int64_t off = 0;
  NDIMG_UNROLL
  for (int d = (ND > 0 ? ND : g.out_nd) - 1; d >= 0; --d) {
    if (small) {
      const uint32_t n = uint32_t(g.out_shape[d]), q = uint32_t(i) / n;
      idx[d] = uint32_t(i) - q * n;
      i = q;
    } else {
      idx[d] = i % g.out_shape[d];
      i /= g.out_shape[d];
    }
    off += idx[d] * g.out_strides[d];
  }
  return off;
}

struct CoordArgs {
  int64_t strides[kMaxDim + 1];  // of the coordinates array, (in.ndim,) + out.shape
};

template <class TI, class W, int O, int ND, class TC>
__global__ void map_kernel(const TI* in, const TC* coords, void* out, DType odt, const __grid_constant__ Geometry g,
                           const __grid_constant__ CoordArgs ca, int64_t total) {
  const Reader<TI, W> read{in};
  NDIMG_GRID_STRIDE(i, total) {
    int64_t idx[ND > 0 ? ND : kMaxDim];
    const int64_t o = out_index<ND>(g, i, idx, total < (int64_t(1) << 31));
    int64_t co = 0;
    NDIMG_UNROLL
    for (int d = 0; d < (ND > 0 ? ND : g.out_nd); ++d) co += idx[d] * ca.strides[d + 1];
    double c[ND > 0 ? ND : kMaxDim];
    NDIMG_UNROLL
    for (int h = 0; h < (ND > 0 ? ND : g.in_nd); ++h) c[h] = double(__ldg(coords + co + h * ca.strides[0]));
    store(out, o, odt, double(sample_point<O, ND, W>(g, c, read)));
  }
}

struct AffineArgs {
  double m[kInlineMatrix];
  double offset[kMaxDim];
  const double* dm;  // device copy where the matrix has more than kInlineMatrix entries
};

template <class TI, class W, int O, int ND>
__global__ void affine_kernel(const TI* in, void* out, DType odt, const __grid_constant__ Geometry g,
                              const __grid_constant__ AffineArgs a, int64_t total) {
  const Reader<TI, W> read{in};
  const double* m = a.dm ? a.dm : a.m;
  NDIMG_GRID_STRIDE(i, total) {
    int64_t idx[ND > 0 ? ND : kMaxDim];
    const int64_t o = out_index<ND>(g, i, idx, total < (int64_t(1) << 31));
    double c[ND > 0 ? ND : kMaxDim];
    affine_coordinates<ND>(m, a.offset, idx, g.in_nd, g.out_nd, c);
    store(out, o, odt, double(sample_point<O, ND, W>(g, c, read)));
  }
}

struct TableArgs {
  int64_t base[kMaxDim];  // first entry of each axis in the tables
};

template <class TI, class W, int O, int ND>
__global__ void zoom_kernel(const TI* in, void* out, DType odt, const __grid_constant__ Geometry g,
                            const AxisTaps<W>* taps, const unsigned char* inside, const __grid_constant__ TableArgs t,
                            int64_t total) {
  const Reader<TI, W> read{in};
  NDIMG_GRID_STRIDE(i, total) {
    int64_t idx[ND > 0 ? ND : kMaxDim];
    const int64_t o = out_index<ND>(g, i, idx, total < (int64_t(1) << 31));
    int64_t e[ND > 0 ? ND : kMaxDim];
    bool ok = true;
    NDIMG_UNROLL
    for (int d = 0; d < (ND > 0 ? ND : g.in_nd); ++d) {
      e[d] = t.base[d] + idx[d];
      ok = ok && inside[e[d]];
    }
    const auto axis = [&](int d) -> const AxisTaps<W>& { return taps[e[d]]; };
    store(out, o, odt, double(ok ? sample<O, ND>(axis, g.in_nd, W(g.cval), read) : W(g.cval)));
  }
}

int64_t out_size(const Geometry& g) {
  int64_t n = 1;
  for (int d = 0; d < g.out_nd; ++d) n *= g.out_shape[d];
  return n;
}

template <class TI, class W>
void zoom_launch(const View& in, const double* zoom, const double* shift, bool grid_mode, const View& out,
                 const Geometry& g, int64_t total, cudaStream_t s, const char* op) {
  // the per-axis taps, computed once on the host (a few thousand entries) and copied in one piece
  TableArgs t{};
  int64_t entries = 0;
  for (int d = 0; d < g.in_nd; ++d) {
    t.base[d] = entries;
    entries += g.out_shape[d];
  }
  std::vector<AxisTaps<W>> taps(static_cast<size_t>(entries));
  std::vector<unsigned char> inside(static_cast<size_t>(entries));
  for (int d = 0; d < g.in_nd; ++d)
    for (int64_t k = 0; k < g.out_shape[d]; ++k) {
      const double cc = zoom_shift_coordinate(k, zoom, zoom ? zoom[d] : 0.0, shift, shift ? shift[d] : 0.0, grid_mode);
      const size_t e = size_t(t.base[d] + k);
      inside[e] = axis_taps(cc + g.npad[d], g.in_shape[d], g.in_strides[d], g.mode, g.order[d], taps[e]);
    }
  const size_t tap_bytes = taps.size() * sizeof(AxisTaps<W>);
  cuda::Scratch buf(tap_bytes + inside.size(), s, op);
  auto* dtaps = buf.get<AxisTaps<W>>();
  auto* dinside = buf.get<unsigned char>() + tap_bytes;
  // pageable sources: staged before cudaMemcpyAsync returns
  cuda::check(cudaMemcpyAsync(dtaps, taps.data(), tap_bytes, cudaMemcpyHostToDevice, s), op);
  cuda::check(cudaMemcpyAsync(dinside, inside.data(), inside.size(), cudaMemcpyHostToDevice, s), op);
  dispatch_compiled<TI, kCompiledOrder>(g, [&]<int O, int ND>() {
    zoom_kernel<TI, W, O, ND><<<cuda::blocks_for(total, kThreads), kThreads, 0, s>>>(in.ptr<TI>(), out.data,
                                                                                   out.dtype, g, dtaps, dinside, t,
                                                                                   total);
  });
  cuda::check_launch(op);
}

}  // namespace

void map_coordinates_cuda(const View& in, const View& coords, const View& out, const Geometry& g,
                          StreamHandle stream) {
  const char* op = "map_coordinates";
  const int64_t total = out_size(g);
  if (total == 0) return;
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  CoordArgs ca{};
  for (int d = 0; d < coords.ndim; ++d) ca.strides[d] = coords.strides[d];
  dispatch_dtype(in.dtype, [&]<class TI>() {
    with_weights<TI>(out.dtype, [&]<class W>() {
      dispatch_compiled<TI, kCompiledOrder>(g, [&]<int O, int ND>() {
        auto launch = [&]<class TC>(const TC* c) {
          map_kernel<TI, W, O, ND, TC><<<cuda::blocks_for(total, kThreads), kThreads, 0, s>>>(
              in.ptr<TI>(), c, out.data, out.dtype, g, ca, total);
        };
        if (coords.dtype == DType::F32) launch(coords.ptr<float>());
        else launch(coords.ptr<double>());
      });
    });
  });
  cuda::check_launch(op);
}

void affine_cuda(const View& in, const double* matrix, const double* offset, const View& out, const Geometry& g,
                 StreamHandle stream) {
  const char* op = "affine_transform";
  const int64_t total = out_size(g);
  if (total == 0) return;
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const size_t entries = size_t(g.in_nd) * size_t(g.out_nd);
  AffineArgs a{};
  for (int h = 0; h < g.in_nd; ++h) a.offset[h] = offset[h];
  cuda::Scratch dm(entries > size_t(kInlineMatrix) ? entries * sizeof(double) : 0, s, op);
  if (entries > size_t(kInlineMatrix)) {
    // pageable source: staged before cudaMemcpyAsync returns
    cuda::check(cudaMemcpyAsync(dm.get<double>(), matrix, entries * sizeof(double), cudaMemcpyHostToDevice, s), op);
    a.dm = dm.get<double>();
  } else {
    for (size_t k = 0; k < entries; ++k) a.m[k] = matrix[k];
  }
  dispatch_dtype(in.dtype, [&]<class TI>() {
    with_weights<TI>(out.dtype, [&]<class W>() {
      dispatch_compiled<TI, kCompiledOrder>(g, [&]<int O, int ND>() {
        affine_kernel<TI, W, O, ND><<<cuda::blocks_for(total, kThreads), kThreads, 0, s>>>(in.ptr<TI>(), out.data,
                                                                                          out.dtype, g, a, total);
      });
    });
  });
  cuda::check_launch(op);
}

void zoom_shift_cuda(const View& in, const double* zoom, const double* shift, bool grid_mode, const View& out,
                     const Geometry& g, StreamHandle stream) {
  const char* op = "zoom_shift";
  const int64_t total = out_size(g);
  if (total == 0) return;
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class TI>() {
    with_weights<TI>(out.dtype, [&]<class W>() { zoom_launch<TI, W>(in, zoom, shift, grid_mode, out, g, total, s, op); });
  });
}

}  // namespace ndimg::interp
