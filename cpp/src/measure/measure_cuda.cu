// CUDA schedules of the statistics per label. Each thread reduces a short run of consecutive elements in
// registers while they share a slot (labels come in regions) and adds the run to the slot's entry: in
// block-private tables in shared memory when the tables are small, else with global atomics. Minima and
// maxima are two passes: atomicMin/atomicMax of order keys (measure.hpp), then the first index holding the
// extreme value.
#include <algorithm>
#include <vector>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "measure/measure.hpp"

namespace ndimg::measure {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 4096;
constexpr int kRun = 8;               // consecutive elements per thread and step
constexpr int64_t kSharedSlots = 1024;

using ull = unsigned long long;

__device__ __forceinline__ void add_to(ull* p, ull v) { atomicAdd(p, v); }
__device__ __forceinline__ void add_to(double* p, double v) { atomicAdd(p, v); }

// The element of flat index i of `in` (any strides) and its slot (slots null: every element in slot 0), of ns.
template <class T>
struct Elements {
  const T* in;
  const int32_t* slots;
  Layout l;
  int64_t n, ns;
  __device__ T value(int64_t i) const { return in[in_offset(l, i)]; }
  // -1 for a slot beyond the tables (never a write out of bounds)
  __device__ int32_t slot(int64_t i) const {
    const int32_t s = slots ? slots[i] : 0;
    return s < ns ? s : -1;
  }
};

// Runs of kRun elements: run r covers [r * kRun, (r + 1) * kRun); f(i, s) for each element i with slot s >= 0,
// flush(s) after the last element of a stretch of one slot. Grid-stride over the runs.
template <class T, class Each, class Flush>
__device__ void for_runs(const Elements<T>& e, Each&& each, Flush&& flush) {
  const int64_t runs = (e.n + kRun - 1) / kRun;
  NDIMG_GRID_STRIDE(r, runs) {
    const int64_t a = r * kRun, b = min(a + kRun, e.n);
    int32_t cur = -1;
    for (int64_t i = a; i < b; ++i) {
      const int32_t s = e.slot(i);
      if (s != cur && cur >= 0) flush(cur);
      cur = s;
      if (s >= 0) each(i, s);
    }
    if (cur >= 0) flush(cur);
  }
}

// counts, float64 sums and wrapping integer sums per slot.
template <class T>
__global__ void moments_kernel(Elements<T> e, int64_t ns, ull* counts, double* sums, ull* isums) {
  extern __shared__ ull moment_tables[];   // counts, integer sums, float sums: kSharedSlots each
  const bool shared = ns <= kSharedSlots;
  ull* lc = moment_tables;
  ull* li = lc + kSharedSlots;
  double* ls = reinterpret_cast<double*>(li + kSharedSlots);
  if (shared) {
    for (int64_t k = threadIdx.x; k < ns; k += blockDim.x) lc[k] = 0, li[k] = 0, ls[k] = 0;
    __syncthreads();
  }
  ull c = 0, is = 0;
  double sm = 0;
  for_runs(
      e,
      [&](int64_t i, int32_t) {
        const T x = e.value(i);
        ++c;
        sm += double(x);
        if constexpr (!std::is_floating_point_v<T>) is += ull(int64_t(x));
      },
      [&](int32_t s) {
        add_to(shared ? lc + s : counts + s, c);
        add_to(shared ? ls + s : sums + s, sm);
        if constexpr (!std::is_floating_point_v<T>) add_to(shared ? li + s : isums + s, is);
        c = 0, is = 0, sm = 0;
      });
  if (shared) {
    __syncthreads();
    for (int64_t k = threadIdx.x; k < ns; k += blockDim.x) {
      if (!lc[k]) continue;
      atomicAdd(counts + k, lc[k]);
      atomicAdd(sums + k, ls[k]);
      if constexpr (!std::is_floating_point_v<T>) atomicAdd(isums + k, li[k]);
    }
  }
}

// One float64 sum per slot and per `width` (table[s * width + w]) of term(x, i, s, w).
template <class T, class Term>
__global__ void sum_kernel(Elements<T> e, int64_t ns, int width, int w, double* table, Term term) {
  extern __shared__ double local[];
  const bool shared = ns <= kSharedSlots;
  if (shared) {
    for (int64_t k = threadIdx.x; k < ns; k += blockDim.x) local[k] = 0;
    __syncthreads();
  }
  double acc = 0;
  for_runs(
      e, [&](int64_t i, int32_t s) { acc += term(e.value(i), i, s); },
      [&](int32_t s) {
        add_to(shared ? local + s : table + int64_t(s) * width + w, acc);
        acc = 0;
      });
  if (shared) {
    __syncthreads();
    for (int64_t k = threadIdx.x; k < ns; k += blockDim.x)
      if (local[k] != 0) atomicAdd(table + k * width + w, local[k]);
  }
}

struct Centered {
  const double* means;
  template <class T>
  __device__ double operator()(T x, int64_t, int32_t s) const {
    const double d = double(x) - means[s];
    return d * d;
  }
};

// x times the element's index along axis `axis` of a C-order shape.
struct Coord {
  int64_t stride, extent;  // the axis' C-order stride in elements, and its length
  template <class T>
  __device__ double operator()(T x, int64_t i, int32_t) const { return double(x) * double((i / stride) % extent); }
};

template <class T>
__global__ void extrema_keys_kernel(Elements<T> e, ull* mn, ull* mx, ull* nans, ull* nanpos) {
  NDIMG_GRID_STRIDE(i, e.n) {
    const int32_t s = e.slot(i);
    if (s < 0) continue;
    const T x = e.value(i);
    if (is_nan(x)) {
      atomicAdd(nans + s, 1ull);
      atomicMin(nanpos + s, ull(i));
      continue;
    }
    const ull k = order_key(x);
    atomicMin(mn + s, k);
    atomicMax(mx + s, k);
  }
}

template <class T>
__global__ void extrema_pos_kernel(Elements<T> e, const ull* mn, const ull* mx, ull* mnp, ull* mxp) {
  NDIMG_GRID_STRIDE(i, e.n) {
    const int32_t s = e.slot(i);
    if (s < 0) continue;
    const T x = e.value(i);
    if (is_nan(x)) continue;
    const ull k = order_key(x);
    if (k == mn[s]) atomicMin(mnp + s, ull(i));
    if (k == mx[s]) atomicMin(mxp + s, ull(i));
  }
}

// The tables of extrema() from the keys and positions (positions left at ~0, that is -1: the slot had no value).
template <class T>
__global__ void extrema_finish_kernel(int64_t ns, const ull* mnk, const ull* mxk, const ull* mnp, const ull* mxp,
                                      T* mins, T* maxs, int64_t* minpos, int64_t* maxpos) {
  NDIMG_GRID_STRIDE(s, ns) {
    const bool any = mnp[s] != ~0ull;
    mins[s] = any ? from_order_key<T>(mnk[s]) : T(0);
    maxs[s] = any ? from_order_key<T>(mxk[s]) : T(0);
    minpos[s] = int64_t(mnp[s]);
    maxpos[s] = int64_t(mxp[s]);
  }
}

// Counts per (slot, bin). A small table (the whole image's few bins) is counted in block-private shared
// memory: global atomics on a handful of bins that every element hits serialize (10x slower). 32-bit block
// counts suffice: a block of the capped grid (kMaxBlocks) sees at most n / kMaxBlocks elements.
constexpr int64_t kSharedBins = 4096;

template <class T>
__global__ void histogram_kernel(Elements<T> e, const double* edges, int64_t nbins, double scale, ull* hist) {
  extern __shared__ unsigned bin_counts[];
  const int64_t width = e.ns * nbins;
  const bool shared = width <= kSharedBins;
  if (shared) {
    for (int64_t k = threadIdx.x; k < width; k += blockDim.x) bin_counts[k] = 0;
    __syncthreads();
  }
  NDIMG_GRID_STRIDE(i, e.n) {
    const int32_t s = e.slot(i);
    if (s < 0) continue;
    const int64_t b = bin_of(double(e.value(i)), edges, nbins, scale);
    if (b < 0) continue;
    if (shared) atomicAdd(bin_counts + int64_t(s) * nbins + b, 1u);
    else atomicAdd(hist + int64_t(s) * nbins + b, 1ull);
  }
  if (shared) {
    __syncthreads();
    for (int64_t k = threadIdx.x; k < width; k += blockDim.x)
      if (bin_counts[k]) atomicAdd(hist + k, ull(bin_counts[k]));
  }
}

template <class L>
__global__ void slots_kernel(const L* labels, Layout l, int64_t n, Slotter<L> slot, int32_t* out) {
  NDIMG_GRID_STRIDE(i, n) out[i] = slot(labels[in_offset(l, i)]);
}

unsigned grid(int64_t n) { return std::min<unsigned>(cuda::blocks_for(n, kThreads), kMaxBlocks); }
unsigned run_grid(int64_t n) { return grid((n + kRun - 1) / kRun); }

template <class T>
Elements<T> elements(const View& in, const View& slots, int64_t ns) {
  const bool all = slots.size() == 0;
  return Elements<T>{in.ptr<T>(), all ? nullptr : slots.ptr<int32_t>(), flat_layout(in, all ? in : slots), in.size(),
                     ns};
}

template <class T, class Term>
void run_sum(const View& in, const View& slots, int64_t ns, int width, int w, double* table, Term term,
             cudaStream_t s, const char* op) {
  const size_t shmem = ns <= kSharedSlots ? size_t(ns) * sizeof(double) : 0;
  sum_kernel<T, Term><<<run_grid(in.size()), kThreads, shmem, s>>>(elements<T>(in, slots, ns), ns, width, w, table, term);
  cuda::check_launch(op);
}

}  // namespace

