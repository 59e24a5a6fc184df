// minimum_filter1d / maximum_filter1d on the CUDA engine (the rank family's sliding extremes).
//
// Without NaN a window's extreme does not depend on the order of its comparisons, so the kernels combine
// values in whatever grouping is cheapest. They always keep the first of equal values (a left operand
// before a right one, as the CPU engine's van Herk scheme does), so that both engines give the same bits
// for -0.0 and +0.0. A line holding NaN (found while the kernels load it) is computed again by scipy's
// deque, whose order of comparisons decides what NaN does.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "ndimage/correlate1d.hpp"
#include "ndimage/footprint.cuh"
#include "ndimage/rank.hpp"

namespace ndimg::ndimage {
namespace {

// A window as the kernels see it: `w` values, the first `left` before the output.
template <class C>
struct Window {
  int64_t w, left;
  Mode mode;
  C cval;
  bool minimum;
};

// Value i of a line `stride` apart, extended by the window's mode.
template <class TI, class C>
__device__ __forceinline__ C load_ext(const TI* line, int64_t i, int64_t n, int64_t stride, const Window<C>& a) {
  if (i >= 0 && i < n) return C(line[i * stride]);
  const int64_t k = extend_index(i, n, a.mode);
  return k < 0 ? a.cval : C(line[k * stride]);
}

// P outputs that follow each other: acc[q] = v(q) ... v(q + w - 1) combined in order. For w >= P the windows
// share the core v(P - 1 .. w - 1), reduced once, and differ by a suffix of v(0 .. P - 2) and a prefix of
// v(w .. w + P - 2): w + P - 1 reads for P outputs.
template <int P, class C, class V>
__device__ __forceinline__ void window_extremes(C (&acc)[P], int64_t w, bool minimum, const V& v) {
  if (w >= P) {
    C core = v(P - 1);
#pragma unroll 4
    for (int64_t j = P; j < w; ++j) core = extreme(minimum, core, v(j));
    acc[0] = core;
#pragma unroll
    for (int q = 1; q < P; ++q) acc[q] = extreme(minimum, acc[q - 1], v(w - 1 + q));
    C s = core;
#pragma unroll
    for (int q = P - 2; q >= 0; --q) {
      s = q == P - 2 ? v(q) : extreme(minimum, v(q), s);
      acc[q] = extreme(minimum, s, acc[q]);
    }
  } else {
#pragma unroll
    for (int q = 0; q < P; ++q) {
      C r = v(q);
      for (int64_t j = 1; j < w; ++j) r = extreme(minimum, r, v(q + j));
      acc[q] = r;
    }
  }
}

// Loads staged per thread before their stores (cuda::stage).
constexpr int kBatch = 4;

constexpr int kWarps = 8;
constexpr size_t kMaxShared = 48 * 1024;
// Windows up to this length take the kernels over all outputs; longer ones Gil-Werman per line.
constexpr int64_t kShortWindow = 256;

// Along the contiguous last axis of [lines, n]: a warp per segment of kRowSeg outputs of one line (lines over
// x, segments over y: no divisions). It stages the segment's inputs and halo in its own shared memory
// (coalesced reads, the boundary handled only near the line's ends), each lane takes kRowP neighbouring
// outputs (odd: the lanes' strided reads avoid bank conflicts), and the results leave through shared memory,
// coalesced. Warps never wait for each other; each writes whether its inputs held NaN (one vote) as part
// `seg` of its line's flags, so that the flags need no clearing.
constexpr int kRowP = 3, kRowSeg = 32 * kRowP;

int row_stride(int64_t w) { return int(kRowSeg + w - 1); }  // a warp's staged values

// Both tiled kernels are bounded to 40 registers (six resident blocks): float data then needs no spills, and
// enough warps keep loads in flight for these memory-bound passes.

template <class TI, class TO, class C>
__global__ void __launch_bounds__(32 * kWarps, 6) min_max_rows(const TI* __restrict__ in, TO* __restrict__ out,
                                                            int64_t lines, int64_t n, int64_t seg0, int64_t segs,
                                                            int stride, const Window<C> a, int* flags) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  C* s = reinterpret_cast<C*>(smem) + warp * stride;
  const int64_t line = int64_t(blockIdx.x) * kWarps + warp, x0 = (seg0 + blockIdx.y) * kRowSeg;
  if (line >= lines || x0 >= n) return;  // the whole warp
  const TI* src = in + line * n;
  const int64_t first = x0 - a.left;
  const int len = kRowSeg + int(a.w) - 1;
  bool nan;
  if (first >= 0 && first + len <= n)
    nan = cuda::stage<kBatch, std::is_floating_point_v<TI>>(
        s, len, 1, lane, 32, [&](int k) { return C(src[first + k]); });
  else
    nan = cuda::stage<kBatch, std::is_floating_point_v<TI>>(
        s, len, 1, lane, 32, [&](int k) { return load_ext(src, first + k, n, 1, a); });
  const bool any = __any_sync(0xffffffffu, nan);
  if (flags && lane == 0) flags[line * segs + seg0 + blockIdx.y] = any;
  __syncwarp();
  C acc[kRowP];
  window_extremes<kRowP>(acc, a.w, a.minimum, [&](int64_t j) { return s[lane * kRowP + j]; });
  __syncwarp();
#pragma unroll
  for (int q = 0; q < kRowP; ++q) s[lane * kRowP + q] = acc[q];
  __syncwarp();
  const int m = int(std::min<int64_t>(kRowSeg, n - x0));
  TO* dst = out + line * n + x0;
  for (int k = lane; k < m; k += 32) dst[k] = cast_to<TO>(s[k]);
}

// Along an outer axis of [outer, n, inner]: a block of kWarps warps takes 32 neighbouring columns (coalesced
// along the contiguous inner axis) and kColTile outputs along the axis, stages kColTile + w - 1 rows of them
// in shared memory, and thread (x, y) computes rows [y P, y P + P) of column x (conflict-free: neighbouring
// lanes read neighbouring columns). Column tiles over x, row tiles over y, planes over z. Whether a column's
// staged inputs held NaN is written as part `tile` of its line's flags (no clearing needed).
constexpr int kColP = 8, kColTile = kWarps * kColP;

template <class TI, class TO, class C>
__global__ void __launch_bounds__(32 * kWarps, 6) min_max_cols(const TI* __restrict__ in, TO* __restrict__ out,
                                                            int64_t n, int64_t inner, int64_t tile0, int64_t plane0,
                                                            int64_t lines, const Window<C> a, int* flags) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ unsigned votes[kWarps];  // bit x of warp y: column x held NaN in the rows warp y staged
  C* s = reinterpret_cast<C*>(smem);
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  const int64_t x = int64_t(blockIdx.x) * 32 + tx, y0 = (tile0 + blockIdx.y) * kColTile;
  const int64_t plane = plane0 + blockIdx.z;
  const bool live = x < inner;
  const TI* src = in + plane * n * inner + x;
  const int64_t first = y0 - a.left;
  const int len = kColTile + int(a.w) - 1;
  bool nan = false;
  if (live) {
    if (first >= 0 && first + len <= n)
      nan = cuda::stage<kBatch, std::is_floating_point_v<TI>>(
        s + tx, len, 32, ty, kWarps, [&](int k) { return C(src[(first + k) * inner]); });
    else
      nan = cuda::stage<kBatch, std::is_floating_point_v<TI>>(
        s + tx, len, 32, ty, kWarps, [&](int k) { return load_ext(src, first + k, n, inner, a); });
  }
  const unsigned vote = __ballot_sync(0xffffffffu, nan);
  if (tx == 0) votes[ty] = vote;
  __syncthreads();
  if (flags && ty == 0 && live) {
    unsigned any = 0;
#pragma unroll
    for (int k = 0; k < kWarps; ++k) any |= votes[k];
    flags[(tile0 + blockIdx.y) * lines + plane * inner + x] = (any >> tx) & 1u;
  }
  const int r0 = ty * kColP;
  if (!live || y0 + r0 >= n) return;
  C acc[kColP];
  window_extremes<kColP>(acc, a.w, a.minimum, [&](int64_t j) { return s[(r0 + j) * 32 + tx]; });
  TO* dst = out + plane * n * inner + x;
#pragma unroll
  for (int q = 0; q < kColP; ++q)
    if (y0 + r0 + q < n) dst[(y0 + r0 + q) * inner] = cast_to<TO>(acc[q]);
}

