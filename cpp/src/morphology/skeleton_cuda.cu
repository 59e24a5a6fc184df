// CUDA schedules of the skeletons. The 2-D thinning subiterations: one thread per pixel per subiteration over
// two framed uint8 buffers, a device flag raised by the blocks that deleted a pixel, read back after each
// iteration. Lee's 3-D thinning: per border direction, one thread per voxel finds the candidates, which are
// bucketed by their wavefront 4p + 2r + c; one block rechecks them bucket after bucket (a candidate's recheck
// sees only the earlier candidates of its 3x3x3 neighbourhood, all in earlier buckets: scikit-image's serial
// C order exactly, and the candidates of one bucket are never neighbours). medial_axis's removal, serial in the
// order of (distance, background pixels of the window, tiebreak): a pixel's decision depends only on the
// earlier pixels of its window, so rounds decide every pixel whose earlier neighbours are all decided (round
// k decides the pixels whose longest chain of earlier neighbours is k long: never two neighbours at once).
#include <cub/device/device_scan.cuh>

#include "core/cuda.cuh"
#include "morphology/skeleton.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::morphology {
namespace {

constexpr unsigned kThreads = 256;

template <class T>
__global__ void load_kernel(const T* in, int64_t s0, int64_t s1, int64_t h, int64_t w, uint8_t* dst) {
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t r = i / w, c = i % w;
    dst[(r + 1) * (w + 2) + c + 1] = in[r * s0 + c * s1] != T(0);
  }
}

__global__ void store_kernel(const uint8_t* src, int64_t h, int64_t w, bool* out, int64_t s0, int64_t s1) {
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t r = i / w, c = i % w;
    out[r * s0 + c * s1] = src[(r + 1) * (w + 2) + c + 1] != 0;
  }
}

__global__ void pass_kernel(const uint8_t* cur, uint8_t* nxt, int64_t h, int64_t w, Thinning m, int sub,
                            unsigned* changed) {
  bool del = false;
  NDIMG_GRID_STRIDE(i, h * w) {
    const int64_t k = (i / w + 1) * (w + 2) + i % w + 1;
    const bool d = cur[k] && thinning_deletes(m, neighbour_code(cur + k, w + 2), sub);
    nxt[k] = cur[k] && !d;
    del |= d;
  }
  if (__syncthreads_or(del) && threadIdx.x == 0) atomicOr(changed, 1u);
}


// ---- Lee ----
__device__ const LeeEulerTable kLeeEulerDev = make_lee_euler_table();

struct LeeGeometry {
  int64_t np_, nr, nc, sp, sr;  // the framed volume
  NDIMG_HD int64_t interior() const { return (np_ - 2) * (nr - 2) * (nc - 2); }
  NDIMG_HD int64_t levels() const { return 4 * (np_ - 3) + 2 * (nr - 3) + (nc - 3) + 1; }
  // interior index i -> voxel offset and wavefront level
  NDIMG_HD void at(int64_t i, int64_t& voxel, int64_t& level) const {
    const int64_t c = i % (nc - 2), rest = i / (nc - 2), r = rest % (nr - 2), p = rest / (nr - 2);
    voxel = (p + 1) * sp + (r + 1) * sr + c + 1;
    level = 4 * p + 2 * r + c;
  }
};

__global__ void lee_count_kernel(const uint8_t* v, LeeGeometry g, unsigned long long* count) {
  unsigned long long n = 0;
  NDIMG_GRID_STRIDE(i, g.interior()) {
    int64_t voxel, level;
    g.at(i, voxel, level);
    n += v[voxel] == 1;
  }
  if (n) atomicAdd(count, n);
}

__global__ void lee_candidates_kernel(const uint8_t* v, LeeGeometry g, int64_t dir, uint8_t* candidate,
                                      unsigned long long* per_level) {
  NDIMG_GRID_STRIDE(i, g.interior()) {
    int64_t voxel, level;
    g.at(i, voxel, level);
    const bool c = v[voxel] == 1 && v[voxel + dir] == 0 &&
                   lee_deletable(lee_neighbourhood(v + voxel, g.sp, g.sr), kLeeEulerDev);
    candidate[i] = c;
    if (c) atomicAdd(per_level + level, 1ull);
  }
}

__global__ void lee_bucket_kernel(const uint8_t* candidate, LeeGeometry g, unsigned long long* cursor,
                                  int64_t* list) {
  NDIMG_GRID_STRIDE(i, g.interior()) {
    if (!candidate[i]) continue;
    int64_t voxel, level;
    g.at(i, voxel, level);
    list[atomicAdd(cursor + level, 1ull)] = voxel;
  }
}

