// CUDA schedules of the distance transforms. EDT: a thread per column and segment for the axis-0 sweeps; a
// thread per line for the envelope passes (adjacent threads on adjacent lines: coalesced off the last axis),
// the envelopes in global scratch interleaved by line, lines taken in batches so the scratch stays under
// 1.5x the distances' bytes; a warp per line where lines are few. Chamfer: a warp per line of a wavefront
// level, a launch per level; without features, the cross and the cube a pass per axis, a thread per line.
// Brute force: a thread per element.
#include <algorithm>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "distance/distance.hpp"

namespace ndimg::distance {
namespace {

constexpr unsigned kThreads = 128;
constexpr int64_t kWarpLines = 1 << 15;  // below this many lines a pass runs a warp per line

struct Shape {
  int ndim;
  int64_t shape[kMaxDim];
  int64_t strides[kMaxDim];
};
struct Spacing {
  double s[kMaxDim];
  bool any;
};

Shape shape_of(const View& v) {
  Shape s;
  s.ndim = v.ndim;
  for (int d = 0; d < v.ndim; ++d) {
    s.shape[d] = v.shape[d];
    s.strides[d] = v.strides[d];
  }
  return s;
}

// The pass along axis 0 by segments of a column (one thread per column and segment, adjacent threads on
// adjacent columns): first each segment's first and last zero rows, then each segment's sweeps.
template <class T>
struct ZeroRows {
  const T* in;
  int64_t col, step;
  __device__ bool operator()(int64_t i) const { return in[col + i * step] == T(0); }
};
template <class T>
__device__ ZeroRows<T> zero_rows(const T* in, const Shape& g, int64_t c) {
  return {in, flat_offset(c, g.ndim - 1, g.shape + 1, g.strides + 1), g.strides[0]};
}
template <class T>
__global__ void segment_zeros_kernel(const T* in, Shape g, int64_t inner, int64_t seg, int64_t nseg, int64_t* first,
                                     int64_t* lastz) {
  NDIMG_GRID_STRIDE(t, inner * nseg) {
    const int64_t c = t % inner, s = t / inner;
    segment_zeros(zero_rows(in, g, c), s * seg, min(g.shape[0], (s + 1) * seg), first[t], lastz[t]);
  }
}
template <class T, class F>
__global__ void sweep_kernel(const T* in, Shape g, int64_t inner, int64_t seg, int64_t nseg, const int64_t* first,
                             const int64_t* lastz, double s0, bool last, double* dist, F* feat) {
  NDIMG_GRID_STRIDE(t, inner * nseg) {
    const int64_t c = t % inner, s = t / inner;
    int64_t up = -1, down = -1;
    for (int64_t h = s - 1; h >= 0 && up < 0; --h) up = lastz[h * inner + c];
    for (int64_t h = s + 1; h < nseg && down < 0; ++h) down = first[h * inner + c];
    sweep_segment(zero_rows(in, g, c), s * seg, min(g.shape[0], (s + 1) * seg), up, down, inner, c, s0, last, dist, feat);
  }
}

// Many lines: a thread per line, `batch` lines from `first` at a time.
template <class F>
__global__ void line_pass(Lines l, int64_t first, int64_t batch, double spacing, bool last, double* dist, F* feat,
                          int32_t* sites, double* vals, F* feats) {
  NDIMG_GRID_STRIDE(t, batch) {
    const int64_t line = first + t;
    if (line >= l.count) continue;
    InPlaceLine<F> c{dist, feat, line_start(line, l.len, l.inner), l.inner, batch, t, sites, vals, feats};
    envelope_line(c, l.len, spacing, last);
  }
}

// Few lines: a warp per line (`warps` of them, each with its run of len slots), in 32 bands: each lane its
// band's envelope, lane 0 their merge, each lane its band's positions.
constexpr int kWarpsPerBlock = kThreads / 32;
template <class F>
__global__ void line_pass_warp(Lines l, int64_t warps, double spacing, bool last, double* dist, F* feat,
                               int32_t* sites, double* vals, F* feats) {
  __shared__ int64_t counts[kWarpsPerBlock][32];
  const int lane = threadIdx.x & 31, wb = threadIdx.x >> 5;
  const int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
  if (w >= warps) return;  // whole warps
  for (int64_t line = w; line < l.count; line += warps) {
    InPlaceLine<F> c{dist, feat, line_start(line, l.len, l.inner), l.inner, 1, w * l.len, sites, vals, feats};
    const int64_t b0 = band_start(lane, 32, l.len), b1 = band_start(lane + 1, 32, l.len);
    counts[wb][lane] = build_envelope(c, b0, b1, b0, spacing);
    __syncwarp();
    int64_t n = 0;
    if (lane == 0) n = merge_envelopes(c, 32, l.len, [&](int b) { return counts[wb][b]; }, spacing);
    n = __shfl_sync(0xffffffffu, n, 0);
    __syncwarp();
    if (n > 0) query_envelope(c, n, b0, b1, spacing, last);
    __syncwarp();  // the scratch and the counts are the next line's
  }
}

template <class F>
__global__ void chamfer_init(const void* in, DType dtype, Shape g, int64_t n, int32_t far, int32_t* dist, F* feat) {
  NDIMG_GRID_STRIDE(i, n) {
    const int64_t o = flat_offset(i, g.ndim, g.shape, g.strides);
    bool fg = false;
    switch (dtype) {
#define NDIMG_FG(D, T) \
  case DType::D: fg = static_cast<const T*>(in)[o] != T(0); break;
      NDIMG_FG(Bool, bool) NDIMG_FG(U8, uint8_t) NDIMG_FG(U16, uint16_t) NDIMG_FG(U32, uint32_t)
      NDIMG_FG(U64, uint64_t) NDIMG_FG(I8, int8_t) NDIMG_FG(I16, int16_t) NDIMG_FG(I32, int32_t)
      NDIMG_FG(I64, int64_t) NDIMG_FG(F32, float) NDIMG_FG(F64, double)
#undef NDIMG_FG
    }
    dist[i] = fg ? far : 0;
    if (feat) feat[i] = F(i);
  }
}

// A warp per line of a wavefront level, the line in 32 chunks of its sweep: each lane its chunk's own
// choices, then the chain's sources through a scan of the chunks' summaries across the lanes.
__device__ ChainKey shfl_up_key(ChainKey k, int by) {
  return {__shfl_up_sync(0xffffffffu, k.key, by), __shfl_up_sync(0xffffffffu, k.s, by)};
}
template <class F>
__global__ void chamfer_level(Chamfer g, const int64_t* lines, int64_t count, bool backward, int32_t* dist, F* feat) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (int64_t(gridDim.x) * blockDim.x) >> 5;
  const int64_t len = g.shape[g.ndim - 1];
  const int64_t s0 = band_start(lane, 32, len), s1 = band_start(lane + 1, 32, len);
  for (int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5; w < count; w += warps) {
    const int64_t line = lines[w];
    ChamferLine l;
    chamfer_setup(g, line, backward, l);
    chamfer_own(g, l, line, backward, s0, s1, dist, feat);
    if (!g.chain) continue;
    __syncwarp();
    ChainKey run = chain_summary(g, line, backward, s0, s1, dist);
    for (int by = 1; by < 32; by *= 2) {  // inclusive scan over the lanes
      const ChainKey before = shfl_up_key(run, by);
      if (lane >= by) run = later_min(before, run);
    }
    ChainKey carry = shfl_up_key(run, 1);
    if (lane == 0) carry = ChainKey{kNoSource, -1};
    chamfer_chain(g, line, backward, s0, s1, carry, dist, feat);
    __syncwarp();
  }
}

// The cross's and the cube's exact taxicab and chessboard distances without features: a pass per axis, a
// thread per line (`batch` lines from `first`), the chessboard's output and stacks in scratch interleaved by
// line; scipy's -1 for no zero element at all on the last pass.
__global__ void separable_pass(Lines l, int64_t first, int64_t batch, int kind, bool last, int32_t* dist, int32_t* out,
                               int64_t* stacks) {
  NDIMG_GRID_STRIDE(t, batch) {
    const int64_t line = first + t;
    if (line >= l.count) continue;
    const Strided<int32_t> g{dist + line_start(line, l.len, l.inner), l.inner};
    if (kind == 1) {
      taxicab_line(g, l.len);
    } else {
      const Strided<int32_t> o{out + t, batch};
      chessboard_line(g, l.len, Strided<int64_t>{stacks + t, batch}, Strided<int64_t>{stacks + batch * l.len + t, batch}, o);
      for (int64_t p = 0; p < l.len; ++p) g[p] = o[p];
    }
    if (last)
      for (int64_t p = 0; p < l.len; ++p) g[p] = g[p] >= kFar ? -1 : g[p];
  }
}

template <class T, class F, class D>
__global__ void brute_force_kernel(const T* in, Shape g, int64_t n, const int64_t* border, int64_t nb, Metric metric,
                                   Spacing sp, D* dist, F* feat) {
  int64_t cstride[kMaxDim];
  cstride[g.ndim - 1] = 1;
  for (int d = g.ndim - 1; d > 0; --d) cstride[d - 1] = cstride[d] * g.shape[d];
  NDIMG_GRID_STRIDE(i, n) {
    int64_t coords[kMaxDim], rem = i, f = i;
    for (int d = g.ndim - 1; d >= 0; --d) {
      coords[d] = rem % g.shape[d];
      rem /= g.shape[d];
    }
    D v = 0;
    if (in[flat_offset(i, g.ndim, g.shape, g.strides)] != T(0))
      nearest_border(coords, g.ndim, border, nb, metric, sp.any ? sp.s : nullptr, cstride, v, f);
    dist[i] = v;
    if (feat) feat[i] = F(f);
  }
}

template <class F>
__global__ void unravel_kernel(const F* feat, Shape g, int64_t n, int32_t* out) {
  NDIMG_GRID_STRIDE(i, n) {
    int64_t rem = feat[i];  // read before the first plane (which may be `feat`) is written
    for (int d = g.ndim - 1; d >= 0; --d) {
      out[d * n + i] = int32_t(rem % g.shape[d]);
      rem /= g.shape[d];
    }
  }
}

}  // namespace