// Any other layout: a thread per kGenP neighbouring outputs of one line, read through the strides.
constexpr int kGenP = 4;

template <class TI, class TO, class C>
__global__ void min_max_generic(const TI* in, TO* out, Layout l, int axis, int64_t segs, int64_t total,
                                const Window<C> a, int* nan_lines) {
  NDIMG_GRID_STRIDE(t, total) {
    const int64_t line = t / segs, i0 = (t % segs) * kGenP;
    const int64_t n = l.shape[axis], si = l.in_strides[axis], so = l.out_strides[axis];
    const TI* src = in + line_in_offset(l, axis, line);
    bool nan = false;
    C acc[kGenP];
    window_extremes<kGenP>(acc, a.w, a.minimum, [&](int64_t j) {
      const C v = load_ext(src, i0 - a.left + j, n, si, a);
      if constexpr (std::is_floating_point_v<TI>) nan |= !(v == v);
      return v;
    });
    if (nan_lines && nan) nan_lines[line] = 1;
    TO* dst = out + line_out_offset(l, axis, line);
#pragma unroll
    for (int q = 0; q < kGenP; ++q)
      if (i0 + q < n) dst[(i0 + q) * so] = cast_to<TO>(acc[q]);
  }
}

// Gil-Werman over a line: with blocks of w values from ext(0), the window of output i is the extreme of
// ext(i .. end of i's block), h[i], and of ext(start of the next block .. i + w - 1), a running prefix g.
// Three comparisons per output whatever w; h holds n values.
template <class C, class Ext, class Emit>
__device__ void gil_werman(int64_t n, int64_t w, bool minimum, const Ext& ext, C* h, Emit&& emit) {
  C s{};
  int64_t k = 0;  // position from the end of j's block
  for (int64_t j = ((n - 1) / w + 1) * w - 1; j >= 0; --j) {
    const C x = ext(j);
    s = k == 0 ? x : extreme(minimum, x, s);
    k = k + 1 == w ? 0 : k + 1;
    if (j < n) h[j] = s;
  }
  C g = h[0];  // ext(0 .. w - 1), the first window
  emit(0, g);
  int64_t p = 0;  // position of i + w - 1 in its block
  for (int64_t i = 1; i < n; ++i) {
    const C x = ext(i + w - 1);
    g = p == 0 ? x : extreme(minimum, g, x);
    p = p + 1 == w ? 0 : p + 1;
    emit(i, extreme(minimum, h[i], g));
  }
}

