#include <algorithm>
#include <cuda_pipeline.h>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "ndimage/correlate1d.hpp"
#include "ndimage/footprint.cuh"

namespace ndimg::ndimage {
namespace {

// A pass as the kernels see it, passed by value as a __grid_constant__ kernel parameter: weights of up to
// kInlineTaps taps travel inside it (no device buffer and copy per call), longer ones in device memory.
constexpr int kInlineTaps = 64;

template <class C>
struct PassArgs {
  C inline_w[kInlineTaps];
  const C* w;  // device weights when taps > kInlineTaps, else null
  int taps, sym;
  int64_t left;
  Mode mode;
  C cval;
  bool mean;
  __device__ const C* weights() const { return w ? w : inline_w; }
};

template <class TI, class C>
__device__ __forceinline__ C load_extended(const TI* line, int64_t i, int64_t n, int64_t stride, const PassArgs<C>& p) {
  if (i < 0 || i >= n) {
    i = extend_index(i, n, p.mode);
    if (i < 0) return p.cval;
  }
  return C(line[i * stride]);
}

// ext(j, 0) read straight from global memory: input index i0 + j of a strided line.
template <class TI, class C>
struct GlobalExt {
  const TI* line;
  int64_t i0, n, stride;
  const PassArgs<C>& p;
  __device__ C operator()(int j, int) const { return load_extended(line, i0 + j, n, stride, p); }
};

// Generic schedule: one thread per output element of any strided layout (the fallback for odd layouts,
// mixed output dtypes and very long filters).
template <class TI, class TO, class C>
__global__ void pass_generic(const TI* in, TO* out, Layout l, int axis, const __grid_constant__ PassArgs<C> p,
                             int64_t total) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = idx, oi = 0, oo = 0, pos = 0;
    for (int d = l.ndim - 1; d >= 0; --d) {
      int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      if (d == axis) pos = c;
      else oi += c * l.in_strides[d];
      oo += c * l.out_strides[d];
    }
    C acc;
    correlate_taps(&acc, 1, p.weights(), p.taps, p.sym,
                   GlobalExt<TI, C>{in + oi, pos - p.left, l.shape[axis], l.in_strides[axis], p});
    out[oo] = cast_to<TO>(finish_pass(acc, p.taps, p.mean));
  }
}

template <class C>
__device__ __forceinline__ C* load_weights(C* w, const PassArgs<C>& p, int tid, int nthreads) {
  const C* src = p.weights();
  for (int j = tid; j < p.taps; j += nthreads) w[j] = src[j];
  return w;  // visible after the next __syncthreads
}

// Loads staged per thread before their stores (cuda::stage).
constexpr int kStageBatch = 8;

// P outputs that follow each other along the axis, from staged inputs `stride` apart, in scipy's order of
// summation (the same operations as correlate_taps per output) with the windows of inputs held in
// registers: each staged value and weight is read from shared memory once per P outputs, not once per
// output. Symmetric weights pair inputs from both ends, so two windows slide in opposite directions.
template <int P, class C>
__device__ __forceinline__ void correlate_block(const C* buf, int stride, const C* w, int taps, int sym,
                                                C (&acc)[P]) {
  const int c = taps / 2;
  if (sym != 0) {
    C a[P], b[P];  // a[q] = input q + j, b[q] = input q + taps - 1 - j
#pragma unroll
    for (int q = 0; q < P; ++q) {
      acc[q] = buf[(c + q) * stride] * w[c];
      a[q] = buf[q * stride];
      b[q] = buf[(taps - 1 + q) * stride];
    }
    // unrolled by P: the windows then rotate through register names instead of moving, and the shared
    // loads of later taps issue early
#pragma unroll P
    for (int j = 0; j < c; ++j) {
      const C wj = w[j];
      if (sym > 0) {
#pragma unroll
        for (int q = 0; q < P; ++q) acc[q] = add_mul(acc[q], a[q] + b[q], wj);
      } else {
#pragma unroll
        for (int q = 0; q < P; ++q) acc[q] = add_mul(acc[q], a[q] - b[q], wj);
      }
#pragma unroll
      for (int q = 0; q + 1 < P; ++q) a[q] = a[q + 1];
      a[P - 1] = buf[(j + P) * stride];
#pragma unroll
      for (int q = P - 1; q > 0; --q) b[q] = b[q - 1];
      b[0] = buf[(taps - 2 - j) * stride];
    }
  } else {
    C a[P];  // a[q] = input q + j
#pragma unroll
    for (int q = 0; q < P; ++q) {
      acc[q] = buf[(taps - 1 + q) * stride] * w[taps - 1];
      a[q] = buf[q * stride];
    }
#pragma unroll P
    for (int j = 0; j + 1 < taps; ++j) {
      const C wj = w[j];
#pragma unroll
      for (int q = 0; q < P; ++q) acc[q] = add_mul(acc[q], a[q], wj);
#pragma unroll
      for (int q = 0; q + 1 < P; ++q) a[q] = a[q + 1];
      a[P - 1] = buf[(j + P) * stride];
    }
  }
}

// Rows schedule: the pass runs along the contiguous last axis of C-contiguous data seen as [lines, n].
// A block takes `tile` outputs of one line and stages tile + taps - 1 extended inputs in shared memory
// (coalesced reads, the boundary handled only at the line ends). Thread t computes outputs
// [t P, t P + P) (P odd, so that the strided reads avoid bank conflicts), stages them back in shared
// memory, and the block writes them out coalesced.
constexpr int kRowP = 5;