void slots_cuda(const View& labels, Map map, int64_t lo, const View& table, const View& out, StreamHandle stream) {
  const char* op = "measure_slots";
  cuda::DeviceGuard guard(labels.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(labels.dtype, [&]<class L>() {
    const int64_t n = labels.size();
    slots_kernel<L><<<grid(n), kThreads, 0, s>>>(labels.ptr<L>(), flat_layout(labels, out), n,
                                                 Slotter<L>{map, lo, table.size(), table.data}, out.ptr<int32_t>());
    cuda::check_launch(op);
  });
}

void moments_cuda(const View& in, const View& slots, const View& counts, const View& sums, const View& isums,
                  StreamHandle stream) {
  const char* op = "measure_moments";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t ns = counts.size();
  dispatch_dtype(in.dtype, [&]<class T>() {
    const size_t shmem = ns <= kSharedSlots ? size_t(kSharedSlots) * 3 * 8 : 0;
    moments_kernel<T><<<run_grid(in.size()), kThreads, shmem, s>>>(
        elements<T>(in, slots, ns), ns, reinterpret_cast<ull*>(counts.data), sums.ptr<double>(),
        reinterpret_cast<ull*>(isums.data));
    cuda::check_launch(op);
  });
}

void centered_cuda(const View& in, const View& slots, const View& means, const View& sq, StreamHandle stream) {
  const char* op = "measure_centered";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(in.dtype, [&]<class T>() {
    run_sum<T>(in, slots, sq.size(), 1, 0, sq.ptr<double>(), Centered{means.ptr<double>()}, s, op);
  });
}

void weighted_coords_cuda(const View& in, const View& slots, const View& coords, StreamHandle stream) {
  const char* op = "measure_weighted_coords";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int nd = in.ndim;
  dispatch_dtype(in.dtype, [&]<class T>() {
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0; --d) {
      run_sum<T>(in, slots, coords.shape[0], nd, d, coords.ptr<double>(), Coord{stride, in.shape[d]}, s, op);
      stride *= in.shape[d];
    }
  });
}