// Where the kernels over all outputs leave their NaN flags: part k < parts of line l at
// at[l * line_step + k * part_step], nonzero where that part's inputs held NaN.
struct Flags {
  const int* at;
  int64_t line_step, part_step, parts;
};

// Lines [l0, l0 + count), a thread each: the lines flagged in `flags`, or every line (flags.at null):
// scipy's deque over `exact` (sliding_extreme, whose order of comparisons decides what NaN does; ring/death
// give each line `cap` entries). With h (n values per line), a line without NaN takes Gil-Werman over
// `clipped` instead.
template <class TI, class TO, class C>
__global__ void min_max1d_lines(const TI* in, TO* out, Layout l, int axis, const Window<C> clipped,
                                const Window<C> exact, const Flags flags, int64_t l0, int64_t count, C* ring,
                                int64_t* death, int64_t cap, C* h) {
  cuda::wait_prior_grid();  // launch_overlapped: the flags and outputs of the kernel before are complete
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= count) return;
  if (flags.at) {
    bool nan = false;
    for (int64_t k = 0; k < flags.parts; ++k) nan |= flags.at[(l0 + t) * flags.line_step + k * flags.part_step] != 0;
    if (!nan) return;
  }
  const int64_t n = l.shape[axis], si = l.in_strides[axis], so = l.out_strides[axis];
  const TI* src = in + line_in_offset(l, axis, l0 + t);
  TO* dst = out + line_out_offset(l, axis, l0 + t);
  auto emit = [&](int64_t i, C v) { dst[i * so] = cast_to<TO>(v); };
  bool deque = h == nullptr;
  if constexpr (std::is_floating_point_v<TI>)
    for (int64_t k = 0; k < n && !deque; ++k) deque = !(src[k * si] == src[k * si]);
  if (deque)
    sliding_extreme<C>(exact.minimum, n, exact.w, [&](int64_t j) { return load_ext(src, j - exact.left, n, si, exact); },
                       ring + t * cap, death + t * cap, cap, emit);
  else
    gil_werman<C>(n, clipped.w, clipped.minimum,
                  [&](int64_t j) { return load_ext(src, j - clipped.left, n, si, clipped); }, h + t * n, emit);
}

