// CUDA schedules of B-spline sampling: one thread per output element (consecutive threads along the output's
// last axis, so stores coalesce), input read through the read-only cache. affine computes its coordinates on
// the fly, map_coordinates reads them, zoom/shift read per-axis tap tables computed once on the host. Float32 data
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

// Division by an output extent as a multiply-high and a shift (exact for numerators below 2^31, the
// outputs that take this path): m = floor(2^32 (2^s - n) / n) + 1 with 2^s >= n.
struct Divisors {
  uint32_t m[kMaxDim];
  uint32_t s[kMaxDim];
  bool small;  // the output has fewer than 2^31 elements
};

Divisors make_divisors(const Geometry& g, int64_t total) {
  Divisors v{};
  v.small = total < (int64_t(1) << 31);
  for (int d = 0; d < g.out_nd && v.small; ++d) {
    const uint64_t n = uint64_t(g.out_shape[d]);
    uint32_t s = 0;
    while ((uint64_t(1) << s) < n) ++s;
    v.s[d] = s;
    v.m[d] = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << s) - n)) / n + 1);
  }
  return v;
}

// The output multi-index and element offset of flat C-order index i (ND > 0: the output has ND axes).
template <int ND>
__device__ __forceinline__ int64_t out_index(const Geometry& g, const Divisors& dv, int64_t i, int64_t* idx) {
  int64_t off = 0;
  NDIMG_UNROLL
  for (int d = (ND > 0 ? ND : g.out_nd) - 1; d >= 0; --d) {
    if (dv.small) {
      const uint32_t u = uint32_t(i), q = (__umulhi(u, dv.m[d]) + u) >> dv.s[d];
      idx[d] = u - q * uint32_t(g.out_shape[d]);
      i = q;
    } else {
      idx[d] = i % g.out_shape[d];
      i /= g.out_shape[d];
    }
    off += idx[d] * g.out_strides[d];
  }
  return off;
}

// Stores a sum: W is float only for a float32 output (with_weights), which then needs no dtype switch.
template <class W>
__device__ __forceinline__ void store_sum(void* out, int64_t o, DType odt, W v) {
  if constexpr (std::is_same_v<W, float>) static_cast<float*>(out)[o] = v;
  else store(out, o, odt, double(v));
}

struct CoordArgs {
  int64_t strides[kMaxDim + 1];  // of the coordinates array, (in.ndim,) + out.shape
};

template <class TI, class W, int O, int ND, class TC>
__global__ void map_kernel(const TI* in, const TC* coords, void* out, DType odt, const __grid_constant__ Geometry g,
                           const __grid_constant__ CoordArgs ca, const __grid_constant__ Divisors dv,
                           int64_t total) {
  const Reader<TI, W> read{in};
  NDIMG_GRID_STRIDE(i, total) {
    int64_t idx[ND > 0 ? ND : kMaxDim];
    const int64_t o = out_index<ND>(g, dv, i, idx);
    int64_t co = 0;
    NDIMG_UNROLL
    for (int d = 0; d < (ND > 0 ? ND : g.out_nd); ++d) co += idx[d] * ca.strides[d + 1];
    double c[ND > 0 ? ND : kMaxDim];
    NDIMG_UNROLL
    for (int h = 0; h < (ND > 0 ? ND : g.in_nd); ++h) c[h] = double(__ldg(coords + co + h * ca.strides[0]));
    store_sum(out, o, odt, sample_point<O, ND, W>(g, c, read));
  }
}

struct AffineArgs {
  double m[kInlineMatrix];
  double offset[kMaxDim];
  const double* dm;  // device copy where the matrix has more than kInlineMatrix entries
};

template <class TI, class W, int O, int ND>
__global__ void affine_kernel(const TI* in, void* out, DType odt, const __grid_constant__ Geometry g,
                              const __grid_constant__ AffineArgs a, const __grid_constant__ Divisors dv,
                              int64_t total) {
  const Reader<TI, W> read{in};
  const double* m = a.dm ? a.dm : a.m;
  NDIMG_GRID_STRIDE(i, total) {
    int64_t idx[ND > 0 ? ND : kMaxDim];
    const int64_t o = out_index<ND>(g, dv, i, idx);
    double c[ND > 0 ? ND : kMaxDim];
    affine_coordinates<ND>(m, a.offset, idx, g.in_nd, g.out_nd, c);
    store_sum(out, o, odt, sample_point<O, ND, W>(g, c, read));
  }
}

// zoom/shift's per-axis taps as tables of columns (tap k of entry e at k * entries + e), so that the
// consecutive threads of a row read consecutive words; `flags` holds bit 7: the point is inside, bits 0-5:
// which taps read cval.
template <class W>
struct TapTables {
  const int64_t* off;
  const W* w;
  const unsigned char* flags;
  int64_t entries;
  int64_t base[kMaxDim];  // first entry of each axis
  int n[kMaxDim];         // taps of each axis
};