template <class F>
void edt_cuda(const View& in, const double* sampling, double* dist, F* feat, StreamHandle stream) {
  const char* op = "distance_transform_edt";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size(), inner = n / in.shape[0];
  const Shape g = shape_of(in);
  const int64_t seg = segment_rows(in.shape[0]), nseg = (in.shape[0] + seg - 1) / seg;
  {
    cuda::Scratch first(size_t(inner * nseg) * sizeof(int64_t), s, op), lastz(size_t(inner * nseg) * sizeof(int64_t), s, op);
    dispatch_dtype(in.dtype, [&]<class T>() {
      const unsigned blocks = cuda::blocks_for(inner * nseg, kThreads);
      segment_zeros_kernel<T><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), g, inner, seg, nseg, first.get<int64_t>(),
                                                           lastz.get<int64_t>());
      cuda::check_launch(op);
      sweep_kernel<T, F><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), g, inner, seg, nseg, first.get<int64_t>(),
                                                     lastz.get<int64_t>(), sampling ? sampling[0] : 1.0,
                                                     in.ndim == 1, dist, feat);
      cuda::check_launch(op);
    });
  }
  if (in.ndim == 1) return;
  // envelope scratch per line: positions (int32: a line is shorter than 2^31), values, features; lines in
  // batches whose scratch stays under 1.5x the distances' bytes (1x with features, which take memory too):
  // the peak stays under 3x the input's and output's bytes (a whole 4K or 256^3 pass fits in one batch)
  const size_t per_site = sizeof(int32_t) + sizeof(double) + (feat ? sizeof(F) : 0);
  const size_t budget = std::max<size_t>(size_t(n) * (feat ? 8 : 12), size_t(1) << 24);
  int64_t max_len = 0, max_lines = 0;
  for (int d = 1; d < in.ndim; ++d) max_len = std::max(max_len, in.shape[d]);
  max_lines = n / std::max<int64_t>(1, *std::min_element(in.shape.begin() + 1, in.shape.begin() + in.ndim));
  const int64_t batch = std::clamp<int64_t>(int64_t(budget / (per_site * size_t(max_len))), 1, max_lines);
  cuda::Scratch sites(size_t(batch) * max_len * sizeof(int32_t), s, op), vals(size_t(batch) * max_len * sizeof(double), s, op),
      feats(feat ? size_t(batch) * max_len * sizeof(F) : 0, s, op);
  for (int d = 1; d < in.ndim; ++d) {
    const Lines l = lines_along(in, d);
    const double sd = sampling ? sampling[d] : 1.0;
    const int64_t b = std::min<int64_t>(l.count, int64_t(budget / (per_site * size_t(l.len))));
    const int64_t step = std::clamp<int64_t>(b, 1, batch);
    if (l.count < kWarpLines && l.len >= 64) {  // too few lines for a thread each: a warp each
      const int64_t warps = std::min(l.count, batch * max_len / l.len);
      line_pass_warp<F><<<cuda::blocks_for(warps * 32, kThreads), kThreads, 0, s>>>(
          l, warps, sd, d == in.ndim - 1, dist, feat, sites.get<int32_t>(), vals.get<double>(), feats.get<F>());
      cuda::check_launch(op);
      continue;
    }
    for (int64_t first = 0; first < l.count; first += step) {
      line_pass<F><<<cuda::blocks_for(step, kThreads), kThreads, 0, s>>>(
          l, first, step, sd, d == in.ndim - 1, dist, feat, sites.get<int32_t>(),
          vals.get<double>(), feats.get<F>());
      cuda::check_launch(op);
    }
  }
}