// The schedule of the kernel over all outputs for the views' layout, and its flags' parts per line.
struct Plan {
  enum Kind { Rows, Cols, Generic } kind;
  int64_t outer, n, inner, parts;
  size_t shared;
  Flags flags(const int* at) const {
    if (kind == Rows) return {at, parts, 1, parts};
    if (kind == Cols) return {at, 1, outer * inner, parts};
    return {at, 1, 0, 1};
  }
};

template <class C>
Plan plan_outputs(const View& src, const View& dst, int axis, int64_t w) {
  const int64_t n = src.shape[axis];
  if (src.c_contiguous() && dst.c_contiguous()) {
    int64_t inner = 1;
    for (int d = axis + 1; d < src.ndim; ++d) inner *= src.shape[d];
    const int64_t outer = src.size() / (n * inner);
    if (inner == 1) {
      const size_t shared = size_t(kWarps) * row_stride(w) * sizeof(C);
      if (shared <= kMaxShared) return {Plan::Rows, outer, n, 1, (n + kRowSeg - 1) / kRowSeg, shared};
    } else if (inner >= 16) {  // narrower columns would idle most lanes
      const size_t shared = size_t(kColTile + w - 1) * 32 * sizeof(C);
      if (shared + kWarps * sizeof(unsigned) <= kMaxShared)  // with the kernel's static votes
        return {Plan::Cols, outer, n, inner, (n + kColTile - 1) / kColTile, shared};
    }
  }
  return {Plan::Generic, src.size() / n, n, 1, 1, 0};
}

// The kernel over all outputs; `flags` (or null) receives the parts of lines holding NaN, and for the generic
// schedule, which only sets them, is cleared first.
template <class TI, class TO, class C>
void launch_outputs(const Plan& p, const View& src, const View& dst, int axis, const Window<C>& a, int* flags,
                    cudaStream_t s, const char* op) {
  constexpr int64_t kMaxGrid = 65535;
  if (p.kind == Plan::Rows) {
    for (int64_t s0 = 0; s0 < p.parts; s0 += kMaxGrid) {
      const dim3 grid(cuda::blocks_for(p.outer, kWarps), unsigned(std::min(kMaxGrid, p.parts - s0)));
      min_max_rows<TI, TO, C><<<grid, 32 * kWarps, p.shared, s>>>(src.ptr<TI>(), dst.ptr<TO>(), p.outer, p.n, s0,
                                                                  p.parts, row_stride(a.w), a, flags);
      cuda::check_launch(op);
    }
  } else if (p.kind == Plan::Cols) {
    for (int64_t p0 = 0; p0 < p.outer; p0 += kMaxGrid)
      for (int64_t t0 = 0; t0 < p.parts; t0 += kMaxGrid) {
        const dim3 grid(cuda::blocks_for(p.inner, 32), unsigned(std::min(kMaxGrid, p.parts - t0)),
                        unsigned(std::min(kMaxGrid, p.outer - p0)));
        min_max_cols<TI, TO, C><<<grid, 32 * kWarps, p.shared, s>>>(src.ptr<TI>(), dst.ptr<TO>(), p.n, p.inner, t0,
                                                                    p0, p.outer * p.inner, a, flags);
        cuda::check_launch(op);
      }
  } else {
    if (flags) cuda::check(cudaMemsetAsync(flags, 0, size_t(p.outer) * sizeof(int), s), op);
    const int64_t segs = (p.n + kGenP - 1) / kGenP, total = p.outer * segs;
    min_max_generic<TI, TO, C><<<cuda::blocks_for(total, 256), 256, 0, s>>>(
        src.ptr<TI>(), dst.ptr<TO>(), make_layout(src, dst), axis, segs, total, a, flags);
    cuda::check_launch(op);
  }
}

}  // namespace