template <class TI, class W, int O, int ND>
__global__ void zoom_kernel(const TI* in, void* out, DType odt, const __grid_constant__ Geometry g,
                            const __grid_constant__ TapTables<W> t, const __grid_constant__ Divisors dv,
                            int64_t total) {
  const Reader<TI, W> read{in};
  constexpr int M = ND > 0 ? ND : kMaxDim;
  NDIMG_GRID_STRIDE(i, total) {
    int64_t idx[M];
    const int64_t o = out_index<ND>(g, dv, i, idx);
    int64_t e[M];
    bool ok = true;
    NDIMG_UNROLL
    for (int d = 0; d < (ND > 0 ? ND : g.in_nd); ++d) {
      e[d] = t.base[d] + idx[d];
      ok = ok && (t.flags[e[d]] & 0x80u);
    }
    if (!ok) {
      store_sum(out, o, odt, W(g.cval));
      continue;
    }
    AxisTaps<W> a[M];
    NDIMG_UNROLL
    for (int d = 0; d < (ND > 0 ? ND : g.in_nd); ++d) {
      a[d].n = t.n[d];
      a[d].outside = t.flags[e[d]] & 0x3fu;
      for_taps<O>(t.n[d] - 1, [&](int k) {
        a[d].off[k] = __ldg(t.off + k * t.entries + e[d]);
        a[d].w[k] = __ldg(t.w + k * t.entries + e[d]);
      });
    }
    store_sum(out, o, odt, sample<O, ND>([&](int d) -> const AxisTaps<W>& { return a[d]; }, g.in_nd, W(g.cval), read));
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
  TapTables<W> t{};
  int cols = 1;
  for (int d = 0; d < g.in_nd; ++d) {
    t.base[d] = t.entries;
    t.entries += g.out_shape[d];
    t.n[d] = g.order[d] + 1;
    cols = t.n[d] > cols ? t.n[d] : cols;
  }
  const size_t entries = size_t(t.entries);
  std::vector<int64_t> off(entries * cols, 0);
  std::vector<W> w(entries * cols, W(0));
  std::vector<unsigned char> flags(entries);
  for (int d = 0; d < g.in_nd; ++d)
    for (int64_t k = 0; k < g.out_shape[d]; ++k) {
      const double cc = zoom_shift_coordinate(k, zoom, zoom ? zoom[d] : 0.0, shift, shift ? shift[d] : 0.0, grid_mode);
      const size_t e = size_t(t.base[d] + k);
      AxisTaps<W> a{};
      const bool inside = axis_taps(cc + g.npad[d], g.in_shape[d], g.in_strides[d], g.mode, g.order[d], a);
      flags[e] = static_cast<unsigned char>((inside ? 0x80u : 0u) | (a.outside & 0x3fu));
      for (int j = 0; inside && j < a.n; ++j) {
        off[size_t(j) * entries + e] = a.off[j];
        w[size_t(j) * entries + e] = a.w[j];
      }
    }
  const size_t off_bytes = off.size() * sizeof(int64_t), w_bytes = w.size() * sizeof(W);
  cuda::Scratch buf(off_bytes + w_bytes + flags.size(), s, op);
  auto* base = buf.get<unsigned char>();
  // pageable sources: staged before cudaMemcpyAsync returns
  cuda::check(cudaMemcpyAsync(base, off.data(), off_bytes, cudaMemcpyHostToDevice, s), op);
  cuda::check(cudaMemcpyAsync(base + off_bytes, w.data(), w_bytes, cudaMemcpyHostToDevice, s), op);
  cuda::check(cudaMemcpyAsync(base + off_bytes + w_bytes, flags.data(), flags.size(), cudaMemcpyHostToDevice, s), op);
  t.off = reinterpret_cast<const int64_t*>(base);
  t.w = reinterpret_cast<const W*>(base + off_bytes);
  t.flags = base + off_bytes + w_bytes;
  const Divisors dv = make_divisors(g, total);
  dispatch_compiled<TI, kCompiledOrder>(g, [&]<int O, int ND>() {
    zoom_kernel<TI, W, O, ND><<<cuda::blocks_for(total, kThreads), kThreads, 0, s>>>(in.ptr<TI>(), out.data,
                                                                                   out.dtype, g, t, dv, total);
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
  const Divisors dv = make_divisors(g, total);
  dispatch_dtype(in.dtype, [&]<class TI>() {
    with_weights<TI>(out.dtype, [&]<class W>() {
      dispatch_compiled<TI, kCompiledOrder>(g, [&]<int O, int ND>() {
        auto launch = [&]<class TC>(const TC* c) {
          map_kernel<TI, W, O, ND, TC><<<cuda::blocks_for(total, kThreads), kThreads, 0, s>>>(
              in.ptr<TI>(), c, out.data, out.dtype, g, ca, dv, total);
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
  const Divisors dv = make_divisors(g, total);
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
                                                                                          out.dtype, g, a, dv, total);
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