template <class F>
void chamfer_cuda(const View& in, const Chamfer& g, int32_t* dist, F* feat, StreamHandle stream) {
  const char* op = "distance_transform_cdt";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const bool separable = g.separable && !feat;
  chamfer_init<F><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(in.data, in.dtype, shape_of(in), n,
                                                                      separable ? kFar : -1, dist, feat);
  cuda::check_launch(op);
  if (separable) {
    // chessboard scratch: each line's output (int32) and two stacks (int64), batches of lines under 2x dist
    int64_t max_len = 0;
    for (int d = 0; d < in.ndim; ++d) max_len = std::max(max_len, in.shape[d]);
    const int64_t budget = std::max<int64_t>(n * 8, int64_t(1) << 24), per_line = max_len * 20;
    const int64_t batch = std::clamp<int64_t>(budget / per_line, 1, n / max_len);
    cuda::Scratch out(g.separable == 2 ? size_t(batch * max_len) * 4 : 0, s, op),
        stacks(g.separable == 2 ? size_t(batch * max_len) * 16 : 0, s, op);
    for (int d = 0; d < in.ndim; ++d) {
      const Lines l = lines_along(in, d);
      const int kind = d == 0 ? 1 : g.separable;  // along the first axis (values 0 or kFar) both are the taxicab's
      const int64_t step = kind == 1 ? l.count : std::min(l.count, batch * max_len / l.len);
      for (int64_t first = 0; first < l.count; first += step) {
        separable_pass<<<cuda::blocks_for(step, kThreads), kThreads, 0, s>>>(
            l, first, step, kind, d == in.ndim - 1, dist, out.get<int32_t>(), stacks.get<int64_t>());
        cuda::check_launch(op);
      }
    }
    return;
  }
  // the lines sorted by wavefront level (see chamfer_cpu), and the offsets, copied to the device
  const int m = in.ndim - 1;
  int64_t levels = 1, lines = 1;
  for (int d = 0; d < m; ++d) {
    levels += (int64_t(1) << (m - 1 - d)) * (in.shape[d] - 1);
    lines *= in.shape[d];
  }
  std::vector<int64_t> start(levels + 1, 0), order(lines);
  auto level_of = [&](int64_t i) {
    int64_t lv = 0;
    for (int d = m - 1; d >= 0; --d) {
      lv += (int64_t(1) << (m - 1 - d)) * (i % in.shape[d]);
      i /= in.shape[d];
    }
    return lv;
  };
  for (int64_t i = 0; i < lines; ++i) ++start[level_of(i) + 1];
  for (int64_t k = 0; k < levels; ++k) start[k + 1] += start[k];
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < lines; ++i) order[fill[level_of(i)]++] = i;
  const size_t rel_bytes = size_t(g.noff) * g.ndim, delta_bytes = size_t(g.noff) * sizeof(int64_t);
  cuda::Scratch lines_d(order.size() * sizeof(int64_t), s, op), rel(rel_bytes, s, op), delta(delta_bytes, s, op);
  cuda::check(cudaMemcpyAsync(lines_d.get<int64_t>(), order.data(), order.size() * sizeof(int64_t),
                              cudaMemcpyHostToDevice, s), op);
  if (g.noff) {
    cuda::check(cudaMemcpyAsync(rel.get<int8_t>(), g.rel, rel_bytes, cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaMemcpyAsync(delta.get<int64_t>(), g.delta, delta_bytes, cudaMemcpyHostToDevice, s), op);
  }
  Chamfer dg = g;
  dg.rel = rel.get<int8_t>();
  dg.delta = delta.get<int64_t>();
  for (bool backward : {false, true}) {
    for (int64_t k = 0; k < levels; ++k) {
      const int64_t lv = backward ? levels - 1 - k : k, count = start[lv + 1] - start[lv];
      chamfer_level<F><<<cuda::blocks_for(count * 32, kThreads), kThreads, 0, s>>>(
          dg, lines_d.get<int64_t>() + start[lv], count, backward, dist, feat);
      cuda::check_launch(op);
    }
  }
  // the host vectors must outlive the copies queued from them
  cuda::check(cudaStreamSynchronize(s), op);
}

