// CUDA schedules of the distance transforms. EDT: one thread per column for the axis-0 sweeps, one thread per
// line for the envelope passes (adjacent threads on adjacent lines: coalesced off the last axis), the
// envelopes in global scratch interleaved by line, lines taken in batches so the scratch stays under twice
// the distances' bytes. Chamfer: one thread per line of a wavefront level, a launch per level. Brute force:
// one thread per element.
#include <algorithm>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "distance/distance.hpp"

namespace ndimg::distance {
namespace {

constexpr unsigned kThreads = 128;

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

template <class T, class F>
__global__ void first_pass(const T* in, Shape g, int64_t inner, double s0, bool last, double* dist, F* feat) {
  NDIMG_GRID_STRIDE(c, inner) {
    const int64_t col = flat_offset(c, g.ndim - 1, g.shape + 1, g.strides + 1), rows = g.shape[0];
    double prev = kInf;
    F pf = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t e = i * inner + c;
      if (in[col + i * g.strides[0]] == T(0)) {
        prev = 0;
        pf = F(e);
      } else {
        prev += 1;
      }
      dist[e] = prev;
      if (feat) feat[e] = pf;
    }
    double next = kInf;
    for (int64_t i = rows - 1; i >= 0; --i) {
      const int64_t e = i * inner + c;
      double k = dist[e];
      if (k == 0) {
        next = 0;
      } else {
        next += 1;
        if (next < k) {
          k = next;
          if (feat) feat[e] = F((i + int64_t(next)) * inner + c);
        }
      }
      dist[e] = first_pass_value(k, s0, last);
    }
  }
}

// One line of an envelope pass on the device: the line read and written in place, its envelope in the
// batch's scratch (site k of this thread's line at k * batch + t).
template <class F>
struct DeviceLine {
  double* dist;
  F* feat;
  int64_t base, inner, batch, t;
  int32_t* sites;
  double* vals;
  F* feats;
  __device__ double value(int64_t q) const { return dist[base + q * inner]; }
  __device__ int64_t pos(int64_t k) const { return sites[k * batch + t]; }
  __device__ double val(int64_t k) const { return vals[k * batch + t]; }
  __device__ void push(int64_t k, int64_t q, double fq) {
    sites[k * batch + t] = int32_t(q);
    vals[k * batch + t] = fq;
    if (feat) feats[k * batch + t] = feat[base + q * inner];
  }
  __device__ void write(int64_t p, double d, int64_t k) {
    dist[base + p * inner] = d;
    if (feat) feat[base + p * inner] = feats[k * batch + t];
  }
};

template <class F>
__global__ void line_pass(Lines l, int64_t first, int64_t batch, double spacing, bool last, double* dist, F* feat,
                          int32_t* sites, double* vals, F* feats) {
  NDIMG_GRID_STRIDE(t, batch) {
    const int64_t line = first + t;
    if (line >= l.count) continue;
    DeviceLine<F> c{dist, feat, line_start(line, l.len, l.inner), l.inner, batch, t, sites, vals, feats};
    envelope_line(c, l.len, spacing, last);
  }
}

template <class F>
__global__ void chamfer_init(const void* in, DType dtype, Shape g, int64_t n, int32_t* dist, F* feat) {
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
    dist[i] = fg ? -1 : 0;
    if (feat) feat[i] = F(i);
  }
}

template <class F>
__global__ void chamfer_level(Chamfer g, const int64_t* lines, int64_t count, bool backward, int32_t* dist, F* feat) {
  NDIMG_GRID_STRIDE(i, count) chamfer_line(g, lines[i], backward, dist, feat);
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
  dispatch_dtype(in.dtype, [&]<class T>() {
    first_pass<T, F><<<cuda::blocks_for(inner, kThreads), kThreads, 0, s>>>(
        in.ptr<T>(), g, inner, sampling ? sampling[0] : 1.0, in.ndim == 1, dist, feat);
  });
  cuda::check_launch(op);
  if (in.ndim == 1) return;
  // envelope scratch per line: positions (int32: a line is shorter than 2^31), values, features; lines in
  // batches whose scratch stays under 2x the distances' bytes (1x with features, which take memory too)
  const size_t per_site = sizeof(int32_t) + sizeof(double) + (feat ? sizeof(F) : 0);
  const size_t budget = std::max<size_t>(size_t(n) * 8 * (feat ? 1 : 2), size_t(1) << 24);
  int64_t max_len = 0, max_lines = 0;
  for (int d = 1; d < in.ndim; ++d) max_len = std::max(max_len, in.shape[d]);
  max_lines = n / std::max<int64_t>(1, *std::min_element(in.shape.begin() + 1, in.shape.begin() + in.ndim));
  const int64_t batch = std::clamp<int64_t>(int64_t(budget / (per_site * size_t(max_len))), 1, max_lines);
  cuda::Scratch sites(size_t(batch) * max_len * sizeof(int32_t), s, op), vals(size_t(batch) * max_len * sizeof(double), s, op),
      feats(feat ? size_t(batch) * max_len * sizeof(F) : 0, s, op);
  for (int d = 1; d < in.ndim; ++d) {
    const Lines l = lines_along(in, d);
    const int64_t b = std::min<int64_t>(l.count, int64_t(budget / (per_site * size_t(l.len))));
    const int64_t step = std::clamp<int64_t>(b, 1, batch);
    for (int64_t first = 0; first < l.count; first += step) {
      line_pass<F><<<cuda::blocks_for(step, kThreads), kThreads, 0, s>>>(
          l, first, step, sampling ? sampling[d] : 1.0, d == in.ndim - 1, dist, feat, sites.get<int32_t>(),
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
  chamfer_init<F><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(in.data, in.dtype, shape_of(in), n, dist, feat);
  cuda::check_launch(op);
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
      chamfer_level<F><<<cuda::blocks_for(count, kThreads), kThreads, 0, s>>>(
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
