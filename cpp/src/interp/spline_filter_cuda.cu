// The B-spline prefilter on CUDA: the recursions of spline_filter.hpp run in parallel over segments of
// each line, not serially per line.
//
// The values are loaded into a double scratch laid out [position][line] (lines numbered over the other
// axes in C order), so that neighbouring threads, taking neighbouring lines, read and write neighbouring
// values whatever the axis; the load and the store transpose through shared memory where the lines run
// along the last axis. Each line is cut into K segments of S values, one thread a segment. Per pole z:
//  1. one thread a line sums the causal initial value (spline_filter.hpp's, over the line's ends);
//  2. each segment runs the causal recursion from zero (segment 0 from the initial value) and keeps its
//     last value;
//  3. one thread a line carries the segments' ends along the line: the true end of segment s is its own
//     plus z^len times the true end of segment s - 1; then it sums the anti-causal initial value from the
//     true causal values;
//  4. each segment runs the anti-causal recursion backwards from zero (the last from the initial value) on
//     its causal values made true (+ z^(i - a + 1) times the true end of the segment before), keeping its
//     first value;
//  5. one thread a line carries the segments' starts back along the line the same way.
// The anti-causal values are made true (+ z^(b - i) times the true start of the next segment) where they
// are read next: by the next pole's steps 1 and 2, or by the store, which casts to the output dtype. A
// correction z^k is below 2^-64 of the carried value beyond k = 64, where it is dropped.
#include <algorithm>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "interp/spline_filter.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::interp {
namespace {

constexpr int kPowers = 64;
constexpr unsigned kThreads = 256;

// The lines of a pass: line l = outer * inner + j for the C-order indices outer of the axes before the
// pass axis and j of those after it (inner elements); value i of line l is at i * L + l in the scratch.
struct Lines {
  int64_t n, L, inner, S, K;  // line length, lines, elements after the axis, segment length and count
  __device__ int64_t at(int64_t l, int64_t i) const { return i * L + l; }
  // the scratch index of the array's C-order element e
  __device__ int64_t of_element(int64_t e) const { return ((e / inner) % n) * L + (e / (inner * n)) * inner + e % inner; }
  __device__ int64_t seg_len(int64_t s) const { return s + 1 < K ? S : n - s * S; }
};

// A pole and its powers z^k, k < kPowers (beyond: 0); zn1, zn: z^(n-1) and z^n of the line length n
// (line_powers).
struct Pole {
  double z, zn1, zn, pw[kPowers];
  int64_t terms;
  __device__ double power(int64_t k) const { return k < kPowers ? pw[k] : 0.0; }
};

// The current values of line l: the scratch, with the previous pole's anti-causal corrections where it
// left them (next = its true segment starts, or null before the first pole).
struct Current {
  const double* w;
  Lines g;
  const double* next;
  Pole prev;
  // value i of line l, in segment s
  __device__ double operator()(int64_t l, int64_t i, int64_t s) const {
    double v = w[g.at(l, i)];
    if (next && s + 1 < g.K) v = add_rn(v, mul_rn(next[(s + 1) * g.L + l], prev.power((s + 1) * g.S - i)));
    return v;
  }
  __device__ double operator()(int64_t l, int64_t i) const { return (*this)(l, i, i / g.S); }
};

// The causal values of line l made true from the segments' true ends `ends`.
struct Causal {
  const double* w;
  Lines g;
  double* ends;
  Pole p;
  __device__ double operator()(int64_t l, int64_t i, int64_t s) const {
    double v = w[g.at(l, i)];
    if (s > 0) v = add_rn(v, mul_rn(ends[(s - 1) * g.L + l], p.power(i - s * g.S + 1)));
    return v;
  }
  __device__ double operator()(int64_t l, int64_t i) const { return (*this)(l, i, i / g.S); }
};

// Loads (scaled) and stores: by element in C order where lines have neighbours after them (inner > 1),
// else through kTile x kTile tiles in shared memory (lines along the last axis: the array's rows).
constexpr int kTile = 32, kTileRows = 8;

// Both mark the lines holding a value that is not finite once scaled (flags[l] = 1): see serial_kernel.
template <class TI>
__global__ void load_kernel(const TI* in, Layout lay, bool contiguous, Lines g, int64_t total, double* w, double scale,
                            int* flags) {
  NDIMG_GRID_STRIDE(e, total) {
    const int64_t x = g.of_element(e);
    const double v = mul_rn(double(in[contiguous ? e : in_offset(lay, e)]), scale);
    w[x] = v;
    if (!isfinite(v)) flags[x % g.L] = 1;
  }
}

// Tile (blockIdx.x, y): positions [x kTile, + kTile) of lines [y kTile, + kTile), y striding over the grid.
template <class TI>
__global__ void load_rows_kernel(const TI* in, Layout lay, int axis, Lines g, double* w, double scale, int* flags) {
  __shared__ double tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i0 = blockIdx.x * int64_t(kTile);
  for (int64_t l0 = blockIdx.y * int64_t(kTile); l0 < g.L; l0 += gridDim.y * int64_t(kTile)) {
    for (int r = ty; r < kTile; r += kTileRows) {  // read along the rows
      const int64_t l = l0 + r, i = i0 + tx;
      if (l < g.L && i < g.n) {
        const double v = mul_rn(double(in[line_in_offset(lay, axis, l) + i * lay.in_strides[axis]]), scale);
        tile[r][tx] = v;
        if (!isfinite(v)) flags[l] = 1;
      }
    }
    __syncthreads();
    for (int r = ty; r < kTile; r += kTileRows) {  // write along the lines
      const int64_t i = i0 + r, l = l0 + tx;
      if (l < g.L && i < g.n) w[g.at(l, i)] = tile[tx][r];
    }
    __syncthreads();
  }
}

__global__ void causal_init_kernel(const __grid_constant__ Current cur, const __grid_constant__ Pole p, SplineBoundary b, double* init) {
  NDIMG_GRID_STRIDE(l, cur.g.L) {
    init[l] = causal_init<double>([&](int64_t i) { return cur(l, i); }, cur.g.n, p.z, p.zn1, p.zn, b, p.terms);
  }
}

__global__ void causal_kernel(const __grid_constant__ Current cur, const __grid_constant__ Pole p, const double* init, double* w, double* ends) {
  const Lines& g = cur.g;
  NDIMG_GRID_STRIDE(t, g.L * g.K) {
    const int64_t l = t % g.L, s = t / g.L, a = s * g.S, e = a + g.seg_len(s);
    double y = s == 0 ? init[l] : cur(l, a, s);
    w[g.at(l, a)] = y;
    for (int64_t i = a + 1; i < e; ++i) {
      y = add_rn(cur(l, i, s), mul_rn(y, p.z));
      w[g.at(l, i)] = y;
    }
    ends[s * g.L + l] = y;
  }
}

// Step 3: the causal ends carried along each line (in place in c.ends), then the anti-causal initial value.
__global__ void causal_scan_kernel(const __grid_constant__ Causal c, SplineBoundary b, double* init) {
  const Lines& g = c.g;
  NDIMG_GRID_STRIDE(l, g.L) {
    double y = c.ends[l];
    for (int64_t s = 1; s < g.K; ++s) {
      y = add_rn(c.ends[s * g.L + l], mul_rn(y, c.p.power(g.seg_len(s))));
      c.ends[s * g.L + l] = y;
    }
    init[l] = anticausal_init<double>([&](int64_t i) { return c(l, i); }, g.n, c.p.z, c.p.zn, b, c.p.terms);
  }
}

__global__ void anticausal_kernel(const __grid_constant__ Causal c, const double* init, double* w, double* starts) {
  const Lines& g = c.g;
  NDIMG_GRID_STRIDE(t, g.L * g.K) {
    const int64_t l = t % g.L, s = t / g.L, a = s * g.S, e = a + g.seg_len(s);
    double v = 0;
    int64_t i = e - 1;
    if (s + 1 == g.K) {  // the line's end starts from the initial value
      v = init[l];
      w[g.at(l, i)] = v;
      --i;
    }
    for (; i >= a; --i) {
      v = mul_rn(sub_rn(v, c(l, i, s)), c.p.z);
      w[g.at(l, i)] = v;
    }
    starts[s * g.L + l] = v;
  }
}

// Step 5: the anti-causal starts carried back along each line.
__global__ void anticausal_scan_kernel(Lines g, const __grid_constant__ Pole p, double* starts) {
  NDIMG_GRID_STRIDE(l, g.L) {
    double v = starts[(g.K - 1) * g.L + l];
    for (int64_t s = g.K - 2; s >= 0; --s) {
      v = add_rn(starts[s * g.L + l], mul_rn(v, p.power(g.S)));
      starts[s * g.L + l] = v;
    }
  }
}

// Lines with an infinity (or a value that overflows when scaled) are filtered again serially, exactly as
// scipy's loop does: the segments' corrections would multiply an infinity by a power z^k rounded to 0
// (NaN) where the serial recursion keeps the infinity. Their carries are cleared so the store reads them
// as they are. Lines with NaN come out all NaN either way.
template <class TI>
__global__ void serial_kernel(const TI* in, Layout lay, int axis, Lines g, const int* flags, SplinePoles p,
                              LinePowers pw, SplineBoundary b, double* w, double* starts) {
  NDIMG_GRID_STRIDE(l, g.L) {
    if (!flags[l]) continue;
    const int64_t base = line_in_offset(lay, axis, l), stride = lay.in_strides[axis];
    for (int64_t i = 0; i < g.n; ++i) w[g.at(l, i)] = double(in[base + i * stride]);
    spline_filter_line<double>([&](int64_t i) -> double& { return w[g.at(l, i)]; }, g.n, p, pw, b);
    for (int64_t s = 0; s < g.K; ++s) starts[s * g.L + l] = 0;
  }
}

template <class TO>
__global__ void store_kernel(const __grid_constant__ Current cur, TO* out, Layout lay, bool contiguous, int64_t total) {
  const Lines& g = cur.g;
  NDIMG_GRID_STRIDE(e, total) {
    const int64_t x = g.of_element(e);
    out[contiguous ? e : out_offset(lay, e)] = cast_to<TO>(cur(x % g.L, x / g.L));
  }
}

template <class TO>
__global__ void store_rows_kernel(const __grid_constant__ Current cur, TO* out, Layout lay, int axis) {
  __shared__ double tile[kTile][kTile + 1];
  const Lines& g = cur.g;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i0 = blockIdx.x * int64_t(kTile);
  for (int64_t l0 = blockIdx.y * int64_t(kTile); l0 < g.L; l0 += gridDim.y * int64_t(kTile)) {
    for (int r = ty; r < kTile; r += kTileRows) {  // read along the lines
      const int64_t i = i0 + r, l = l0 + tx;
      if (l < g.L && i < g.n) tile[r][tx] = cur(l, i);
    }
    __syncthreads();
    for (int r = ty; r < kTile; r += kTileRows) {  // write along the rows
      const int64_t l = l0 + r, i = i0 + tx;
      if (l < g.L && i < g.n) out[line_out_offset(lay, axis, l) + i * lay.out_strides[axis]] = cast_to<TO>(tile[tx][r]);
    }
    __syncthreads();
  }
}

Pole make_pole(double z, double zn1, double zn) {
  Pole p{};
  p.z = z;
  p.zn1 = zn1;
  p.zn = zn;
  p.pw[0] = 1;
  for (int k = 1; k < kPowers; ++k) p.pw[k] = p.pw[k - 1] * z;
  p.terms = std::min<int64_t>(spline_terms(z), kPowers);
  return p;
}

}  // namespace