template <class TI, class TO, class C>
__global__ void __launch_bounds__(256) pass_rows(const TI* in, TO* out, int64_t lines, int64_t n, int tile,
                                                 const __grid_constant__ PassArgs<C> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  C* w = load_weights(reinterpret_cast<C*>(smem), p, threadIdx.x, blockDim.x);
  C* buf = w + p.taps;
  const int64_t tiles = (n + tile - 1) / tile, total = lines * tiles;
  const int len = tile + p.taps - 1;
  const int k0 = threadIdx.x * kRowP;  // tile is a multiple of kRowP, at most blockDim.x * kRowP
  for (int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    const int64_t line = t / tiles, i0 = (t % tiles) * tile;
    const TI* src = in + line * n;
    TO* dst = out + line * n;
    __syncthreads();  // the previous tile is written out (and the weights are staged)
    cuda::stage<kStageBatch>(buf, len, 1, threadIdx.x, blockDim.x,
                             [&](int k) { return load_extended(src, i0 - p.left + k, n, 1, p); });
    __syncthreads();
    C acc[kRowP];
    if (k0 < tile) correlate_block(buf + k0, 1, w, p.taps, p.sym, acc);
    __syncthreads();
    if (k0 < tile)
      for (int q = 0; q < kRowP; ++q) buf[k0 + q] = finish_pass(acc[q], p.taps, p.mean);
    __syncthreads();
    for (int k = threadIdx.x; k < tile && i0 + k < n; k += blockDim.x) dst[i0 + k] = cast_to<TO>(buf[k]);
  }
}

// Columns schedule: the pass runs along an outer axis of C-contiguous data seen as [outer, n, inner].
// A block of kColX x kColY threads takes kColX neighbouring columns (coalesced along the contiguous
// inner axis) and kColTile outputs along the axis, staged as (kColTile + taps - 1) rows of kColX values;
// thread (x, y) computes rows [y P, y P + P) of column x.
constexpr int kColX = 32, kColY = 8, kColP = 8, kColTile = kColY * kColP;

template <class TI, class TO, class C>
__global__ void __launch_bounds__(kColX* kColY) pass_cols(const TI* in, TO* out, int64_t outer, int64_t n,
                                                           int64_t inner, const __grid_constant__ PassArgs<C> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int tx = threadIdx.x, ty = threadIdx.y, r0 = ty * kColP;
  C* w = load_weights(reinterpret_cast<C*>(smem), p, ty * kColX + tx, kColX * kColY);
  C* buf = w + p.taps;
  const int64_t xt = (inner + kColX - 1) / kColX, yt = (n + kColTile - 1) / kColTile, total = outer * xt * yt;
  const int len = kColTile + p.taps - 1;
  for (int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    const int64_t x = (t % xt) * kColX + tx, rest = t / xt;
    const int64_t y0 = (rest % yt) * kColTile, base = (rest / yt) * n * inner;
    const bool live = x < inner;
    __syncthreads();
    // element k = r * kColX + tx of the staged rows is thread (tx, ty)'s for r = ty, ty + kColY, ...
    cuda::stage<kStageBatch>(buf, len * kColX, 1, ty * kColX + tx, kColX * kColY, [&](int k) {
      return live ? load_extended(in + base + x, y0 - p.left + k / kColX, n, inner, p) : C(0);
    });
    __syncthreads();
    if (!live || y0 + r0 >= n) continue;
    C acc[kColP];
    correlate_block(buf + r0 * kColX + tx, kColX, w, p.taps, p.sym, acc);
    for (int q = 0; q < kColP && y0 + r0 + q < n; ++q)
      out[base + (y0 + r0 + q) * inner + x] = cast_to<TO>(finish_pass(acc[q], p.taps, p.mean));
  }
}

// Fast float32 schedules, for odd filters of up to kFastMaxTaps taps (the Gaussians of sigma <= 4 at the
// default truncate, odd uniform sizes, the stencils): the tap count is a template parameter, so the
// weights stay in the kernel parameters and each tap is one FFMA with a constant-bank operand. A thread
// computes P neighbouring outputs and scatters each input it loads into the accumulators of the outputs
// it touches (in registers), so an input is loaded once per P outputs. Float results differ from scipy's
// double arithmetic by float rounding only, whatever the order of summation.
constexpr int kFastMaxTaps = 33, kFastRowP = 7, kFastWarps = 8;

template <int T, int P>
__device__ __forceinline__ void scatter_tap(float (&acc)[P], float v, int k, const PassArgs<float>& p) {
#pragma unroll
  for (int q = 0; q < P; ++q)
    if (k - q >= 0 && k - q < T) acc[q] = fmaf(p.inline_w[k - q], v, acc[q]);
}

// Boundary extension for the fast schedules, whose filters reach less than the line's length to either
// side (has_fast_schedule): an index i within that distance outside [0, n) reads lo + lo_sign i (below)
// or hi + hi_sign i (above), the closed forms of every mode, set up per launch on the host. A mode switch
// or extend_index's divisions would cost registers, and so resident warps, across the whole kernel.
// Indices further out (loaded but used by no output) and constant mode's read cval.
struct Near {
  int64_t lo, hi;
  int lo_sign, hi_sign;
};

Near near_extension(Mode mode, int64_t n) {
  switch (mode) {
    case Mode::Reflect: return {-1, 2 * n - 1, -1, -1};
    case Mode::Mirror: return {0, 2 * n - 2, -1, -1};
    case Mode::Nearest: return {0, n - 1, 0, 0};
    case Mode::Wrap: return {n, -n, 1, 1};
    case Mode::Constant: break;
  }
  return {-1, -1, 0, 0};
}

// The index that i reads (outside [0, n) when it reads cval).
__device__ __forceinline__ int64_t extend_near(int64_t i, int64_t n, const Near& e) {
  if (i < 0) return e.lo + e.lo_sign * i;
  if (i >= n) return e.hi + e.hi_sign * i;
  return i;
}

__device__ __forceinline__ float load_near(const float* line, int64_t i, int64_t n, int64_t stride, const Near& e,
                                           float cval) {
  i = extend_near(i, n, e);
  return i >= 0 && i < n ? __ldg(line + i * stride) : cval;
}

// A mean's sum over the taps divided by their count d (r = 1 / d), or the sum itself (d = r = 1): the
// quotient from the reciprocal corrected once by its exact remainder (an FMA), which rounds as the
// division does for sums of finite, normal values, without the division's slow path in every kernel. An
// infinite or NaN sum keeps its estimate (the remainder inf - inf would turn it into NaN).
template <int P>
__device__ __forceinline__ void finish_all(float (&acc)[P], float d, float r) {
#pragma unroll
  for (int q = 0; q < P; ++q) {
    const float est = acc[q] * r;
    acc[q] = isfinite(est) ? fmaf(fmaf(-est, d, acc[q]), r, est) : est;
  }
}