void min_max_filter1d_cuda(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval,
                           int origin, bool minimum, StreamHandle stream) {
  const char* op = minimum ? "minimum_filter1d" : "maximum_filter1d";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int64_t n = in.shape[axis], nlines = in.size() / n;
  const Reach r = clip_reach(filter_reach(size, origin), n), rn = nan_reach(size, origin, n);  // as the CPU engine
  const int64_t w = r.left + r.right + 1, wn = rn.left + rn.right + 1, cap = std::min(wn, n + wn - 1);
  // NaN even in integer data: every line takes the deque, as on the CPU engine
  const bool cval_nan = mode == Mode::Constant && std::isnan(cval);
  // long windows and NaN cval: the line kernel for every line; otherwise a kernel over all outputs, then the
  // line kernel for lines of float data flagged as holding NaN
  const bool by_lines = cval_nan || w > kShortWindow;
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using C = compute_t<TI>;
    with_kernel_output<TI>(out, s, op, [&]<class TO>(const View& o) {
      // Fortran-ordered data seen in C order, so that every kernel numbers the lines alike
      View src = in, dst = o;
      int ax = axis;
      as_c_order(src, dst, ax);
      const Plan plan = plan_outputs<C>(src, dst, ax, w);
      const bool flagged = !by_lines && std::is_floating_point_v<TI>;
      const bool long_lines = by_lines && !cval_nan;  // Gil-Werman where a line holds no NaN
      // one scratch: the flags, then for a batch of lines the deque's entries and Gil-Werman's suffixes, the
      // batch sized so that they take about 64 MiB
      const size_t flag_bytes = flagged ? (size_t(nlines * plan.parts) * sizeof(int) + 7) / 8 * 8 : 0;
      const int64_t per_line = cap * int64_t(sizeof(int64_t) + sizeof(C)) + (long_lines ? n * int64_t(sizeof(C)) : 0);
      const int64_t batch = std::min(nlines, std::max<int64_t>(1, (int64_t(64) << 20) / per_line));
      const bool line_pass = by_lines || flagged;
      cuda::Scratch scratch(flag_bytes + (line_pass ? size_t(batch * per_line) : 0), s, op);
      int* flags = flagged ? scratch.get<int>() : nullptr;
      auto* death = reinterpret_cast<int64_t*>(scratch.get<unsigned char>() + flag_bytes);
      C* ring = reinterpret_cast<C*>(death + batch * cap);
      C* h = long_lines ? ring + batch * cap : nullptr;
      const Window<C> clipped{w, r.left, mode, C(cval), minimum}, exact{wn, rn.left, mode, C(cval), minimum};
      if (!by_lines) launch_outputs<TI, TO, C>(plan, src, dst, ax, clipped, flags, s, op);
      if (!line_pass) return;
      const Layout l = make_layout(src, dst);
      const Flags f = plan.flags(flags);
      for (int64_t l0 = 0; l0 < nlines; l0 += batch) {
        const int64_t count = std::min(batch, nlines - l0);
        cuda::launch_overlapped(min_max1d_lines<TI, TO, C>, dim3(cuda::blocks_for(count, 128)), dim3(128), 0, s, op,
                                src.ptr<TI>(), dst.ptr<TO>(), l, ax, clipped, exact, f, l0, count, ring, death, cap,
                                h);
      }
    });
  });
}

}  // namespace ndimg::ndimage
