// Reliability-sorted phase unwrapping on CUDA. On the device: the pixels' reliabilities (unwrap.hpp's math,
// each operation rounded on its own, so they equal the CPU engine's bit for bit), the edges between unmasked
// neighbours in scikit-image's creation order (an order-keeping selection), their reliabilities, a stable radix
// sort of them, and the unwrapped result. On the host: C's rand() for the first reliabilities (the process's
// generator, as scikit-image draws them), and the merge of groups along the sorted edges, which is sequential
// (each merge depends on the groups the earlier ones made). scikit-image sorts with a quicksort that is not
// stable: where reliabilities are all distinct any sort gives its order, and where some tie (constant ramps,
// flat regions) the edges are sorted on the host by that quicksort (unwrap_cpu.cpp), so ties merge in its
// order too.
#include <cfloat>
#include <cmath>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>

#include "core/cuda.cuh"
#include "restoration/unwrap.hpp"

namespace ndimg::restoration {
namespace {

using namespace unwrap_math;

constexpr unsigned kThreads = 256;
constexpr int kMaxBlocks = 6;

// the edge blocks and the index of each one's first candidate edge
struct Blocks {
  EdgeBlock block[kMaxBlocks];
  int64_t start[kMaxBlocks + 1];
  int count;
};

__global__ void reliability_kernel(const double* v, int64_t V, int64_t H, int64_t W, Region g, int64_t n,
                                   double* rel) {
  NDIMG_GRID_STRIDE(k, n) {
    const int64_t p = g.box.pixel(k, H, W);
    rel[p] = reliability(v, V, p, g);
  }
}

// every candidate edge's code, -1 where a masked pixel removes it
__global__ void candidates_kernel(const double* v, const uint8_t* m, int64_t H, int64_t W, Blocks b, int64_t n,
                                  int64_t* codes) {
  NDIMG_GRID_STRIDE(k, n) {
    int blk = 0;
    while (k >= b.start[blk + 1]) ++blk;
    const int64_t p = b.block[blk].box.pixel(k - b.start[blk], H, W), q = p + b.block[blk].delta;
    codes[k] = m[p] != 0 || m[q] != 0 ? -1 : edge_code(p, blk, edge_periods(v[p], v[q]));
  }
}

struct IsEdge {
  __host__ __device__ bool operator()(int64_t code) const { return code >= 0; }
};

__global__ void keys_kernel(const int64_t* codes, const double* rel, Blocks b, int64_t n, double* keys) {
  NDIMG_GRID_STRIDE(k, n) {
    const int64_t c = codes[k], p = code_first(c);
    keys[k] = add_rn(rel[p], rel[p + b.block[code_block(c)].delta]);
  }
}

// flags[0]: a NaN reliability; flags[1]: two equal ones (adjacent once sorted)
__global__ void flags_kernel(const double* sorted, int64_t n, int* flags) {
  NDIMG_GRID_STRIDE(k, n) {
    if (isnan(sorted[k])) flags[0] = 1;
    if (k + 1 < n && sorted[k] == sorted[k + 1]) flags[1] = 1;
  }
}

// the result before the masked pixels take the lowest one; `lows` holds the values the minimum runs over
__global__ void result_kernel(const double* v, const uint8_t* m, const int32_t* inc, int64_t V, double* u,
                              double* lows) {
  NDIMG_GRID_STRIDE(p, V) {
    const double r = add_rn(v[p], mul_rn(2 * std::numbers::pi, double(inc[p])));
    u[p] = r;
    lows[p] = m[p] != 0 ? DBL_MAX : r;
  }
}

__global__ void fill_masked_kernel(const uint8_t* m, const double* lowest, int64_t V, double* u) {
  NDIMG_GRID_STRIDE(p, V) {
    if (m[p] != 0) u[p] = *lowest;
  }
}

template <class T>
void to_host(T* dst, const T* src, int64_t n, cudaStream_t s, const char* op) {
  if (n > 0) cuda::check(cudaMemcpyAsync(dst, src, size_t(n) * sizeof(T), cudaMemcpyDeviceToHost, s), op);
}

}  // namespace

void unwrap_phase_cuda(const View& image, const View& mask, const View& out, bool wrap_z, bool wrap_y, bool wrap_x,
                       bool reseed, StreamHandle stream) {
  const char* op = "unwrap_phase";
  cuda::DeviceGuard guard(image.device_id, op);
  const auto s = static_cast<cudaStream_t>(stream);
  const bool is3d = image.ndim == 3;
  const int64_t D = is3d ? image.shape[0] : 1, H = image.shape[image.ndim - 2], W = image.shape[image.ndim - 1];
  const int64_t V = D * H * W;
  const double* v = image.ptr<double>();
  const uint8_t* m = mask.ptr<uint8_t>();
  double* u = out.ptr<double>();

  // reliabilities: rand() from the host where none is computed, the computed ones over it region by region
  // in the CPU engine's order (regions meet where a dimension is 1: the later one wins on both)
  // (host buffers of copies stay alive until a stream synchronization: a copy from pageable memory may run
  // after cudaMemcpyAsync returns)
  cuda::Scratch rel(size_t(V) * sizeof(double), s, op);
  std::vector<double> first(static_cast<size_t>(V));
  draw_reliabilities(first.data(), V, reseed);
  cuda::check(cudaMemcpyAsync(rel.get<double>(), first.data(), size_t(V) * sizeof(double), cudaMemcpyHostToDevice, s),
              op);
  for (const Region& g : reliability_regions(D, H, W, is3d, wrap_z, wrap_y, wrap_x)) {
    const int64_t n = g.box.size();
    if (n == 0) continue;
    reliability_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(v, V, H, W, g, n, rel.get<double>());
    cuda::check_launch(op);
  }

  // the edges between unmasked neighbours in creation order, and their reliabilities
  const std::vector<EdgeBlock> blocks = edge_blocks(D, H, W, wrap_z, wrap_y, wrap_x);
  Blocks b{};
  b.count = int(blocks.size());
  for (int k = 0; k < b.count; ++k) {
    b.block[k] = blocks[size_t(k)];
    b.start[k + 1] = b.start[k] + blocks[size_t(k)].box.size();
  }
  for (int k = b.count + 1; k <= kMaxBlocks; ++k) b.start[k] = b.start[b.count];
  const int64_t candidates = b.start[b.count];
  cuda::Scratch codes(size_t(candidates) * sizeof(int64_t), s, op);
  int64_t n = 0;
  if (candidates > 0) {
    cuda::Scratch all(size_t(candidates) * sizeof(int64_t), s, op), count(sizeof(int64_t), s, op);
    candidates_kernel<<<cuda::blocks_for(candidates, kThreads), kThreads, 0, s>>>(v, m, H, W, b, candidates,
                                                                                   all.get<int64_t>());
    cuda::check_launch(op);
    size_t temp_bytes = 0;
    cuda::check(cub::DeviceSelect::If(nullptr, temp_bytes, all.get<int64_t>(), codes.get<int64_t>(),
                                      count.get<int64_t>(), candidates, IsEdge{}, s),
                op);
    cuda::Scratch temp(temp_bytes, s, op);
    cuda::check(cub::DeviceSelect::If(temp.get<void>(), temp_bytes, all.get<int64_t>(), codes.get<int64_t>(),
                                      count.get<int64_t>(), candidates, IsEdge{}, s),
                op);
    to_host(&n, count.get<int64_t>(), 1, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
  }

  std::vector<int64_t> order(static_cast<size_t>(n));   // the edges' codes in merge order
  if (n > 0) {
    cuda::Scratch keys(size_t(n) * sizeof(double), s, op), sorted_keys(size_t(n) * sizeof(double), s, op),
        sorted_codes(size_t(n) * sizeof(int64_t), s, op), flags(2 * sizeof(int), s, op);
    keys_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(codes.get<int64_t>(), rel.get<double>(), b, n,
                                                                    keys.get<double>());
    cuda::check_launch(op);
    size_t temp_bytes = 0;
    cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.get<double>(), sorted_keys.get<double>(),
                                                codes.get<int64_t>(), sorted_codes.get<int64_t>(), n, 0, 64, s),
                op);
    {
      cuda::Scratch temp(temp_bytes, s, op);
      cuda::check(cub::DeviceRadixSort::SortPairs(temp.get<void>(), temp_bytes, keys.get<double>(),
                                                  sorted_keys.get<double>(), codes.get<int64_t>(),
                                                  sorted_codes.get<int64_t>(), n, 0, 64, s),
                  op);
    }
    cuda::check(cudaMemsetAsync(flags.get<int>(), 0, 2 * sizeof(int), s), op);
    flags_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(sorted_keys.get<double>(), n, flags.get<int>());
    cuda::check_launch(op);
    int found[2] = {0, 0};
    to_host(found, flags.get<int>(), 2, s, op);
    cuda::check(cudaStreamSynchronize(s), op);
    if (found[0]) refuse_nan_reliabilities();
    if (!found[1]) {
      to_host(order.data(), sorted_codes.get<int64_t>(), n, s, op);
    } else {   // ties: scikit-image's quicksort on the host decides their order
      std::vector<double> reliab(static_cast<size_t>(n));
      to_host(reliab.data(), keys.get<double>(), n, s, op);
      to_host(order.data(), codes.get<int64_t>(), n, s, op);
      cuda::check(cudaStreamSynchronize(s), op);
      std::vector<EdgeKey> edges(static_cast<size_t>(n));
      for (size_t k = 0; k < edges.size(); ++k) edges[k] = {reliab[k], order[k]};
      sort_edges(edges);
      for (size_t k = 0; k < edges.size(); ++k) order[k] = edges[k].code;
    }
    cuda::check(cudaStreamSynchronize(s), op);
  }