// A warp's pass over a row staged in shared memory: lane l computes outputs [l P, l P + P) from row[l P ...],
// they replace the row's first 32 P values, and the first m of them go to dst coalesced.
template <int T, int P, bool Mean = true>
__device__ __forceinline__ void warp_row_pass(float* row, float* dst, int m, int lane, float count, float scale,
                                              const PassArgs<float>& p) {
  float acc[P] = {};
#pragma unroll
  for (int k = 0; k < P + T - 1; ++k) scatter_tap<T, P>(acc, row[lane * P + k], k, p);
  if constexpr (Mean) finish_all(acc, count, scale);
  __syncwarp();
#pragma unroll
  for (int q = 0; q < P; ++q) row[lane * P + q] = acc[q];
  __syncwarp();
#pragma unroll
  for (int u = 0; u < P; ++u)
    if (u * 32 + lane < m) dst[u * 32 + lane] = row[u * 32 + lane];
}

// Along the contiguous last axis of [lines, n]: a warp per segment of 32 P outputs of one line. It stages
// the segment's inputs in its own shared memory (coalesced reads), each lane computes P neighbouring
// outputs (P odd: the lanes' strided reads avoid bank conflicts), and the results leave through shared
// memory again, coalesced. Warps never wait for each other. One segment per warp and no grid-stride loops
// (the launcher covers larger grids in chunks): the kernel then fits in few registers, and more warps are
// resident to keep loads in flight.
template <int T>
__global__ void __launch_bounds__(32 * kFastWarps) fast_rows(const float* __restrict__ in, float* __restrict__ out,
                                                             int64_t lines, int64_t n, int64_t seg0, float count, float scale, Near e,
                                                             const __grid_constant__ PassArgs<float> p) {
  cuda::wait_prior_grid();  // launch_overlapped: nothing is touched before the previous kernel is done
  constexpr int P = kFastRowP, kSeg = 32 * P, kLoads = (kSeg + T - 1 + 31) / 32;
  __shared__ float staged[kFastWarps][kLoads * 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float* s = staged[warp];
  // lines over x, segments over y: no 64-bit divisions in the index arithmetic
  const int64_t line = int64_t(blockIdx.x) * kFastWarps + warp, x0 = (seg0 + blockIdx.y) * kSeg;
  if (line >= lines || x0 >= n) return;
  const int64_t first = x0 - p.left;
  const float* src = in + line * n;
  float v[kLoads];
  if (first >= 0 && first + kLoads * 32 <= n) {
#pragma unroll
    for (int u = 0; u < kLoads; ++u) v[u] = __ldg(src + first + u * 32 + lane);
  } else {
#pragma unroll
    for (int u = 0; u < kLoads; ++u) v[u] = load_near(src, first + u * 32 + lane, n, 1, e, p.cval);
  }
#pragma unroll
  for (int u = 0; u < kLoads; ++u) s[u * 32 + lane] = v[u];
  __syncwarp();
  warp_row_pass<T, P>(s, out + line * n + x0, int(std::min<int64_t>(kSeg, n - x0)), lane, count, scale, p);
}

// Along an outer axis of [outer, n, inner]: a thread per column (neighbouring threads on neighbouring
// columns: coalesced) computes P outputs along the axis straight from global memory; blocks of 32 x 8
// threads. Shorter filters do better with fewer outputs per thread (more threads in flight).
template <int T>
constexpr int fast_col_p() { return T <= 9 ? 4 : 8; }

// Eight resident blocks (full occupancy, 32 registers) keep the most loads in flight; the few bytes of
// spill that costs some tap counts measured faster than 40 registers at six blocks.
template <int T>
__global__ void __launch_bounds__(32 * kFastWarps, 8) fast_cols(const float* __restrict__ in, float* __restrict__ out,
                                                             int64_t n, int64_t inner, int64_t tile0, int64_t plane0,
                                                             float count, float scale, Near e, const __grid_constant__ PassArgs<float> p) {
  cuda::wait_prior_grid();  // launch_overlapped: nothing is touched before the previous kernel is done
  constexpr int P = fast_col_p<T>(), kRows = kFastWarps * P;
  // column tiles over x, row tiles over y, planes over z (offset by the launcher's chunk): no 64-bit divisions
  const int64_t x = int64_t(blockIdx.x) * 32 + threadIdx.x % 32;
  const int64_t y0 = (tile0 + blockIdx.y) * kRows + threadIdx.x / 32 * P;
  if (x >= inner || y0 >= n) return;
  const int64_t plane = (plane0 + blockIdx.z) * n * inner;
  const float* src = in + plane + x;
  const int64_t first = y0 - p.left;
  float acc[P] = {};
  if (first >= 0 && first + P + T - 1 <= n) {
    const float* s = src + first * inner;
#pragma unroll
    for (int k = 0; k < P + T - 1; ++k) scatter_tap<T, P>(acc, __ldg(s + k * inner), k, p);
  } else {
#pragma unroll
    for (int k = 0; k < P + T - 1; ++k) scatter_tap<T, P>(acc, load_near(src, first + k, n, inner, e, p.cval), k, p);
  }
  finish_all(acc, count, scale);
  float* dst = out + plane + x;
#pragma unroll
  for (int q = 0; q < P; ++q)
    if (y0 + q < n) dst[(y0 + q) * inner] = acc[q];
}

// Whether a float pass over [outer, n, inner] has a fast schedule: odd filters of up to kFastMaxTaps taps
// reaching less than the line's length to either side (load_near), along the contiguous axis or across
// lines at least half a warp wide (narrower ones idle most lanes).
bool has_fast_schedule(int64_t taps, int64_t left, int64_t n, int64_t inner) {
  return taps % 2 == 1 && taps <= kFastMaxTaps && std::max(left, taps - 1 - left) < n && (inner == 1 || inner >= 16);
}

// Runs the fast schedule of a float pass over C-ordered [outer, n, inner] (has_fast_schedule holds).
template <int T = 1>
void launch_fast(const float* in, float* out, int64_t outer, int64_t n, int64_t inner, const PassArgs<float>& a,
                 cudaStream_t s, const char* op) {
  if constexpr (T <= kFastMaxTaps) {
    if (a.taps != T) return launch_fast<T + 2>(in, out, outer, n, inner, a, s, op);
    const float count = a.mean ? float(T) : 1.0f;  // the divisor of means
    const Near e = near_extension(a.mode, n);
    // grids of at most 65535 along y and z, launched in chunks when more are needed
    constexpr int64_t kMaxGrid = 65535;
    if (inner == 1) {
      const int64_t segs = (n + 32 * kFastRowP - 1) / (32 * kFastRowP);
      for (int64_t s0 = 0; s0 < segs; s0 += kMaxGrid) {
        const dim3 grid(cuda::blocks_for(outer, kFastWarps), unsigned(std::min(kMaxGrid, segs - s0)));
        cuda::launch_overlapped(fast_rows<T>, grid, 32 * kFastWarps, 0, s, op, in, out, outer, n, s0, count,
                                1.0f / count, e, a);
      }
    } else {
      const int64_t tiles = (n + kFastWarps * fast_col_p<T>() - 1) / (kFastWarps * fast_col_p<T>());
      for (int64_t p0 = 0; p0 < outer; p0 += kMaxGrid)
        for (int64_t t0 = 0; t0 < tiles; t0 += kMaxGrid) {
          const dim3 grid(cuda::blocks_for(inner, 32), unsigned(std::min(kMaxGrid, tiles - t0)),
                          unsigned(std::min(kMaxGrid, outer - p0)));
          cuda::launch_overlapped(fast_cols<T>, grid, 32 * kFastWarps, 0, s, op, in, out, n, inner, t0, p0, count,
                                  1.0f / count, e, a);
        }
    }
  }
}

// Fast fused schedule: a y pass then an x pass over the last two axes of C-ordered [outer, ny, nx], both
// float filters of the same odd length T <= kFastFuseMaxTaps with fast schedules, in one kernel: the data is
// read once and written once instead of twice each, which is what keeps 3-D filters near the memory floor.
// A block takes 32 rows x 192 columns of outputs. Its input tile, extended by the y pass's mode along y and
// the x pass's along x, is staged with asynchronous copies (no registers held for loads in flight, so many
// blocks stay resident), the y pass fills an intermediate tile (constant x mode: cval outside the image, as
// the separate passes see it), and each warp runs the x pass over rows of it and writes them out coalesced.
// Measured on an H100 against the two fast passes: 3-D 192^3 taps 17, 32 vs 48 us; 2-D 4K taps 9, 34 vs 49
// us; taps 33 gain nothing (hence the limit).
constexpr int kFastFuseMaxTaps = 17, kFastFuseTY = 32, kFastFusePY = 8, kFastFusePX = 6, kFastFuseTX = 32 * kFastFusePX;

// A staged row holds image columns from the tile's first input column rounded down to a multiple of 4, so
// that rows of 16-byte aligned data copy in 16-byte pieces: its stride has room for those 3 columns and
// stays a multiple of 4 floats.
constexpr int64_t fast_fused_stride(int64_t taps) { return (kFastFuseTX + taps - 1 + 3 + 3) / 4 * 4; }

constexpr size_t fast_fused_shared(int64_t taps) {
  return size_t((kFastFuseTY + taps - 1) * fast_fused_stride(taps) + kFastFuseTY * (kFastFuseTX + taps - 1)) *
         sizeof(float);
}

template <int T, bool Mean>
__global__ void __launch_bounds__(32 * kFastWarps) fast_fused_yx(const float* __restrict__ in, float* __restrict__ out,
                                                                  int64_t ny, int64_t nx, int64_t plane0, float count,
                                                                  bool quads, Near ey, Near ex,
                                                                  const __grid_constant__ PassArgs<float> py,
                                                                  const __grid_constant__ PassArgs<float> px) {
  cuda::wait_prior_grid();  // launch_overlapped: nothing is touched before the previous kernel is done
  constexpr int TY = kFastFuseTY, PY = kFastFusePY, PX = kFastFusePX, TX = kFastFuseTX;
  constexpr int CW = TX + T - 1, SW = int(fast_fused_stride(T)), ROWS = TY + T - 1, kWarps = kFastWarps;
  extern __shared__ __align__(16) float fused_smem[];
  float* staged = fused_smem;           // ROWS x SW inputs
  float* mid = fused_smem + ROWS * SW;  // TY x CW after the y pass
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t x0 = int64_t(blockIdx.x) * TX, y0 = int64_t(blockIdx.y) * TY;
  const int64_t plane = (plane0 + blockIdx.z) * ny * nx;
  const int64_t xa = x0 - px.left;
  // staged column j holds image column xs + j; columns [j0, j1) lie inside the image and are copied in
  // 16-byte pieces when rows are 16-byte aligned (quads: nx % 4 == 0 and an aligned base, so that j0 and
  // j1 are multiples of 4 too), float by float otherwise; the others take the x pass's extension
  const int64_t xs = quads ? xa - (xa & 3) : xa;
  const int sh = int(xa - xs);
  const int j0 = int(std::min<int64_t>(std::max<int64_t>(-xs, 0), SW));
  const int j1 = int(std::min<int64_t>(std::max<int64_t>(nx - xs, j0), SW));
  const int outside = SW - (j1 - j0);
  // a warp a staged row; rows outside the image take the y pass's extension (cval beyond it)
  for (int r = warp; r < ROWS; r += kWarps) {
    const int64_t yy = extend_near(y0 - py.left + r, ny, ey);
    float* row = staged + r * SW;
    if (yy < 0 || yy >= ny) {
      for (int c = lane; c < SW; c += 32) row[c] = py.cval;
      continue;
    }
    const float* line = in + plane + yy * nx;
    if (quads) {
      for (int j = j0 + 4 * lane; j < j1; j += 128) __pipeline_memcpy_async(row + j, line + xs + j, 16);
    } else {
      for (int j = j0 + lane; j < j1; j += 32) __pipeline_memcpy_async(row + j, line + xs + j, sizeof(float));
    }
    for (int e = lane; e < outside; e += 32) {
      const int j = e < j0 ? e : e + (j1 - j0);
      const int64_t xx = extend_near(xs + j, nx, ex);
      if (xx >= 0 && xx < nx) __pipeline_memcpy_async(row + j, line + xx, sizeof(float));
      else row[j] = 0.0f;  // constant x mode: replaced by cval after the y pass
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  const float scale = 1.0f / count;  // of means (Mean), whose divisor is T
  for (int item = threadIdx.x; item < CW * (TY / PY); item += 32 * kWarps) {
    const int c = item % CW, seg = item / CW;
    float acc[PY] = {};
    const float* col = staged + seg * PY * SW + sh + c;
#pragma unroll
    for (int k = 0; k < PY + T - 1; ++k) scatter_tap<T, PY>(acc, col[k * SW], k, py);
    if constexpr (Mean) finish_all(acc, count, scale);
#pragma unroll
    for (int q = 0; q < PY; ++q) mid[(seg * PY + q) * CW + c] = acc[q];
  }
  __syncthreads();
  if (px.mode == Mode::Constant && (xa < 0 || xa + CW > nx)) {  // the x pass reads cval outside the image
    for (int i = threadIdx.x; i < TY * CW; i += 32 * kWarps)
      if (xa + i % CW < 0 || xa + i % CW >= nx) mid[i] = px.cval;
    __syncthreads();
  }
  const int m = int(std::min<int64_t>(TX, nx - x0));
  for (int r = warp; r < TY && y0 + r < ny; r += kWarps)
    warp_row_pass<T, PX, Mean>(mid + r * CW, out + plane + (y0 + r) * nx + x0, m, lane, count, scale, px);
}

template <int T = 1>
void launch_fast_fused(const float* in, float* out, int64_t outer, int64_t ny, int64_t nx, const PassArgs<float>& y,
                       const PassArgs<float>& x, cudaStream_t s, const char* op) {
  if constexpr (T <= kFastFuseMaxTaps) {
    if (y.taps != T) return launch_fast_fused<T + 2>(in, out, outer, ny, nx, y, x, s, op);
    constexpr size_t shared = fast_fused_shared(T);
    // means (uniform filters) get their division in a kernel of their own: the other one measured 20% faster
    // for 17 taps without that code
    auto kernel = y.mean ? fast_fused_yx<T, true> : fast_fused_yx<T, false>;
    cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)), op);
    constexpr int64_t kMaxGrid = 65535;
    const int64_t tiles_y = (ny + kFastFuseTY - 1) / kFastFuseTY;
    const bool quads = nx % 4 == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0;
    for (int64_t p0 = 0; p0 < outer; p0 += kMaxGrid) {
      const dim3 grid(unsigned((nx + kFastFuseTX - 1) / kFastFuseTX), unsigned(tiles_y),
                      unsigned(std::min(kMaxGrid, outer - p0)));
      cuda::launch_overlapped(kernel, grid, 32 * kFastWarps, shared, s, op, in, out, ny, nx, p0, float(T), quads,
                              near_extension(y.mode, ny), near_extension(x.mode, nx), y, x);
    }
  }
}