constexpr unsigned kRecheckThreads = 1024;

// One block: the buckets in order, a barrier after each non-empty one (the bucket starts staged in shared
// memory, kRecheckThreads at a time). Counts the direction as unchanged when nothing was deleted.
__global__ void __launch_bounds__(kRecheckThreads) lee_recheck_kernel(uint8_t* v, LeeGeometry g,
                                                                      const unsigned long long* start,
                                                                      const int64_t* list, unsigned* unchanged) {
  __shared__ unsigned long long bounds[kRecheckThreads + 1];
  const int64_t nlev = g.levels();
  bool deleted = false;
  for (int64_t l0 = 0; l0 < nlev; l0 += kRecheckThreads) {
    const int64_t n = nlev - l0 < kRecheckThreads ? nlev - l0 : kRecheckThreads;
    __syncthreads();  // the previous chunk's bounds are no longer read
    for (int64_t k = threadIdx.x; k <= n; k += blockDim.x) bounds[k] = start[l0 + k];
    __syncthreads();
    for (int64_t l = 0; l < n; ++l) {
      const unsigned long long b = bounds[l], e = bounds[l + 1];
      if (b == e) continue;  // (the same for every thread)
      for (unsigned long long k = b + threadIdx.x; k < e; k += blockDim.x) {
        const int64_t voxel = list[k];
        if (lee_simple_point(lee_neighbourhood(v + voxel, g.sp, g.sr))) {
          v[voxel] = 0;
          deleted = true;
        }
      }
      __syncthreads();  // this bucket's deletions are seen by the next ones
    }
  }
  if (!__syncthreads_or(deleted) && threadIdx.x == 0) atomicAdd(unchanged, 1u);
}

// ---- medial_axis ----
__device__ const MedialTable kMedialTableDev = make_medial_table();

constexpr int32_t kUndecided = 0x7fffffff;

// Per pixel: 1 for the foreground (to be scanned into its rank among the foreground pixels in C order), the
// number of background pixels of its window.
__global__ void medial_setup_kernel(const uint8_t* img, int64_t h, int64_t w, int64_t* fg_rank, uint8_t* bg) {
  NDIMG_GRID_STRIDE(i, h * w) {
    fg_rank[i] = img[i] != 0;
    if (img[i]) bg[i] = uint8_t(9 - __popc(medial_window(img, h, w, i / w, i % w)));
  }
}

// The tiebreak of each foreground pixel (in place of its rank), its stamp undecided.
__global__ void medial_tiebreak_kernel(const uint8_t* img, int64_t n, const int64_t* tiebreak, int64_t* tie,
                                       int32_t* stamp) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!img[i]) continue;
    tie[i] = tiebreak[tie[i]];
    stamp[i] = kUndecided;
  }
}

// NumPy's lexsort((tiebreak, corner, distance)), stable: pixel a comes before pixel b.
__device__ __forceinline__ bool medial_before(const double* dist, const uint8_t* bg, const int64_t* tie, int64_t a,
                                              int64_t b) {
  if (dist[a] != dist[b]) return dist[a] < dist[b];
  if (bg[a] != bg[b]) return bg[a] < bg[b];
  if (tie[a] != tie[b]) return tie[a] < tie[b];
  return a < b;
}

// Per foreground pixel: which of its 8 neighbours (bit k of the window order, the centre skipped) are
// foreground pixels that come before it.
__global__ void medial_earlier_kernel(const uint8_t* img, int64_t h, int64_t w, const double* dist, const uint8_t* bg,
                                      const int64_t* tie, uint8_t* earlier) {
  NDIMG_GRID_STRIDE(i, h * w) {
    if (!img[i]) continue;
    const int64_t r = i / w, c = i % w;
    unsigned m = 0, bit = 0;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc) {
        if (!dr && !dc) continue;
        const int64_t j = i + dr * w + dc;
        if (r + dr >= 0 && r + dr < h && c + dc >= 0 && c + dc < w && img[j] && medial_before(dist, bg, tie, j, i))
          m |= 1u << bit;
        ++bit;
      }
    earlier[i] = uint8_t(m);
  }
}