  const std::vector<int32_t> periods = merge_groups(V, order.size(), [&](size_t k) { return order[k]; }, blocks);
  cuda::Scratch inc(size_t(V) * sizeof(int32_t), s, op), lowest(sizeof(double), s, op);
  cuda::check(cudaMemcpyAsync(inc.get<int32_t>(), periods.data(), size_t(V) * sizeof(int32_t), cudaMemcpyHostToDevice,
                              s),
              op);
  cuda::check(cudaStreamSynchronize(s), op);
  double* lows = rel.get<double>();   // the reliabilities are spent
  result_kernel<<<cuda::blocks_for(V, kThreads), kThreads, 0, s>>>(v, m, inc.get<int32_t>(), V, u, lows);
  cuda::check_launch(op);
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceReduce::Min(nullptr, temp_bytes, lows, lowest.get<double>(), V, s), op);
  cuda::Scratch temp(temp_bytes, s, op);
  cuda::check(cub::DeviceReduce::Min(temp.get<void>(), temp_bytes, lows, lowest.get<double>(), V, s), op);
  fill_masked_kernel<<<cuda::blocks_for(V, kThreads), kThreads, 0, s>>>(m, lowest.get<double>(), V, u);
  cuda::check_launch(op);
}

}  // namespace ndimg::restoration