// Fused schedule: two passes along the last two axes of C-contiguous data seen as [outer, ny, nx], in one
// kernel, for float or double data computed in its own type. A block stages the input its output tile
// needs (extended by the first pass's mode along that pass's axis), runs the first pass into a shared
// intermediate (along the second pass's axis, intermediate values outside the image are that pass's
// extension of the intermediate: cval in constant mode), then the second pass, and writes the tile out
// coalesced: the data is read once and written once instead of twice each, and the results are those of
// the two-kernel schedule. Blocks are persistent and double-buffered: the input of their next tile is
// copied asynchronously (cp.async) while they compute the current one, so memory latency hides behind
// arithmetic.
constexpr int kFuseThreads = 512, kFuseYP = 8, kFuseXP = 5;  // outputs per thread along y (rows) and x

struct FusedTile {
  int ty, tx, cx;  // output tile rows and columns; cx: columns computed (tx rounded up to kFuseXP)
};

// `lines` lines of `count` outputs (count a multiple of P) computed from staged values `step` apart, lines
// `line_step` apart; threads take neighbouring lines (lines_fastest, for passes across the contiguous
// axis) or neighbouring P-output segments of one line. store(line, k, value) takes the results.
template <int P, class C, class Store>
__device__ __forceinline__ void block_pass(const C* src, int line_step, int step, int lines, int count,
                                           bool lines_fastest, const PassArgs<C>& p, const C* w, Store store) {
  const int segs = count / P;
  for (int item = threadIdx.x; item < lines * segs; item += blockDim.x) {
    const int line = lines_fastest ? item % lines : item / segs, seg = lines_fastest ? item / lines : item % segs;
    C acc[P];
    correlate_block<P>(src + line * line_step + seg * P * step, step, w, p.taps, p.sym, acc);
#pragma unroll
    for (int q = 0; q < P; ++q) store(line, seg * P + q, finish_pass(acc[q], p.taps, p.mean));
  }
}