// Round k: the undecided pixels whose earlier neighbours were all decided in rounds before k take their
// decision from the window as it is now; raises *pending while any pixel is left undecided.
__global__ void medial_round_kernel(uint8_t* img, int64_t h, int64_t w, const uint8_t* earlier, int32_t* stamp,
                                    int32_t k, unsigned* pending) {
  bool left = false;
  NDIMG_GRID_STRIDE(i, h * w) {
    if (stamp[i] != kUndecided) continue;  // (background pixels hold 0)
    const unsigned m = earlier[i];
    bool ready = true;
    unsigned bit = 0;
    for (int dr = -1; dr <= 1 && ready; ++dr)
      for (int dc = -1; dc <= 1; ++dc) {
        if (!dr && !dc) continue;
        if (m >> bit++ & 1 && stamp[i + dr * w + dc] >= k) {
          ready = false;
          break;
        }
      }
    if (ready) {
      img[i] = kMedialTableDev.keep[medial_window(img, h, w, i / w, i % w)];
      stamp[i] = k;
    } else {
      left = true;
    }
  }
  if (__syncthreads_or(left) && threadIdx.x == 0) atomicOr(pending, 1u);
}

}  // namespace

void thin2d_cuda(const View& in, const View& out, Thinning m, int64_t max_iter, StreamHandle stream) {
  const char* op = "thin";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t h = in.shape[0], w = in.shape[1], n = h * w;
  const size_t bytes = size_t((h + 2) * (w + 2));
  cuda::Scratch a(bytes, s, op), b(bytes, s, op), flag(sizeof(unsigned), s, op);
  cuda::check(cudaMemsetAsync(a.get<uint8_t>(), 0, bytes, s), op);
  cuda::check(cudaMemsetAsync(b.get<uint8_t>(), 0, bytes, s), op);
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  dispatch_dtype(in.dtype, [&]<class T>() {
    load_kernel<T><<<blocks, kThreads, 0, s>>>(in.ptr<T>(), in.strides[0], in.strides[1], h, w, a.get<uint8_t>());
  });
  cuda::check_launch(op);
  uint8_t* cur = a.get<uint8_t>();
  uint8_t* nxt = b.get<uint8_t>();
  unsigned* changed = flag.get<unsigned>();
  for (int64_t it = 0; max_iter < 0 || it < max_iter; ++it) {
    cuda::check(cudaMemsetAsync(changed, 0, sizeof(unsigned), s), op);
    for (int sub = 0; sub < 2; ++sub) {
      pass_kernel<<<blocks, kThreads, 0, s>>>(cur, nxt, h, w, m, sub, changed);
      cuda::check_launch(op);
      std::swap(cur, nxt);
    }
    unsigned host = 0;
    cuda::check(cudaMemcpyAsync(&host, changed, sizeof(unsigned), cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    if (!host) break;
  }
  store_kernel<<<blocks, kThreads, 0, s>>>(cur, h, w, out.ptr<bool>(), out.strides[0], out.strides[1]);
  cuda::check_launch(op);
}

void thin_lee_cuda(const View& img, StreamHandle stream) {
  const char* op = "skeletonize";
  cuda::DeviceGuard guard(img.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const LeeGeometry g{img.shape[0], img.shape[1], img.shape[2], img.shape[1] * img.shape[2], img.shape[2]};
  const int64_t n = g.interior(), nlev = g.levels();
  uint8_t* v = img.ptr<uint8_t>();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  // the candidates of a direction are foreground voxels: the list never holds more than there are now
  cuda::Scratch counters(2 * sizeof(unsigned long long), s, op);
  auto* fg = counters.get<unsigned long long>();
  auto* unchanged = reinterpret_cast<unsigned*>(fg + 1);
  cuda::check(cudaMemsetAsync(fg, 0, sizeof(unsigned long long), s), op);
  lee_count_kernel<<<blocks, kThreads, 0, s>>>(v, g, fg);
  cuda::check_launch(op);
  unsigned long long host_fg = 0;
  cuda::check(cudaMemcpyAsync(&host_fg, fg, sizeof(host_fg), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  if (!host_fg) return;
  cuda::Scratch candidate(size_t(n), s, op), list(size_t(host_fg) * sizeof(int64_t), s, op),
      start(size_t(nlev + 1) * sizeof(unsigned long long), s, op),
      cursor(size_t(nlev + 1) * sizeof(unsigned long long), s, op);
  auto* starts = start.get<unsigned long long>();
  auto* cursors = cursor.get<unsigned long long>();
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, cursors, starts, nlev + 1, s), op);
  cuda::Scratch temp(temp_bytes, s, op);
  const int nborders = g.np_ == 3 ? 4 : 6;
  for (;;) {
    cuda::check(cudaMemsetAsync(unchanged, 0, sizeof(unsigned), s), op);
    for (int j = 0; j < nborders; ++j) {
      cuda::check(cudaMemsetAsync(cursors, 0, size_t(nlev + 1) * sizeof(unsigned long long), s), op);
      lee_candidates_kernel<<<blocks, kThreads, 0, s>>>(v, g, lee_direction(j, g.sp, g.sr), candidate.get<uint8_t>(),
                                                        cursors);
      cuda::check_launch(op);
      cuda::check(cub::DeviceScan::ExclusiveSum(temp.get<void>(), temp_bytes, cursors, starts, nlev + 1, s), op);
      cuda::check(cudaMemcpyAsync(cursors, starts, size_t(nlev + 1) * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToDevice, s), op);
      lee_bucket_kernel<<<blocks, kThreads, 0, s>>>(candidate.get<uint8_t>(), g, cursors, list.get<int64_t>());
      cuda::check_launch(op);
      lee_recheck_kernel<<<1, kRecheckThreads, 0, s>>>(v, g, starts, list.get<int64_t>(), unchanged);
      cuda::check_launch(op);
    }
    unsigned host = 0;
    cuda::check(cudaMemcpyAsync(&host, unchanged, sizeof(unsigned), cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    if (host == unsigned(nborders)) break;
  }
}

void medial_axis_thin_cuda(const View& result, const View& distance, const View& tiebreak, StreamHandle stream) {
  const char* op = "medial_axis";
  cuda::DeviceGuard guard(result.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t h = result.shape[0], w = result.shape[1], n = h * w;
  uint8_t* img = result.ptr<uint8_t>();
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch tie(size_t(n) * sizeof(int64_t), s, op), bg(size_t(n), s, op), earlier(size_t(n), s, op),
      stamp(size_t(n) * sizeof(int32_t), s, op), flag(sizeof(unsigned), s, op);
  cuda::check(cudaMemsetAsync(stamp.get<int32_t>(), 0, size_t(n) * sizeof(int32_t), s), op);
  medial_setup_kernel<<<blocks, kThreads, 0, s>>>(img, h, w, tie.get<int64_t>(), bg.get<uint8_t>());
  cuda::check_launch(op);
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, tie.get<int64_t>(), tie.get<int64_t>(), n, s), op);
  {
    cuda::Scratch temp(temp_bytes, s, op);
    cuda::check(cub::DeviceScan::ExclusiveSum(temp.get<void>(), temp_bytes, tie.get<int64_t>(), tie.get<int64_t>(),
                                              n, s), op);
  }
  int64_t last_rank = 0;  // the foreground count: the last pixel's exclusive rank plus the pixel
  uint8_t last = 0;
  cuda::check(cudaMemcpyAsync(&last_rank, tie.get<int64_t>() + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaMemcpyAsync(&last, img + n - 1, 1, cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  if (last_rank + (last != 0) != tiebreak.shape[0]) throw ValueError("medial_axis: one tiebreak per foreground pixel");
  medial_tiebreak_kernel<<<blocks, kThreads, 0, s>>>(img, n, tiebreak.ptr<int64_t>(), tie.get<int64_t>(),
                                                     stamp.get<int32_t>());
  cuda::check_launch(op);
  medial_earlier_kernel<<<blocks, kThreads, 0, s>>>(img, h, w, distance.ptr<double>(), bg.get<uint8_t>(),
                                                    tie.get<int64_t>(), earlier.get<uint8_t>());
  cuda::check_launch(op);
  // rounds in batches between reads of the flag (rounds after the last are no-ops)
  unsigned* pending = flag.get<unsigned>();
  constexpr int kBatch = 8;
  for (int32_t k = 0;;) {
    for (int b = 0; b < kBatch; ++b, ++k) {
      if (b == kBatch - 1) cuda::check(cudaMemsetAsync(pending, 0, sizeof(unsigned), s), op);
      medial_round_kernel<<<blocks, kThreads, 0, s>>>(img, h, w, earlier.get<uint8_t>(), stamp.get<int32_t>(), k,
                                                      pending);
      cuda::check_launch(op);
    }
    unsigned host = 0;
    cuda::check(cudaMemcpyAsync(&host, pending, sizeof(unsigned), cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
    if (!host) break;
  }
}

}  // namespace ndimg::morphology