void spline_filter_cuda(const View& in, const View& out, const SplinePoles& p, std::span<const int> axes,
                        SplineBoundary b, StreamHandle stream) {
  const char* op = "spline_filter";
  auto st = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int64_t total = in.size();
  // segments: enough threads to fill the GPU (about 2^17), at least 16 values each, at most 1024 a line
  auto lines_of = [&](int axis) {
    Lines g{};
    g.n = in.shape[axis];
    g.L = total / g.n;
    g.inner = 1;
    for (int d = axis + 1; d < in.ndim; ++d) g.inner *= in.shape[d];
    const int64_t k = std::clamp<int64_t>((int64_t(1) << 17) / g.L, 1, 1024);
    g.S = std::max<int64_t>((g.n + k - 1) / k, 16);
    g.K = (g.n + g.S - 1) / g.S;
    return g;
  };
  int64_t carries = 0, max_lines = 0;
  for (int axis : axes) {
    const Lines g = lines_of(axis);
    carries = std::max(carries, g.L * g.K);
    max_lines = std::max(max_lines, g.L);
  }
  cuda::Scratch scratch(size_t(total + 2 * carries + max_lines) * sizeof(double) + size_t(max_lines) * sizeof(int),
                        st, op);
  double* w = scratch.get<double>();
  double *ends = w + total, *starts = ends + carries, *init = starts + carries;
  int* flags = reinterpret_cast<int*>(init + max_lines);
  const double gain = spline_gain(p);
  const unsigned grid = cuda::blocks_for(total, kThreads);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int axis = axes[k];
    const View& src = k == 0 ? in : out;
    const Lines g = lines_of(axis);
    const Layout lin = make_layout(src, src);
    const double scale = g.n > 1 ? gain : 1.0;
    const dim3 tiles(unsigned((g.n + kTile - 1) / kTile), unsigned(std::min<int64_t>((g.L + kTile - 1) / kTile, 65535)));
    const dim3 tile_threads(kTile, kTileRows);
    // Small arrays, and axes with lines enough to fill the GPU one thread a line, run scipy's serial
    // recursion on every line (bitwise scipy's, which integer and bool outputs need where a value lands on a
    // rounding boundary; one launch instead of five a pole where the arrays are small); the segments
    // otherwise.
    const bool serial = total <= (int64_t(1) << 20) || g.L >= (int64_t(1) << 16);
    cuda::check(cudaMemsetAsync(flags, serial ? 1 : 0, size_t(g.L) * sizeof(int), st), op);
    dispatch_dtype(src.dtype, [&]<class TI>() {
      const TI* data = static_cast<const TI*>(src.data);
      if (g.inner > 1)
        load_kernel<TI><<<grid, kThreads, 0, st>>>(data, lin, src.c_contiguous(), g, total, w, scale, flags);
      else
        load_rows_kernel<TI><<<tiles, tile_threads, 0, st>>>(data, lin, axis, g, w, scale, flags);
    });
    cuda::check_launch(op);
    Current cur{w, g, nullptr, Pole{}};
    if (g.n > 1) {
      const LinePowers pw = line_powers(p, g.n);
      const unsigned line_grid = cuda::blocks_for(g.L, kThreads), seg_grid = cuda::blocks_for(g.L * g.K, kThreads);
      for (int j = 0; j < p.count && !serial; ++j) {
        const Pole pole = make_pole(p.z[j], pw.zn1[j], pw.zn[j]);
        causal_init_kernel<<<line_grid, kThreads, 0, st>>>(cur, pole, b, init);
        causal_kernel<<<seg_grid, kThreads, 0, st>>>(cur, pole, init, w, ends);
        causal_scan_kernel<<<line_grid, kThreads, 0, st>>>(Causal{w, g, ends, pole}, b, init);
        anticausal_kernel<<<seg_grid, kThreads, 0, st>>>(Causal{w, g, ends, pole}, init, w, starts);
        anticausal_scan_kernel<<<line_grid, kThreads, 0, st>>>(g, pole, starts);
        cuda::check_launch(op);
        cur = Current{w, g, starts, pole};
      }
      dispatch_dtype(src.dtype, [&]<class TI>() {
        serial_kernel<TI><<<line_grid, kThreads, 0, st>>>(static_cast<const TI*>(src.data), lin, axis, g, flags, p, pw, b,
                                                          w, starts);
      });
      cuda::check_launch(op);
    }
    const Layout lout = make_layout(out, out);
    dispatch_dtype(out.dtype, [&]<class TO>() {
      TO* data = static_cast<TO*>(out.data);
      if (g.inner > 1)
        store_kernel<TO><<<grid, kThreads, 0, st>>>(cur, data, lout, out.c_contiguous(), total);
      else
        store_rows_kernel<TO><<<tiles, tile_threads, 0, st>>>(cur, data, lout, axis);
    });
    cuda::check_launch(op);
  }
}

}  // namespace ndimg::interp