template <class T, bool YFirst>
__global__ void __launch_bounds__(kFuseThreads, 2) fused_2d(const T* in, T* out, int64_t outer, int64_t ny,
                                                             int64_t nx, FusedTile t,
                                                             const __grid_constant__ PassArgs<T> first,
                                                             const __grid_constant__ PassArgs<T> second) {
  extern __shared__ __align__(16) unsigned char smem[];
  const PassArgs<T>& py = YFirst ? first : second;  // the pass along y, and the one along x
  const PassArgs<T>& px = YFirst ? second : first;
  const int rows = t.ty + py.taps - 1, cols = t.cx + px.taps - 1;
  // two sets (one per buffer) of: the input row offset and column each staged row and column reads (-1:
  // outside, constant mode), then the staged input; one intermediate; the weights
  int64_t* tables = reinterpret_cast<int64_t*>(smem);
  T* tiles = reinterpret_cast<T*>(tables + 2 * (rows + cols));
  T* mid = tiles + 2 * rows * cols;  // ty x cols (y first) or rows x cx (x first)
  T* wy = mid + (YFirst ? t.ty * cols : rows * t.cx);
  T* wx = wy + py.taps;
  load_weights(wy, py, threadIdx.x, blockDim.x);
  load_weights(wx, px, threadIdx.x, blockDim.x);
  const int64_t tiles_x = (nx + t.tx - 1) / t.tx, tiles_y = (ny + t.ty - 1) / t.ty, total = outer * tiles_y * tiles_x;
  auto origin = [&](int64_t b, int64_t& x0, int64_t& y0, int64_t& plane) {
    x0 = (b % tiles_x) * t.tx;
    const int64_t rest = b / tiles_x;
    y0 = (rest % tiles_y) * t.ty;
    plane = rest / tiles_y;
  };
  // Starts staging tile b into buffer `buf`: in-image values by asynchronous copies, the rest stored.
  auto stage_async = [&](int64_t b, int buf) {
    int64_t x0, y0, plane;
    origin(b, x0, y0, plane);
    int64_t* row_at = tables + buf * (rows + cols);
    int64_t* col_at = row_at + rows;
    for (int r = threadIdx.x; r < rows; r += blockDim.x) {
      const int64_t yy = extend_index(y0 - py.left + r, ny, py.mode);
      row_at[r] = yy < 0 ? -1 : yy * nx;
    }
    for (int c = threadIdx.x; c < cols; c += blockDim.x) col_at[c] = extend_index(x0 - px.left + c, nx, px.mode);
    __syncthreads();
    const T* src = in + plane * ny * nx;
    T* tile = tiles + buf * rows * cols;
    // a warp a row: rows read whole from inside the image take the plain path, the others the tables
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    const int64_t left_x = x0 - px.left;
    const bool inside_x = left_x >= 0 && left_x + cols <= nx;
    for (int r = warp; r < rows; r += warps) {
      const int64_t ro = row_at[r];
      T* trow = tile + r * cols;
      if (ro >= 0 && inside_x) {
        const T* srow = src + ro + left_x;
        for (int c = lane; c < cols; c += 32) __pipeline_memcpy_async(trow + c, srow + c, sizeof(T));
        continue;
      }
      for (int c = lane; c < cols; c += 32) {
        const int64_t co = col_at[c];
        if (ro >= 0 && co >= 0) {
          __pipeline_memcpy_async(trow + c, src + ro + co, sizeof(T));
        } else {
          // outside along the first pass's axis reads its cval; outside along the second's is replaced
          // after the first pass
          const bool second_outside = YFirst ? co < 0 : ro < 0;
          trow[c] = second_outside ? T(0) : first.cval;
        }
      }
    }
    __pipeline_commit();
  };
  int buf = 0;
  if (blockIdx.x < total) stage_async(blockIdx.x, 0);
  for (int64_t b = blockIdx.x; b < total; b += gridDim.x, buf ^= 1) {
    __pipeline_wait_prior(0);
    __syncthreads();  // tile b is staged by every thread; the other buffer's previous tile is written out
    if (b + gridDim.x < total) stage_async(b + gridDim.x, buf ^ 1);
    int64_t x0, y0, plane;
    origin(b, x0, y0, plane);
    const int64_t* row_at = tables + buf * (rows + cols);
    const int64_t* col_at = row_at + rows;
    T* tile = tiles + buf * rows * cols;
    if constexpr (YFirst) {
      block_pass<kFuseYP>(tile, 1, cols, cols, t.ty, true, py, wy, [&](int line, int k, T v) {
        mid[k * cols + line] = col_at[line] < 0 ? px.cval : v;
      });
      __syncthreads();
      block_pass<kFuseXP>(mid, cols, 1, t.ty, t.cx, false, px, wx,
                          [&](int line, int k, T v) { tile[line * t.cx + k] = v; });
    } else {
      block_pass<kFuseXP>(tile, cols, 1, rows, t.cx, false, px, wx, [&](int line, int k, T v) {
        mid[line * t.cx + k] = row_at[line] < 0 ? py.cval : v;
      });
      __syncthreads();
      block_pass<kFuseYP>(mid, 1, t.cx, t.cx, t.ty, true, py, wy,
                          [&](int line, int k, T v) { tile[k * t.cx + line] = v; });
    }
    __syncthreads();
    T* dst = out + plane * ny * nx;
    const int out_rows = int(std::min<int64_t>(t.ty, ny - y0)), out_cols = int(std::min<int64_t>(t.tx, nx - x0));
    for (int r = threadIdx.x / 32; r < out_rows; r += blockDim.x / 32) {
      T* drow = dst + (y0 + r) * nx + x0;
      for (int c = threadIdx.x % 32; c < out_cols; c += 32) drow[c] = tile[r * t.cx + c];
    }
  }
}