void extrema_cuda(const View& in, const View& slots, const View& mins, const View& maxs, const View& minpos,
                  const View& maxpos, const View& nans, const View& nanpos, StreamHandle stream) {
  const char* op = "measure_extrema";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t ns = mins.size();
  // min keys, max keys, min positions, max positions
  cuda::Scratch scratch(size_t(ns) * 4 * sizeof(ull), s, op);
  ull *mnk = scratch.get<ull>(), *mxk = mnk + ns, *mnp = mxk + ns, *mxp = mnp + ns;
  cuda::check(cudaMemsetAsync(mnk, 0xff, size_t(ns) * sizeof(ull), s), op);
  cuda::check(cudaMemsetAsync(mxk, 0, size_t(ns) * sizeof(ull), s), op);
  cuda::check(cudaMemsetAsync(mnp, 0xff, size_t(ns) * 2 * sizeof(ull), s), op);
  cuda::check(cudaMemsetAsync(nans.data, 0, size_t(ns) * sizeof(ull), s), op);
  cuda::check(cudaMemsetAsync(nanpos.data, 0xff, size_t(ns) * sizeof(ull), s), op);
  auto* nanc = reinterpret_cast<ull*>(nans.data);
  auto* nanp = reinterpret_cast<ull*>(nanpos.data);
  dispatch_dtype(in.dtype, [&]<class T>() {
    const auto e = elements<T>(in, slots, ns);
    const unsigned g = grid(in.size());
    if (in.size() > 0) {
      extrema_keys_kernel<T><<<g, kThreads, 0, s>>>(e, mnk, mxk, nanc, nanp);
      cuda::check_launch(op);
      extrema_pos_kernel<T><<<g, kThreads, 0, s>>>(e, mnk, mxk, mnp, mxp);
      cuda::check_launch(op);
    }
    extrema_finish_kernel<T><<<grid(ns), kThreads, 0, s>>>(ns, mnk, mxk, mnp, mxp, mins.ptr<T>(), maxs.ptr<T>(),
                                                           minpos.ptr<int64_t>(), maxpos.ptr<int64_t>());
    cuda::check_launch(op);
  });
}

void histogram_cuda(const View& in, const View& slots, std::span<const double> edges, const View& hist,
                    StreamHandle stream) {
  const char* op = "measure_histogram";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  cuda::Scratch scratch(edges.size() * sizeof(double), s, op);
  // pageable source: staged before cudaMemcpyAsync returns
  cuda::check(cudaMemcpyAsync(scratch.get<double>(), edges.data(), edges.size() * sizeof(double),
                              cudaMemcpyHostToDevice, s), op);
  const size_t shmem = hist.size() <= kSharedBins ? size_t(hist.size()) * sizeof(unsigned) : 0;
  dispatch_dtype(in.dtype, [&]<class T>() {
    histogram_kernel<T><<<grid(in.size()), kThreads, shmem, s>>>(elements<T>(in, slots, hist.shape[0]),
                                                             scratch.get<double>(),
                                                             hist.shape[1],
                                                             double(hist.shape[1]) / (edges.back() - edges.front()),
                                                             reinterpret_cast<ull*>(hist.data));
    cuda::check_launch(op);
  });
}

}  // namespace ndimg::measure