template <class F>
void brute_force_cuda(const View& in, const int64_t* border, int64_t nb, Metric metric, const double* sampling,
                      const View& dist, F* feat, StreamHandle stream) {
  const char* op = "distance_transform_bf";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  Spacing sp{};
  sp.any = sampling != nullptr;
  for (int d = 0; sampling && d < in.ndim; ++d) sp.s[d] = sampling[d];
  dispatch_dtype(in.dtype, [&]<class T>() {
    if (metric == Metric::euclidean)
      brute_force_kernel<T, F, double><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(
          in.ptr<T>(), shape_of(in), n, border, nb, metric, sp, dist.ptr<double>(), feat);
    else
      brute_force_kernel<T, F, uint32_t><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(
          in.ptr<T>(), shape_of(in), n, border, nb, metric, sp, dist.ptr<uint32_t>(), feat);
  });
  cuda::check_launch(op);
}

void unravel_cuda(const View& feat, const View& indices, StreamHandle stream) {
  const char* op = "unravel";
  cuda::DeviceGuard guard(feat.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = feat.size();
  if (feat.dtype == DType::I32)
    unravel_kernel<int32_t><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(feat.ptr<int32_t>(), shape_of(feat), n,
                                                                               indices.ptr<int32_t>());
  else
    unravel_kernel<int64_t><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(feat.ptr<int64_t>(), shape_of(feat), n,
                                                                               indices.ptr<int32_t>());
  cuda::check_launch(op);
}

template void edt_cuda<int32_t>(const View&, const double*, double*, int32_t*, StreamHandle);
template void edt_cuda<int64_t>(const View&, const double*, double*, int64_t*, StreamHandle);
template void chamfer_cuda<int32_t>(const View&, const Chamfer&, int32_t*, int32_t*, StreamHandle);
template void chamfer_cuda<int64_t>(const View&, const Chamfer&, int32_t*, int64_t*, StreamHandle);
template void brute_force_cuda<int32_t>(const View&, const int64_t*, int64_t, Metric, const double*, const View&,
                                        int32_t*, StreamHandle);
template void brute_force_cuda<int64_t>(const View&, const int64_t*, int64_t, Metric, const double*, const View&,
                                        int64_t*, StreamHandle);

}  // namespace ndimg::distance