constexpr size_t kMaxShared = 48 * 1024;

template <class C>
PassArgs<C> make_args(const Pass1d& pass, const void* device_weights) {
  PassArgs<C> a{};
  a.taps = int(pass.weights.size());
  if (a.taps <= kInlineTaps) {
    for (int j = 0; j < a.taps; ++j) a.inline_w[j] = C(pass.weights[j]);
    a.w = nullptr;
  } else {
    a.w = static_cast<const C*>(device_weights);
  }
  a.sym = weight_symmetry(pass.weights);
  a.left = filter_reach(a.taps, pass.origin).left;
  a.mode = pass.mode;
  a.cval = C(pass.cval);
  a.mean = pass.mean;
  return a;
}

// A mean over a long window (long_mean, its weights left empty): one thread per line, the CPU engine's
// arithmetic (in double).
template <class TI, class TO>
__global__ void long_mean_lines(const TI* in, TO* out, Layout l, int axis, int64_t lines, Mode mode, double cval,
                                int64_t left, int64_t taps) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= lines) return;
  const int64_t oi = line_in_offset(l, axis, t), oo = line_out_offset(l, axis, t);
  const int64_t n = l.shape[axis], si = l.in_strides[axis], so = l.out_strides[axis];
  long_mean_line([&](int64_t k) { return double(in[oi + k * si]); }, n, mode, cval, left, taps,
                 [&](int64_t i, double v) { out[oo + i * so] = cast_to<TO>(v); });
}

bool is_long_mean(const Pass1d& p) { return p.mean && p.weights.empty(); }

