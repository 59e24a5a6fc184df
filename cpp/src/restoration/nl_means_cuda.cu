// Non-local means' CUDA schedules (the per-pixel math: nl_means.hpp).
// Fast form: the shifts in batches. For each shift of a batch, its box sums of squared differences by
// running sums along one axis at a time, one thread per line, over the same regions and in the same axis
// order as the CPU engine (so a NaN or inf spreads through the sums as there, and as in scikit-image's
// integral images); then one thread per output pixel takes each shift's pairs the pixel belongs to, as the
// first pixel (box at the pixel) and as the second (box at the pixel less the shift), in registers.
// No atomics: the same bits on every run.
// Exact form: one thread per output pixel, running the CPU engine's per-pixel loop (nl_math::exact_pixel).
#include <algorithm>

#include "core/cuda.cuh"
#include "restoration/nl_means.hpp"

namespace ndimg::restoration {
namespace {

using nl_math::exact_pixel;
using nl_math::ExactGeometry;
using nl_math::pair_term;
using nl_math::pair_weight;
using nl_math::shift_of;

constexpr unsigned kThreads = 256;
constexpr int64_t kBatchBytes = int64_t(512) << 20;   // the box sums of one batch of shifts (two buffers)
constexpr int kRegChannels = 4;                       // channels summed in registers at a time

struct FastGeometry {
  int nd = 0;
  int64_t nch = 0, o = 0, d = 0, pad = 0, np = 0;
  int64_t P[4] = {};    // the padded image's spatial shape
  int64_t st[4] = {};   // its pixel strides
  int64_t n[4] = {};    // the output's spatial shape
  double nvar2 = 0, h2s = 0;
};

// One running-sum pass along `axis` for the batch's shifts s0 + b, b < nb (one thread per shift and line):
// the boxes (x - o, x + o] along the axis of `src` (first pass: of the shift's squared differences of the
// image), x in the shift's region [lo, hi) on the axis. The line's other positions: on the axes already
// summed (those after `axis`) in [lo, hi), on the others in the positions their boxes need [lo - o + 1, hi + o).
__global__ void box_pass(const double* p, const double* src, double* dst, FastGeometry g, int axis, int64_t s0,
                         int64_t nb, int64_t lines, bool first) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= nb * lines) return;
  const int64_t b = i / lines;
  int64_t line = i % lines;
  int64_t t[4];
  shift_of(g.nd, g.d, s0 + b, t);
  int64_t base = 0, toff = 0, lo = 0, hi = 0;
  for (int a = g.nd - 1; a >= 0; --a) {
    toff += t[a] * g.st[a];
    const int64_t alo = g.o > g.o - t[a] ? g.o : g.o - t[a];
    const int64_t ahi = g.P[a] - g.o < g.P[a] - g.o - t[a] ? g.P[a] - g.o : g.P[a] - g.o - t[a];
    if (a == axis) {
      lo = alo, hi = ahi;
      continue;
    }
    const int64_t x = line % g.P[a];
    line /= g.P[a];
    if (a > axis ? (x < alo || x >= ahi) : (x < alo - g.o + 1 || x >= ahi + g.o)) return;
    base += x * g.st[a];
  }
  const int64_t sa = g.st[axis], o = g.o;
  const double* s = src + b * g.np;
  double* out = dst + b * g.np;
  auto v = [&](int64_t k) {
    const int64_t x = base + k * sa;
    return first ? pair_term(p, x, x + toff, g.nch, g.nvar2) : s[x];
  };
  double sum = 0;
  for (int64_t k = lo - o + 1; k <= lo + o; ++k) sum += v(k);
  out[base + lo * sa] = sum;
  for (int64_t k = lo + 1; k < hi; ++k) {
    sum += v(k + o) - v(k - o);
    out[base + k * sa] = sum;
  }
}

// Each output pixel z takes the batch's pairs (z, z + t) (the box at z) and (z - t, z) (the box at z - t),
// adding their weights to wsum and their weighted partners to out, kRegChannels channels at a time.
__global__ void gather(const double* p, const double* box, FastGeometry g, int64_t s0, int64_t nb, int64_t npix,
                       double* wsum, double* out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= npix) return;
  int64_t z = 0;
  for (int64_t a = g.nd - 1, r = i; a >= 0; r /= g.n[a], --a) z += (r % g.n[a] + g.pad) * g.st[a];
  const int64_t nch = g.nch;
  for (int64_t c0 = 0; c0 < nch; c0 += kRegChannels) {
    const int64_t nc = nch - c0 < kRegChannels ? nch - c0 : kRegChannels;
    double acc[kRegChannels];
#pragma unroll
    for (int c = 0; c < kRegChannels; ++c) acc[c] = c < nc ? out[i * nch + c0 + c] : 0.0;
    double ws = 0;
    for (int64_t b = 0; b < nb; ++b) {
      int64_t t[4];
      const double alpha = shift_of(g.nd, g.d, s0 + b, t);
      int64_t toff = 0;
      for (int a = 0; a < g.nd; ++a) toff += t[a] * g.st[a];
      const double* bx = box + b * g.np;
      double w;
      if (pair_weight(g.o > 0 ? bx[z] : 0.0, g.h2s, alpha, w)) {
        ws += w;
        const double* q = p + (z + toff) * nch + c0;
#pragma unroll
        for (int c = 0; c < kRegChannels; ++c)
          if (c < nc) acc[c] += w * q[c];
      }
      if (pair_weight(g.o > 0 ? bx[z - toff] : 0.0, g.h2s, alpha, w)) {
        ws += w;
        const double* q = p + (z - toff) * nch + c0;
#pragma unroll
        for (int c = 0; c < kRegChannels; ++c)
          if (c < nc) acc[c] += w * q[c];
      }
    }
#pragma unroll
    for (int c = 0; c < kRegChannels; ++c)
      if (c < nc) out[i * nch + c0 + c] = acc[c];
    if (c0 == 0) wsum[i] += ws;
  }
}