void launch_long_mean(const View& src, const View& dst, const Pass1d& p, cudaStream_t s, const char* op) {
  const int64_t lines = src.size() / src.shape[p.axis], left = filter_reach(p.size, p.origin).left;
  dispatch_dtype(src.dtype, [&]<class TI>() {
    with_kernel_output<TI>(dst, s, op, [&]<class TO>(const View& o) {
      long_mean_lines<TI, TO><<<cuda::blocks_for(lines, 128), 128, 0, s>>>(
          src.ptr<TI>(), o.ptr<TO>(), make_layout(src, o), p.axis, lines, p.mode, p.cval, left, p.size);
      cuda::check_launch(op);
    });
  });
}

template <class TI, class TO, class C>
void launch_pass(View src, View dst, const PassArgs<C>& a, int axis, cudaStream_t s, const char* op) {
  const int taps = a.taps;
  // TO is one of the funnel's {TI, float, double} (with_kernel_output): tiled kernels where the layout allows
  if (as_c_order(src, dst, axis)) {
    const int64_t n = src.shape[axis];
    int64_t inner = 1;
    for (int d = axis + 1; d < src.ndim; ++d) inner *= src.shape[d];
    const int64_t outer = src.size() / (n * inner);
    if constexpr (std::is_same_v<TI, float> && std::is_same_v<TO, float> && std::is_same_v<C, float>) {
      if (has_fast_schedule(taps, a.left, n, inner)) {
        launch_fast(src.ptr<float>(), dst.ptr<float>(), outer, n, inner, a, s, op);
        cuda::check_launch(op);
        return;
      }
    }
    if (inner == 1) {
      // a tile of up to 256 threads' outputs, no longer than the line needs
      const int tile = int(std::min<int64_t>(256 * kRowP, (n + kRowP - 1) / kRowP * kRowP));
      const int threads = tile / kRowP;
      const size_t shared = (size_t(tile) + 2 * size_t(taps) - 1) * sizeof(C);
      if (shared <= kMaxShared) {
        const int64_t total = outer * ((n + tile - 1) / tile);
        pass_rows<TI, TO, C><<<cuda::blocks_for(total, 1), threads, shared, s>>>(
            src.ptr<TI>(), dst.ptr<TO>(), outer, n, tile, a);
        cuda::check_launch(op);
        return;
      }
    } else if (inner >= kColX / 2) {
      const size_t shared = (size_t(taps) + size_t(kColTile + taps - 1) * kColX) * sizeof(C);
      if (shared <= kMaxShared) {
        const int64_t total = outer * ((inner + kColX - 1) / kColX) * ((n + kColTile - 1) / kColTile);
        pass_cols<TI, TO, C><<<cuda::blocks_for(total, 1), dim3(kColX, kColY), shared, s>>>(
            src.ptr<TI>(), dst.ptr<TO>(), outer, n, inner, a);
        cuda::check_launch(op);
        return;
      }
    }
  }
  const int64_t total = src.size();
  pass_generic<TI, TO, C><<<cuda::blocks_for(total, 256), 256, 0, s>>>(src.ptr<TI>(), dst.ptr<TO>(),
                                                                        make_layout(src, dst), axis, a, total);
  cuda::check_launch(op);
}

// How two passes run fused: their tile, shared memory and order, when they qualify: the last two axes of
// C-ordered (or, reversed, Fortran-ordered) views, float or double data in and out, a tile that fits.
struct FusedPlan {
  FusedTile tile;
  size_t shared;
  bool y_first;
  bool fast;  // the fast fused schedule (float passes of one length up to kFastFuseMaxTaps, y then x)
};

std::optional<FusedPlan> plan_fused(View src, View dst, const Pass1d& a, const Pass1d& b, int optin, size_t csize) {
  // float or double data computed in its own type (as the unfused passes would compute it)
  const bool types = src.dtype == dst.dtype && (dst.dtype == DType::F32 || dst.dtype == DType::F64) &&
                     dtype_size(dst.dtype) == csize;
  int ax = a.axis, bx = b.axis;
  if (!types || src.ndim < 2 || !as_c_order(src, dst, ax, bx)) return std::nullopt;
  const int last = src.ndim - 1;
  if (!((ax == last - 1 && bx == last) || (ax == last && bx == last - 1))) return std::nullopt;
  const bool y_first = ax == last - 1;
  // float passes with fast schedules run faster one after the other than fused
  const int64_t nx = src.shape[last];
  auto fast = [&](const Pass1d& p, int axis) {
    const int64_t taps = int64_t(p.weights.size());
    return has_fast_schedule(taps, filter_reach(taps, p.origin).left, src.shape[axis], axis == last ? 1 : nx);
  };
  if (csize == 4 && fast(a, ax) && fast(b, bx)) {
    // y then x of one length up to kFastFuseMaxTaps, both means or neither, rows at least half a tile wide
    // (narrower ones would idle most of the x pass): the fast fused schedule; other fast pairs run faster one
    // after the other
    const int64_t taps = int64_t(a.weights.size());
    const bool fused_fast = y_first && int64_t(b.weights.size()) == taps && a.mean == b.mean &&
                            taps <= kFastFuseMaxTaps && nx >= kFastFuseTX / 2 && src.shape[last - 1] <= int64_t(kFastFuseTY) * 65535 &&
                            fast_fused_shared(taps) <= size_t(optin);
    if (!fused_fast) return std::nullopt;
    return FusedPlan{FusedTile{}, fast_fused_shared(taps), true, true};
  }
  const int taps_y = int((y_first ? a : b).weights.size()), taps_x = int((y_first ? b : a).weights.size());
  // tile width: the candidate that wastes the least of the last tile column; a smaller tile for filters
  // too long for the first to fit (two staged inputs, the intermediate, the extension tables, weights)
  int tx = 128;
  for (int cand : {96, 64})
    if ((nx + cand - 1) / cand * cand < (nx + tx - 1) / tx * tx) tx = cand;
  for (FusedTile t : {FusedTile{32, tx, 0}, FusedTile{16, 64, 0}}) {
    t.cx = (t.tx + kFuseXP - 1) / kFuseXP * kFuseXP;
    const size_t rows = t.ty + taps_y - 1, cols = t.cx + taps_x - 1;
    const size_t mid = y_first ? size_t(t.ty) * cols : rows * size_t(t.cx);
    const size_t shared =
        (2 * rows * cols + mid + size_t(taps_y) + taps_x) * csize + 2 * (rows + cols) * sizeof(int64_t);
    if (shared <= size_t(optin)) return FusedPlan{t, shared, y_first, false};
  }
  return std::nullopt;
}