__global__ void divide(double* out, const double* wsum, int64_t nch, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] /= wsum[i / nch];
}

template <class T>
__global__ void exact_kernel(const T* p, const T* w, ExactGeometry g, T var2, int64_t npix, T* out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= npix) return;
  T reg[kRegChannels];
  T* acc = g.nch <= kRegChannels ? reg : out + i * g.nch;   // many channels: summed in place
  for (int64_t c = 0; c < g.nch; ++c) acc[c] = T(0);
  const T ws = exact_pixel(p, w, g, var2, i, acc);
  for (int64_t c = 0; c < g.nch; ++c) out[i * g.nch + c] = acc[c] / ws;
}

}  // namespace

void nl_means_fast_cuda(const View& padded, int64_t s, int64_t d, double h, double var, const View& outv,
                        StreamHandle stream) {
  const char* op = "nl_means_fast";
  auto st = static_cast<cudaStream_t>(stream);
  FastGeometry g;
  g.nd = padded.ndim - 1;
  g.nch = padded.shape[g.nd];
  g.o = s / 2;
  g.d = d;
  g.pad = g.o + d + 1;
  g.np = 1;
  for (int a = g.nd - 1; a >= 0; --a) {
    g.P[a] = padded.shape[a];
    g.n[a] = outv.shape[a];
    g.st[a] = g.np;
    g.np *= g.P[a];
  }
  g.nvar2 = double(g.nch) * (2 * var);
  g.h2s = double(g.nch) * h * h;
  for (int a = 0; a < g.nd; ++a) g.h2s *= double(s);
  int64_t nshift = std::max<int64_t>(d + 1, 0);
  for (int a = 0; a < g.nd - 1; ++a) nshift *= std::max<int64_t>(2 * d + 1, 0);
  const int64_t npix = outv.size() / g.nch;
  double* out = outv.ptr<double>();
  const double* p = padded.ptr<const double>();
  cuda::Scratch wsum(size_t(npix) * sizeof(double), st, op);
  cuda::check(cudaMemsetAsync(wsum.get<double>(), 0, size_t(npix) * sizeof(double), st), op);
  cuda::check(cudaMemsetAsync(out, 0, size_t(outv.size()) * sizeof(double), st), op);
  // a one-pixel patch has empty boxes (x, x]: no sums to keep
  const int64_t per_shift = g.o > 0 ? 2 * g.np * int64_t(sizeof(double)) : 0;
  const int64_t batch = std::max<int64_t>(1, std::min(nshift, per_shift ? kBatchBytes / per_shift : nshift));
  cuda::Scratch bufs(size_t(nshift > 0 ? per_shift * batch : 0), st, op);
  double* a_buf = bufs.get<double>();
  double* b_buf = a_buf ? a_buf + batch * g.np : nullptr;
  for (int64_t s0 = 0; s0 < nshift; s0 += batch) {
    const int64_t nb = std::min(batch, nshift - s0);
    const double* box = nullptr;
    if (g.o > 0) {
      double* src = a_buf;
      double* dst = b_buf;
      for (int axis = g.nd - 1; axis >= 0; --axis) {   // the last axis first, as the CPU engine sums
        const int64_t lines = g.np / g.P[axis];
        const bool first = axis == g.nd - 1;
        box_pass<<<cuda::blocks_for(nb * lines, kThreads), kThreads, 0, st>>>(p, first ? nullptr : src,
                                                                               first ? src : dst, g, axis, s0, nb,
                                                                               lines, first);
        cuda::check_launch(op);
        if (!first) std::swap(src, dst);
      }
      box = src;
    }
    gather<<<cuda::blocks_for(npix, kThreads), kThreads, 0, st>>>(p, box, g, s0, nb, npix, wsum.get<double>(), out);
    cuda::check_launch(op);
  }
  divide<<<cuda::blocks_for(outv.size(), kThreads), kThreads, 0, st>>>(out, wsum.get<double>(), g.nch, outv.size());
  cuda::check_launch(op);
}

void nl_means_cuda(const View& padded, const View& w, int64_t distance, double var, const View& out,
                   StreamHandle stream) {
  const char* op = "nl_means";
  auto st = static_cast<cudaStream_t>(stream);
  const ExactGeometry g = exact_geometry(padded, w, distance);
  const int64_t npix = out.size() / g.nch;
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    exact_kernel<T><<<cuda::blocks_for(npix, kThreads), kThreads, 0, st>>>(padded.ptr<const T>(), w.ptr<const T>(),
                                                                           g, T(2 * var), npix, out.ptr<T>());
  };
  if (padded.dtype == DType::F32)
    launch(float(0));
  else
    launch(double(0));
  cuda::check_launch(op);
}

}  // namespace ndimg::restoration