template <class T>
void launch_fused(View src, View dst, const FusedPlan& plan, const PassArgs<T>& a, const PassArgs<T>& b,
                  int device, cudaStream_t s, const char* op) {
  as_c_order(src, dst);
  const int last = src.ndim - 1;
  const int64_t ny = src.shape[last - 1], nx = src.shape[last], outer = src.size() / (ny * nx);
  if (outer == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    if (plan.fast) {
      launch_fast_fused(src.ptr<float>(), dst.ptr<float>(), outer, ny, nx, a, b, s, op);
      cuda::check_launch(op);
      return;
    }
  }
  const FusedTile& t = plan.tile;
  auto kernel = plan.y_first ? fused_2d<T, true> : fused_2d<T, false>;
  if (plan.shared > kMaxShared)
    cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.shared)), op);
  // persistent blocks: as many as are resident at once, each looping over tiles
  int sms = 0, per_sm = 0;
  cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), op);
  cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kFuseThreads, plan.shared), op);
  const int64_t total = outer * ((ny + t.ty - 1) / t.ty) * ((nx + t.tx - 1) / t.tx);
  const int64_t grid = std::min<int64_t>(total, int64_t(std::max(per_sm, 1)) * sms);
  kernel<<<unsigned(grid), kFuseThreads, plan.shared, s>>>(src.ptr<T>(), dst.ptr<T>(), outer, ny, nx, t, a, b);
  cuda::check_launch(op);
}

}  // namespace

void separable_cuda(const View& in, const View& out, std::span<const Pass1d> passes, StreamHandle stream) {
  const char* op = "separable";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  // Arithmetic in double as scipy's (bit-identical integer results), except float32 in and out: float,
  // the GPU's fast path, within float rounding of scipy.
  const bool single = in.dtype == DType::F32 && out.dtype == DType::F32;
  const size_t m = passes.size(), csize = single ? 4 : 8;
  // weights of long filters in one device buffer (short ones travel in the kernel parameters)
  std::vector<size_t> at(m);
  size_t bytes = 0;
  for (size_t i = 0; i < m; ++i) {
    at[i] = bytes;
    if (passes[i].weights.size() > size_t(kInlineTaps)) bytes += (passes[i].weights.size() * csize + 7) / 8 * 8;
  }
  std::vector<unsigned char> host(bytes);
  for (size_t i = 0; i < m; ++i)
    if (passes[i].weights.size() > size_t(kInlineTaps))
      for (size_t j = 0; j < passes[i].weights.size(); ++j) {
        if (single) reinterpret_cast<float*>(host.data() + at[i])[j] = float(passes[i].weights[j]);
        else reinterpret_cast<double*>(host.data() + at[i])[j] = passes[i].weights[j];
      }
  cuda::Scratch dw(bytes, s, op);
  // pageable source: staged before cudaMemcpyAsync returns, so `host` may go out of scope
  if (bytes) cuda::check(cudaMemcpyAsync(dw.get<void>(), host.data(), bytes, cudaMemcpyHostToDevice, s), op);

  // Stages of one pass, or of two fused ones, alternate between `out` and a scratch array of out's dtype
  // and layout so that the last stage writes `out`.
  int optin = 0;
  cuda::check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, in.device_id), op);
  std::vector<std::optional<FusedPlan>> fused(m);
  size_t stages = 0;
  for (size_t i = 0; i < m; ++stages) {
    // every stage after the first reads an array of out's dtype and layout
    if (i + 1 < m && !is_long_mean(passes[i]) && !is_long_mean(passes[i + 1]))
      fused[i] = plan_fused(i == 0 ? in : out, out, passes[i], passes[i + 1], optin, csize);
    i += fused[i] ? 2 : 1;
  }
  cuda::Scratch tmp(stages > 1 ? size_t(out.size()) * dtype_size(out.dtype) : 0, s, op);
  const View mid = between_passes(out);
  View t = mid;
  t.data = tmp.get<void>();
  const bool fortran = !out.c_contiguous() && f_contiguous(out);
  int64_t st = 1;
  for (int k = 0; k < t.ndim; ++k) {
    const int d = fortran ? k : t.ndim - 1 - k;
    t.strides[d] = st;
    st *= t.shape[d];
  }
  auto args = [&]<class C>(size_t i) { return make_args<C>(passes[i], dw.get<unsigned char>() + at[i]); };
  View src = in;
  for (size_t i = 0, stage = 0; i < m; ++stage) {
    const View dst = stage + 1 == stages ? out : (stages - 1 - stage) % 2 == 0 ? mid : t;
    if (fused[i]) {  // float data in float, or double in double (plan_fused)
      if (single) launch_fused<float>(src, dst, *fused[i], args.template operator()<float>(i),
                                      args.template operator()<float>(i + 1), in.device_id, s, op);
      else launch_fused<double>(src, dst, *fused[i], args.template operator()<double>(i),
                                args.template operator()<double>(i + 1), in.device_id, s, op);
      i += 2;
    } else if (is_long_mean(passes[i])) {
      launch_long_mean(src, dst, passes[i], s, op);
      i += 1;
    } else {
      if (single) {
        launch_pass<float, float, float>(src, dst, args.template operator()<float>(i), passes[i].axis, s, op);
      } else {
        // the output-dtype funnel: other outputs through a float64 scratch and one cast
        dispatch_dtype(src.dtype, [&]<class TI>() {
          with_kernel_output<TI>(dst, s, op, [&]<class TO>(const View& o) {
            launch_pass<TI, TO, double>(src, o, args.template operator()<double>(i), passes[i].axis, s, op);
          });
        });
      }
      i += 1;
    }
    src = dst;
  }
}

}  // namespace ndimg::ndimage
