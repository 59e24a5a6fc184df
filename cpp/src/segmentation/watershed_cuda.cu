// CUDA schedule of the watershed (watershed.hpp): scikit-image's plain flooding, label for label, level by
// level on the device. An element is labelled by the first of its neighbours to leave scikit-image's queue,
// which orders its entries by (value, age). At one level L the entries of value L leave by age, then, breadth
// first, every element they reach at or below L (entered with value L and a larger age than any before). So:
//   - the entries waiting above the current level sit in one bucket per distinct value (the buckets laid out
//     by a sort of the values), each with its age; a level's bucket, sorted by age, is its first front;
//   - a front is taken at once, as if its entries left one after the other: each unlabelled neighbour goes to
//     the smallest (front position, neighbour number) that reaches it (an atomicMin claim, ws_math::claim),
//     takes that entry's label, and joins the next front (at or below L) or its value's bucket (above L), in
//     the order of those claims (a scan of the fronts' counts): the ages scikit-image gives.
// Markers all enter with age 0, and scikit-image's heap decides among markers of one value (its arrangement,
// which every earlier push and pop shapes). Markers of one value and one label flood the same elements in any
// order, so where no value is shared by active markers of different labels they leave here by index. Where a
// few are (a float image's chance pairs), they leave by index too: the order then decides a label only where
// an element's claimers have different labels and equal chains (ws_math::chain: entries whose comparison
// falls through to the markers' order), which the fronts check; where that happens, the flooding starts again
// as where many are: the host replays scikit-image's heap up to the last such value (watershed_replay_cpu;
// that order is a sequence of single entries) and the device floods the levels above from the entries left.
//
// Images of so many distinct values that a level holds a handful of elements (a float image's; each level
// costs launches and a synchronisation) flood by regions of one flood level instead (flood_regions), exact
// where no order among entries of one level and different labels decides a label.
//
// On the host (the CPU schedule, the arrays copied there and back), as scikit-image's order is a sequence of
// single entries there too: compactness > 0 and watershed lines (an element may enter several times, each
// entry's key its own), NaN values (which order nothing), 2**31 elements or more (ages past 32 bits), and the
// images of many levels whose regions' labels would depend on that order.
#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/cuda.cuh"
#include "label/union_find.cuh"
#include "segmentation/watershed.hpp"

namespace ndimg::segmentation {
namespace {

constexpr unsigned kThreads = 256;
constexpr uint64_t kOff = ~uint64_t(0);  // the key of an element neither in the mask nor marked; a free claim

// Each element's value key (kOff: neither in the mask nor marked: on no level), whether any of those values
// is NaN, and the span [first, last] of those elements.
__global__ void survey_kernel(const double* v, const uint8_t* m, const int64_t* lab, int64_t n, uint64_t* keys,
                              unsigned* nan, unsigned long long* span) {
  unsigned long long first = kOff, last = 0;
  NDIMG_GRID_STRIDE(i, n) {
    const bool on = m[i] || lab[i];
    keys[i] = on ? ws_math::order_key(v[i]) : kOff;
    if (on) {
      if (v[i] != v[i]) *nan = 1;
      first = min(first, (unsigned long long)i);
      last = max(last, (unsigned long long)i);
    }
  }
  for (int d = 16; d > 0; d >>= 1) {
    first = min(first, __shfl_down_sync(0xffffffffu, first, d));
    last = max(last, __shfl_down_sync(0xffffffffu, last, d));
  }
  if ((threadIdx.x & 31) == 0 && first != kOff) {
    atomicMin(&span[0], first);
    atomicMax(&span[1], last);
  }
}

template <class T>
__device__ int64_t lower_bound(const T* a, int64_t count, T x) {
  int64_t lo = 0, hi = count;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Each element's level (the rank of its value among the distinct ones; -1: on none) and each level's bucket
// (its elements' place in the sorted keys: a bucket holds each of its elements once at most).
__global__ void level_kernel(const uint64_t* keys, int64_t n, const uint64_t* distinct, int64_t levels, int32_t* lvl) {
  NDIMG_GRID_STRIDE(i, n) lvl[i] = keys[i] == kOff ? -1 : int32_t(lower_bound(distinct, levels, keys[i]));
}
__global__ void bucket_kernel(const uint64_t* sorted, int64_t n, const uint64_t* distinct, int64_t levels,
                              int64_t* start) {
  NDIMG_GRID_STRIDE(l, levels + 1) start[l] = lower_bound(sorted, n, l == levels ? kOff : distinct[l]);
}

// The markers with an unlabelled neighbour in the mask (those whose turn can matter): (level, label) each.
__global__ void active_kernel(const int32_t* lvl, const uint8_t* m, const int64_t* lab, int64_t n,
                              const int64_t* off, int k, unsigned long long* count, int32_t* level_out,
                              int64_t* label_out) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!lab[i]) continue;
    bool active = false;
    for (int j = 0; j < k && !active; ++j) active = m[i + off[j]] && !lab[i + off[j]];
    if (!active) continue;
    const unsigned long long q = atomicAdd(count, 1ull);
    level_out[q] = lvl[i];
    label_out[q] = lab[i];
  }
}

// The markers into their buckets, their age their index (below every later age), their chains their levels'.
__global__ void markers_kernel(const int64_t* lab, const int32_t* lvl, int64_t n, const int64_t* start,
                               unsigned* fill, int32_t* bidx, uint32_t* bage, uint64_t* chain) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!lab[i]) continue;
    const int32_t l = lvl[i];
    const int64_t q = start[l] + atomicAdd(&fill[l], 1u);
    bidx[q] = int32_t(i);
    bage[q] = uint32_t(i);
    chain[i] = ws_math::chain(0, l, 0);
  }
}

// The entries the host's replay left (element, age) into their buckets.
__global__ void entries_kernel(const int32_t* idx, const uint32_t* age, int64_t count, const int32_t* lvl,
                               const int64_t* start, unsigned* fill, int32_t* bidx, uint32_t* bage) {
  NDIMG_GRID_STRIDE(e, count) {
    const int32_t l = lvl[idx[e]];
    const int64_t q = start[l] + atomicAdd(&fill[l], 1u);
    bidx[q] = idx[e];
    bage[q] = age[e];
  }
}

// A front of m entries, (position, neighbour) pairs a thread each: every unlabelled neighbour in the mask keeps
// the smallest claim on it.
__global__ void claim_kernel(const int32_t* front, int64_t m, const int64_t* off, int k, const uint8_t* mask,
                             const int64_t* lab, unsigned long long* claim) {
  NDIMG_GRID_STRIDE(t, m * k) {
    const int64_t r = t / k;
    const int j = int(t - r * k);
    const int64_t nb = front[r] + off[j];
    if (mask[nb] && !lab[nb]) atomicMin(&claim[nb], (unsigned long long)ws_math::claim(r, j, k));
  }
}

// What each entry of the front won: those at or below the level (low 32 bits) and above it (high 32 bits);
// wins[m] = 0, so that the exclusive scan's last element holds the totals. With `check`, flags an element
// whose claimers include one of another label with an equal chain (the markers' order may decide it).
__global__ void count_kernel(const int32_t* front, int64_t m, const int64_t* off, int k,
                             const unsigned long long* claim, const int32_t* lvl, int32_t level, uint64_t* wins,
                             bool check, const int64_t* lab, const uint64_t* chain, unsigned* undecided) {
  NDIMG_GRID_STRIDE(r, m + 1) {
    uint64_t w = 0;
    if (r < m) {
      const int64_t idx = front[r];
      for (int j = 0; j < k; ++j) {
        const int64_t nb = idx + off[j];
        const unsigned long long c = claim[nb];
        if (c == ws_math::claim(r, j, k)) {
          w += lvl[nb] <= level ? 1 : uint64_t(1) << 32;
        } else if (check && c != kOff) {
          const int64_t winner = front[c / k];
          if (chain[winner] == chain[idx] && lab[winner] != lab[idx]) *undecided = 1;
        }
      }
    }
    wins[r] = w;
  }
}

// The winners take their entry's label and go, in claim order, to the next front (layer `wave` + 1) or to
// their level's bucket with the next ages from age0 (a loser reads its own claim nowhere: the winner's or
// kOff).
__global__ void scatter_kernel(const int32_t* front, int64_t m, const int64_t* off, int k, unsigned long long* claim,
                               const int32_t* lvl, int32_t level, int64_t wave, const uint64_t* pos, int64_t* lab,
                               uint64_t* chain, int32_t* next, const int64_t* start, unsigned* fill, int32_t* bidx,
                               uint32_t* bage, uint32_t age0) {
  NDIMG_GRID_STRIDE(r, m) {
    const int64_t idx = front[r];
    const int64_t label = lab[idx];
    const uint64_t from = chain[idx];
    uint32_t stay = uint32_t(pos[r]), rise = uint32_t(pos[r] >> 32);
    for (int j = 0; j < k; ++j) {
      const int64_t nb = idx + off[j];
      if (claim[nb] != ws_math::claim(r, j, k)) continue;
      claim[nb] = kOff;
      lab[nb] = label;
      const int32_t l = lvl[nb];
      if (l <= level) {
        chain[nb] = ws_math::chain(from, level, wave + 1);
        next[stay++] = int32_t(nb);
      } else {
        chain[nb] = ws_math::chain(from, l, 0);
        const int64_t q = start[l] + atomicAdd(&fill[l], 1u);
        bidx[q] = int32_t(nb);
        bage[q] = age0 + rise++;
      }
    }
  }
}

// ---- images of many levels: the flood levels, then the labels region by region (flood_regions) ----

// The flood level of an element (the value of its entry in scikit-image's queue): a marker's is its value,
// every other's the larger of its value and its lowest pusher's level (kOff: never reached). The markers make
// the first front.
__global__ void start_levels_kernel(const uint64_t* keys, const int64_t* lab, int64_t n, uint64_t* val,
                                    uint8_t* dirty, unsigned* queued) {
  NDIMG_GRID_STRIDE(i, n) {
    val[i] = lab[i] ? keys[i] : kOff;
    dirty[i] = lab[i] != 0;
    queued[i] = 0;
  }
}
// The elements whose level went down, below `hi`, into a front (in any order: the levels are the relaxation's
// fixed point whatever its order).
__global__ void gather_kernel(const uint64_t* val, uint8_t* dirty, int64_t n, uint64_t hi, int32_t* front,
                              unsigned long long* count) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!dirty[i] || val[i] >= hi) continue;
    dirty[i] = 0;
    front[atomicAdd(count, 1ull)] = int32_t(i);
  }
}
// (before a front relaxes: an element lowered while it does joins the next front again). The fronts' sizes
// stay on the device (*m), so that waves run without the host waiting on each.
__global__ void unqueue_kernel(const int32_t* front, const unsigned long long* m, unsigned* queued) {
  NDIMG_GRID_STRIDE(t, int64_t(*m)) queued[front[t]] = 0;
}
// A front lowers its neighbours' levels: those that go down below `hi` join the next front (once), the others
// wait (dirty) for their level's range.
__global__ void relax_kernel(const int32_t* front, const unsigned long long* m, const int64_t* off, int k,
                             const uint8_t* mask, const int64_t* lab, const uint64_t* keys, uint64_t* val, uint64_t hi,
                             unsigned* queued, uint8_t* dirty, int32_t* next, unsigned long long* count) {
  NDIMG_GRID_STRIDE(t, int64_t(*m) * k) {
    const int64_t r = t / k;
    const int64_t x = front[r];
    const int64_t nb = x + off[t - r * k];
    if (!mask[nb] || lab[nb]) continue;
    const unsigned long long level = max(keys[nb], *(volatile const uint64_t*)&val[x]);
    if (level >= atomicMin((unsigned long long*)&val[nb], level)) continue;
    if (level >= hi) dirty[nb] = 1;
    else if (!atomicExch(&queued[nb], 1u)) next[atomicAdd(count, 1ull)] = int32_t(nb);
  }
}

// The regions: elements reached, joined to a neighbour of the same level (each element's set starts alone).
__global__ void region_start_kernel(const uint64_t* val, int64_t n, int32_t* parent) {
  NDIMG_GRID_STRIDE(i, n) parent[i] = int32_t(i);
}
__global__ void region_join_kernel(const uint64_t* val, int64_t n, const int64_t* off, int k, int32_t* parent) {
  NDIMG_GRID_STRIDE(i, n) {
    const uint64_t v = val[i];
    if (v == kOff) continue;
    for (int j = 0; j < k; ++j)
      if (val[i + off[j]] == v) label::unite(parent, int32_t(i), int32_t(i + off[j]));
  }
}
__global__ void region_root_kernel(const uint64_t* val, int64_t n, int32_t* parent) {
  NDIMG_GRID_STRIDE(i, n) if (val[i] != kOff) parent[i] = label::find_root(parent, int32_t(i));
}
// An element's lowest pusher level (the element x - offset pushes x), kOff where none was reached.
__device__ uint64_t lowest_pusher(const uint64_t* val, int64_t i, const int64_t* off, int k) {
  uint64_t low = kOff;
  for (int j = 0; j < k; ++j) low = min(low, val[i - off[j]]);
  return low;
}
// Each region's source: a region entered from below points to the region of one of its entrances' lowest
// pushers (a lower level), a region holding a marker to itself, with the marker's label (written after the
// others, so that it wins).
__global__ void region_source_kernel(const uint64_t* val, const int64_t* lab, int64_t n, const int64_t* off, int k,
                                     const int32_t* root, int32_t* source) {
  NDIMG_GRID_STRIDE(i, n) {
    const uint64_t v = val[i];
    if (v == kOff || lab[i]) continue;
    const uint64_t low = lowest_pusher(val, i, off, k);
    if (low >= v) continue;
    for (int j = 0; j < k; ++j)
      if (val[i - off[j]] == low) {
        source[root[i]] = root[i - off[j]];
        break;
      }
  }
}
__global__ void region_marker_kernel(const int64_t* lab, int64_t n, const int32_t* root, int32_t* source,
                                     int64_t* region_label) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!lab[i]) continue;
    source[root[i]] = root[i];
    region_label[root[i]] = lab[i];
  }
}
// Pointer jumping: each region's source moves to its source's source until it is a marker's region.
__global__ void jump_kernel(const uint64_t* val, const int32_t* root, int64_t n, int32_t* source, unsigned* moved) {
  NDIMG_GRID_STRIDE(i, n) {
    if (val[i] == kOff || root[i] != i) continue;
    const int32_t s = source[i];
    if (s < 0) continue;
    const int32_t t = source[s];
    if (t != s) {
      source[i] = t;
      *moved = 1;
    }
  }
}
// Every element reached takes its region's label (into out, a copy of the markers); `wrong` where a region
// had no source.
__global__ void region_label_kernel(const uint64_t* val, const int64_t* lab, int64_t n, const int32_t* root,
                                    const int32_t* source, const int64_t* region_label, int64_t* out,
                                    unsigned* wrong) {
  NDIMG_GRID_STRIDE(i, n) {
    if (val[i] == kOff || lab[i]) continue;
    const int32_t s = source[root[i]];
    if (s < 0 || source[s] != s) *wrong = 1;
    else out[i] = region_label[s];
  }
}
// `wrong` where an element's lowest pushers do not all have its label (their order would decide it).
__global__ void pushers_check_kernel(const uint64_t* val, const int64_t* lab, int64_t n, const int64_t* off, int k,
                                     const int64_t* out, unsigned* wrong) {
  NDIMG_GRID_STRIDE(i, n) {
    if (val[i] == kOff || lab[i]) continue;
    const uint64_t low = lowest_pusher(val, i, off, k);
    for (int j = 0; j < k; ++j)
      if (val[i - off[j]] == low && out[i - off[j]] != out[i]) *wrong = 1;
  }
}

// The levels' range bounds: `count` ranges of about as many distinct values each, the last one open.
__global__ void bounds_kernel(const uint64_t* distinct, int64_t levels, int64_t count, uint64_t* bounds) {
  NDIMG_GRID_STRIDE(b, count) bounds[b] = b == count - 1 ? kOff : distinct[(b + 1) * levels / count];
}

template <class T>
void to_host(T* dst, const void* src, size_t count, cudaStream_t s, const char* op) {
  cuda::check(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
}

View on_cpu(View x, void* data) {
  x.data = data;
  x.device = Device::CPU;
  x.device_id = 0;
  return x;
}

// The arrays copied to the host (the labels and mask copied back by back()).
struct HostCopy {
  std::vector<double> v;
  std::vector<uint8_t> m;
  std::vector<int64_t> lab;
  View image, mask, labels;
  HostCopy(const View& image_, const View& mask_, const View& labels_, cudaStream_t s, const char* op)
      : v(size_t(image_.size())), m(v.size()), lab(v.size()) {
    cuda::check(cudaMemcpyAsync(v.data(), image_.data, v.size() * sizeof(double), cudaMemcpyDeviceToHost, s), op);
    cuda::check(cudaMemcpyAsync(m.data(), mask_.data, m.size(), cudaMemcpyDeviceToHost, s), op);
    to_host(lab.data(), labels_.data, lab.size(), s, op);
    image = on_cpu(image_, v.data());
    mask = on_cpu(mask_, m.data());
    labels = on_cpu(labels_, lab.data());
  }
  void back(const View& mask_, const View& labels_, cudaStream_t s, const char* op) {
    cuda::check(cudaMemcpyAsync(labels_.data, lab.data(), lab.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s),
                op);
    cuda::check(cudaMemcpyAsync(mask_.data, m.data(), m.size(), cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaStreamSynchronize(s), op);  // the host vectors go out of scope
  }
};

// The CPU schedule over host copies of the arrays.
void on_host(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
             double compactness, bool watershed_line, cudaStream_t s, const char* op) {
  HostCopy h(image, mask, labels, s, op);
  watershed_cpu(h.image, h.mask, h.labels, offsets, compactness, watershed_line);
  h.back(mask, labels, s, op);
}

// Temporary storage for CUB's sort, unique and scan, sized once for the largest call.
struct CubTemp {
  size_t bytes = 0;
  void grow(size_t b) { bytes = std::max(bytes, b); }
};

// Images of many levels, where the level by level flooding would take launches per value. Each element's
// flood level (its entry's value: a marker's value, else the larger of its value and its lowest pusher's
// level, x - offset pushing x) is the fixed point of a relaxation, whatever its order: computed by fronts over
// ranges of levels. scikit-image labels an element from the first of its pushers to leave, one of its lowest
// (the queue orders by level first); where those all have one label (each theirs by the same argument,
// earlier in scikit-image's order), the element has it whatever their order. The labels to check come from
// regions of one level (joined through neighbours of that level: scikit-image floods one from its entrances,
// elements with a pusher below, and markers): each region takes the label one of its entrances' lowest
// pushers leads to (pointer jumping down to a marker's region). They stand where every element's lowest
// pushers share its label; returns whether they did (nothing written if not).
bool flood_regions(const uint64_t* keys, const uint64_t* distinct, int64_t levels, const uint8_t* m, int64_t* lab,
                   int64_t n, const int64_t* off, int k, cudaStream_t s, const char* op) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  const int64_t ranges = std::min<int64_t>(levels, 1024);
  std::vector<uint64_t> bounds(static_cast<size_t>(ranges));
  {
    cuda::Scratch b(size_t(ranges) * sizeof(uint64_t), s, op);
    bounds_kernel<<<cuda::blocks_for(ranges, kThreads), kThreads, 0, s>>>(distinct, levels, ranges, b.get<uint64_t>());
    cuda::check_launch(op);
    to_host(bounds.data(), b.get<void>(), bounds.size(), s, op);
  }
  cuda::Scratch val(size_t(n) * sizeof(uint64_t), s, op), dirty(size_t(n), s, op),
      queued(size_t(n) * sizeof(unsigned), s, op), fa(size_t(n) * sizeof(int32_t), s, op),
      fb(size_t(n) * sizeof(int32_t), s, op), counts(2 * sizeof(unsigned long long), s, op);
  start_levels_kernel<<<blocks, kThreads, 0, s>>>(keys, lab, n, val.get<uint64_t>(), dirty.get<uint8_t>(),
                                                  queued.get<unsigned>());
  cuda::check_launch(op);
  // waves launched over a grid that fills the device, a few between looks at the front's size
  constexpr int kWaves = 8;
  int device = 0, sms = 0;
  cuda::check(cudaGetDevice(&device), op);
  cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), op);
  const unsigned full = unsigned(std::max(sms, 1)) * 8;
  unsigned long long* count = counts.get<unsigned long long>();
  for (const uint64_t hi : bounds) {
    int32_t* cur = fa.get<int32_t>();
    int32_t* nxt = fb.get<int32_t>();
    int c = 0;
    cuda::check(cudaMemsetAsync(count, 0, sizeof(unsigned long long), s), op);
    gather_kernel<<<blocks, kThreads, 0, s>>>(val.get<uint64_t>(), dirty.get<uint8_t>(), n, hi, cur, count);
    cuda::check_launch(op);
    for (unsigned long long left = 1; left;) {
      for (int w = 0; w < kWaves; ++w, c ^= 1) {
        unqueue_kernel<<<full, kThreads, 0, s>>>(cur, count + c, queued.get<unsigned>());
        cuda::check_launch(op);
        cuda::check(cudaMemsetAsync(count + (c ^ 1), 0, sizeof(unsigned long long), s), op);
        relax_kernel<<<full, kThreads, 0, s>>>(cur, count + c, off, k, m, lab, keys, val.get<uint64_t>(), hi,
                                               queued.get<unsigned>(), dirty.get<uint8_t>(), nxt, count + (c ^ 1));
        cuda::check_launch(op);
        std::swap(cur, nxt);
      }
      to_host(&left, count + c, 1, s, op);
    }
  }
  // the regions (parent: a root per element reached), their sources and labels
  cuda::Scratch parent(size_t(n) * sizeof(int32_t), s, op), source(size_t(n) * sizeof(int32_t), s, op),
      region_label(size_t(n) * sizeof(int64_t), s, op), out(size_t(n) * sizeof(int64_t), s, op),
      flag(sizeof(unsigned), s, op);
  const uint64_t* lv = val.get<uint64_t>();
  int32_t* root = parent.get<int32_t>();
  region_start_kernel<<<blocks, kThreads, 0, s>>>(lv, n, root);
  cuda::check_launch(op);
  region_join_kernel<<<blocks, kThreads, 0, s>>>(lv, n, off, k, root);
  cuda::check_launch(op);
  region_root_kernel<<<blocks, kThreads, 0, s>>>(lv, n, root);
  cuda::check_launch(op);
  cuda::check(cudaMemsetAsync(source.get<void>(), 0xff, size_t(n) * sizeof(int32_t), s), op);
  region_source_kernel<<<blocks, kThreads, 0, s>>>(lv, lab, n, off, k, root, source.get<int32_t>());
  cuda::check_launch(op);
  region_marker_kernel<<<blocks, kThreads, 0, s>>>(lab, n, root, source.get<int32_t>(), region_label.get<int64_t>());
  cuda::check_launch(op);
  for (unsigned moved = 1; moved;) {
    cuda::check(cudaMemsetAsync(flag.get<void>(), 0, sizeof(unsigned), s), op);
    jump_kernel<<<blocks, kThreads, 0, s>>>(lv, root, n, source.get<int32_t>(), flag.get<unsigned>());
    cuda::check_launch(op);
    to_host(&moved, flag.get<void>(), 1, s, op);
  }
  cuda::check(cudaMemcpyAsync(out.get<void>(), lab, size_t(n) * sizeof(int64_t), cudaMemcpyDeviceToDevice, s), op);
  cuda::check(cudaMemsetAsync(flag.get<void>(), 0, sizeof(unsigned), s), op);
  region_label_kernel<<<blocks, kThreads, 0, s>>>(lv, lab, n, root, source.get<int32_t>(),
                                                  region_label.get<int64_t>(), out.get<int64_t>(), flag.get<unsigned>());
  cuda::check_launch(op);
  pushers_check_kernel<<<blocks, kThreads, 0, s>>>(lv, lab, n, off, k, out.get<int64_t>(), flag.get<unsigned>());
  cuda::check_launch(op);
  unsigned wrong = 0;
  to_host(&wrong, flag.get<void>(), 1, s, op);
  if (wrong) return false;
  cuda::check(cudaMemcpyAsync(lab, out.get<void>(), size_t(n) * sizeof(int64_t), cudaMemcpyDeviceToDevice, s), op);
  return true;
}

// Whether markers of different labels share a level (among those whose turn can matter), and how many such
// markers there are and active markers in all.
struct Ties {
  bool any = false;
  int64_t tied = 0, active = 0;
};
Ties tied_markers(const int32_t* lvl, const uint8_t* m, const int64_t* lab, int64_t n, const int64_t* off, int k,
                  unsigned blocks, cudaStream_t s, const char* op) {
  cuda::Scratch count(sizeof(unsigned long long), s, op), levels(size_t(n) * sizeof(int32_t), s, op),
      labels(size_t(n) * sizeof(int64_t), s, op);
  cuda::check(cudaMemsetAsync(count.get<void>(), 0, sizeof(unsigned long long), s), op);
  active_kernel<<<blocks, kThreads, 0, s>>>(lvl, m, lab, n, off, k, count.get<unsigned long long>(),
                                            levels.get<int32_t>(), labels.get<int64_t>());
  cuda::check_launch(op);
  unsigned long long active = 0;
  to_host(&active, count.get<void>(), 1, s, op);
  std::vector<std::pair<int32_t, int64_t>> marks(active);
  std::vector<int32_t> hl(active);
  std::vector<int64_t> hb(active);
  if (active) {
    cuda::check(cudaMemcpyAsync(hl.data(), levels.get<void>(), active * sizeof(int32_t), cudaMemcpyDeviceToHost, s), op);
    to_host(hb.data(), labels.get<void>(), active, s, op);
  }
  for (size_t i = 0; i < active; ++i) marks[i] = {hl[i], hb[i]};
  std::sort(marks.begin(), marks.end());
  Ties t;
  t.active = int64_t(active);
  for (size_t a = 0, b; a < marks.size(); a = b) {
    for (b = a + 1; b < marks.size() && marks[b].first == marks[a].first; ++b) {
    }
    if (marks[b - 1].second == marks[a].second) continue;  // (sorted: one label throughout)
    t.any = true;
    t.tied += int64_t(b - a);
  }
  return t;
}

}  // namespace

void watershed_cuda(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
                    double compactness, bool watershed_line, StreamHandle stream) {
  const char* op = "watershed";
  cuda::DeviceGuard guard(image.device_id, op);
  const auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = image.size();
  const int k = int(offsets.size());
  const double* v = image.ptr<double>();
  const uint8_t* m = mask.ptr<uint8_t>();
  int64_t* lab = labels.ptr<int64_t>();
  const unsigned blocks = cuda::blocks_for(n, kThreads);

  // the values' keys, NaN, and the span of the flooded elements (checked as the entry checks the host's)
  std::optional<cuda::Scratch> value_keys;  // (freed, with the sorted keys, before the flooding's arrays)
  value_keys.emplace(size_t(n) * sizeof(uint64_t), s, op);
  const cuda::Scratch& keys = *value_keys;
  cuda::Scratch flags(sizeof(unsigned), s, op), span(2 * sizeof(unsigned long long), s, op);
  cuda::check(cudaMemsetAsync(flags.get<void>(), 0, sizeof(unsigned), s), op);
  const unsigned long long span0[2] = {kOff, 0};
  cuda::check(cudaMemcpyAsync(span.get<void>(), span0, sizeof span0, cudaMemcpyHostToDevice, s), op);
  survey_kernel<<<std::min(blocks, 4096u), kThreads, 0, s>>>(v, m, lab, n, keys.get<uint64_t>(), flags.get<unsigned>(),
                                                             span.get<unsigned long long>());
  cuda::check_launch(op);
  unsigned long long hspan[2];
  unsigned nan = 0;
  cuda::check(cudaMemcpyAsync(&nan, flags.get<void>(), sizeof nan, cudaMemcpyDeviceToHost, s), op);
  to_host(hspan, span.get<void>(), 2, s, op);
  if (hspan[0] == kOff) return;  // nothing in the mask nor marked
  require_reach(int64_t(hspan[0]), int64_t(hspan[1]), n, offsets);
  if (compactness > 0 || watershed_line || nan || n >= INT32_MAX - 1 || k == 0) {
    on_host(image, mask, labels, offsets, compactness, watershed_line, s, op);
    return;
  }

  // the distinct values (sorted keys, then unique): the levels
  CubTemp temp;
  size_t b = 0;
  std::optional<cuda::Scratch> sorted_keys, distinct_keys;
  sorted_keys.emplace(size_t(n) * sizeof(uint64_t), s, op);
  distinct_keys.emplace(size_t(n) * sizeof(uint64_t), s, op);
  const cuda::Scratch &sorted = *sorted_keys, &distinct = *distinct_keys;
  cuda::Scratch count(sizeof(int64_t), s, op);
  cuda::check(cub::DeviceRadixSort::SortKeys(nullptr, b, keys.get<uint64_t>(), sorted.get<uint64_t>(), n, 0, 64, s), op);
  temp.grow(b);
  cuda::check(cub::DeviceSelect::Unique(nullptr, b, sorted.get<uint64_t>(), distinct.get<uint64_t>(),
                                        count.get<int64_t>(), n, s),
              op);
  temp.grow(b);
  cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, b, static_cast<uint32_t*>(nullptr),
                                              static_cast<uint32_t*>(nullptr), static_cast<int32_t*>(nullptr),
                                              static_cast<int32_t*>(nullptr), n, 0, 32, s),
              op);
  temp.grow(b);
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, b, static_cast<uint64_t*>(nullptr),
                                            static_cast<uint64_t*>(nullptr), n + 1, s),
              op);
  temp.grow(b);
  cuda::Scratch work(temp.bytes, s, op);
  b = temp.bytes;
  cuda::check(cub::DeviceRadixSort::SortKeys(work.get<void>(), b, keys.get<uint64_t>(), sorted.get<uint64_t>(), n, 0,
                                             64, s),
              op);
  b = temp.bytes;
  cuda::check(cub::DeviceSelect::Unique(work.get<void>(), b, sorted.get<uint64_t>(), distinct.get<uint64_t>(),
                                        count.get<int64_t>(), n, s),
              op);
  int64_t levels = 0;
  to_host(&levels, count.get<void>(), 1, s, op);
  uint64_t top = 0;
  to_host(&top, distinct.get<uint64_t>() + levels - 1, 1, s, op);
  if (top == kOff) --levels;  // (the elements on no level sort last)
  // a level costs a few launches and a synchronisation: where levels hold a handful of elements each (a float
  // image's values), the host's queue floods faster
  cuda::Scratch off(size_t(k) * sizeof(int64_t), s, op);
  cuda::check(cudaMemcpyAsync(off.get<void>(), offsets.data(), size_t(k) * sizeof(int64_t), cudaMemcpyHostToDevice, s),
              op);
  if (levels > std::max<int64_t>(int64_t(1) << 12, n >> 10)) {
    if (!flood_regions(keys.get<uint64_t>(), distinct.get<uint64_t>(), levels, m, lab, n, off.get<int64_t>(), k, s, op))
      on_host(image, mask, labels, offsets, compactness, watershed_line, s, op);
    return;
  }
  cuda::Scratch lvl(size_t(n) * sizeof(int32_t), s, op), start(size_t(levels + 1) * sizeof(int64_t), s, op),
      fill(size_t(levels) * sizeof(unsigned), s, op);
  level_kernel<<<blocks, kThreads, 0, s>>>(keys.get<uint64_t>(), n, distinct.get<uint64_t>(), levels,
                                           lvl.get<int32_t>());
  cuda::check_launch(op);
  bucket_kernel<<<cuda::blocks_for(levels + 1, kThreads), kThreads, 0, s>>>(sorted.get<uint64_t>(), n,
                                                                             distinct.get<uint64_t>(), levels,
                                                                             start.get<int64_t>());
  cuda::check_launch(op);
  std::vector<int64_t> hstart(size_t(levels + 1));
  to_host(hstart.data(), start.get<void>(), hstart.size(), s, op);
  value_keys.reset();
  sorted_keys.reset();
  distinct_keys.reset();

  // the buckets (index, age), the fronts, the claims, the counts and the chains
  cuda::Scratch bidx(size_t(n) * sizeof(int32_t), s, op), bage(size_t(n) * sizeof(uint32_t), s, op),
      sorted_age(size_t(n) * sizeof(uint32_t), s, op), front(size_t(n) * sizeof(int32_t), s, op),
      next(size_t(n) * sizeof(int32_t), s, op), chain(size_t(n) * sizeof(uint64_t), s, op),
      claim(size_t(n) * sizeof(unsigned long long), s, op), wins(size_t(n + 1) * sizeof(uint64_t), s, op),
      pos(size_t(n + 1) * sizeof(uint64_t), s, op);
  cuda::check(cudaMemsetAsync(claim.get<void>(), 0xff, size_t(n) * sizeof(unsigned long long), s), op);
  const int age_bits = std::bit_width(uint64_t(2 * n));  // ages below n + n

  // Floods the levels from the buckets, the next age `age`; with `check`, returns whether the markers' order
  // may have decided a label (the labels then stand unfinished).
  auto flood = [&](uint32_t age, bool check) {
    int32_t* cur = front.get<int32_t>();
    int32_t* nxt = next.get<int32_t>();
    for (int64_t level = 0; level < levels; ++level) {
      unsigned first = 0;
      to_host(&first, fill.get<unsigned>() + level, 1, s, op);
      if (!first) continue;
      // the level's first front: its bucket by age
      const int64_t at = hstart[size_t(level)];
      b = temp.bytes;
      cuda::check(cub::DeviceRadixSort::SortPairs(work.get<void>(), b, bage.get<uint32_t>() + at,
                                                  sorted_age.get<uint32_t>(), bidx.get<int32_t>() + at, cur,
                                                  int64_t(first), 0, age_bits, s),
                  op);
      for (int64_t wide = first, wave = 0; wide > 0; ++wave) {
        claim_kernel<<<cuda::blocks_for(wide * k, kThreads), kThreads, 0, s>>>(cur, wide, off.get<int64_t>(), k, m,
                                                                                lab, claim.get<unsigned long long>());
        cuda::check_launch(op);
        count_kernel<<<cuda::blocks_for(wide + 1, kThreads), kThreads, 0, s>>>(
            cur, wide, off.get<int64_t>(), k, claim.get<unsigned long long>(), lvl.get<int32_t>(), int32_t(level),
            wins.get<uint64_t>(), check, lab, chain.get<uint64_t>(), flags.get<unsigned>());
        cuda::check_launch(op);
        b = temp.bytes;
        cuda::check(cub::DeviceScan::ExclusiveSum(work.get<void>(), b, wins.get<uint64_t>(), pos.get<uint64_t>(),
                                                  wide + 1, s),
                    op);
        scatter_kernel<<<cuda::blocks_for(wide, kThreads), kThreads, 0, s>>>(
            cur, wide, off.get<int64_t>(), k, claim.get<unsigned long long>(), lvl.get<int32_t>(), int32_t(level),
            wave, pos.get<uint64_t>(), lab, chain.get<uint64_t>(), nxt, start.get<int64_t>(), fill.get<unsigned>(),
            bidx.get<int32_t>(), bage.get<uint32_t>(), age);
        cuda::check_launch(op);
        uint64_t total = 0;
        if (check) {
          unsigned undecided = 0;
          cuda::check(cudaMemcpyAsync(&undecided, flags.get<void>(), sizeof undecided, cudaMemcpyDeviceToHost, s), op);
          to_host(&total, pos.get<uint64_t>() + wide, 1, s, op);
          if (undecided) return true;
        } else {
          to_host(&total, pos.get<uint64_t>() + wide, 1, s, op);
        }
        age += uint32_t(total >> 32);
        wide = int64_t(uint32_t(total));
        std::swap(cur, nxt);
      }
    }
    return false;
  };

  const Ties ties = tied_markers(lvl.get<int32_t>(), m, lab, n, off.get<int64_t>(), k, blocks, s, op);
  // a few tied markers among many: by index, kept where their order decided nothing (as watershed_cpu.cpp)
  const bool by_index = !ties.any || ties.tied <= std::max<int64_t>(16, ties.active / 64);
  std::optional<cuda::Scratch> markers;  // the markers, to start again from
  if (by_index) {
    if (ties.any) {
      markers.emplace(size_t(n) * sizeof(int64_t), s, op);
      cuda::check(cudaMemcpyAsync(markers->get<void>(), lab, size_t(n) * sizeof(int64_t), cudaMemcpyDeviceToDevice, s),
                  op);
    }
    cuda::check(cudaMemsetAsync(fill.get<void>(), 0, size_t(levels) * sizeof(unsigned), s), op);
    cuda::check(cudaMemsetAsync(flags.get<void>(), 0, sizeof(unsigned), s), op);
    markers_kernel<<<blocks, kThreads, 0, s>>>(lab, lvl.get<int32_t>(), n, start.get<int64_t>(), fill.get<unsigned>(),
                                               bidx.get<int32_t>(), bage.get<uint32_t>(), chain.get<uint64_t>());
    cuda::check_launch(op);
    if (!flood(uint32_t(n), ties.any)) return;
    // (the check follows a front's scatter: every claim is taken back)
    cuda::check(cudaMemcpyAsync(lab, markers->get<void>(), size_t(n) * sizeof(int64_t), cudaMemcpyDeviceToDevice, s),
                op);
  }
  // scikit-image's heap on the host while markers of different labels share a value still to come, then the
  // levels above from the entries it left
  std::vector<std::pair<int32_t, uint32_t>> left;
  uint32_t age;
  {
    HostCopy h(image, mask, labels, s, op);
    age = uint32_t(watershed_replay_cpu(h.image, h.mask, h.labels, offsets, left));
    cuda::check(cudaMemcpyAsync(lab, h.lab.data(), size_t(n) * sizeof(int64_t), cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaStreamSynchronize(s), op);
  }
  const int64_t count_left = int64_t(left.size());
  cuda::check(cudaMemsetAsync(fill.get<void>(), 0, size_t(levels) * sizeof(unsigned), s), op);
  if (count_left) {
    std::vector<int32_t> li(left.size());
    std::vector<uint32_t> la(left.size());
    for (size_t e = 0; e < left.size(); ++e) std::tie(li[e], la[e]) = left[e];
    cuda::Scratch di(li.size() * sizeof(int32_t), s, op), da(la.size() * sizeof(uint32_t), s, op);
    cuda::check(cudaMemcpyAsync(di.get<void>(), li.data(), li.size() * sizeof(int32_t), cudaMemcpyHostToDevice, s), op);
    cuda::check(cudaMemcpyAsync(da.get<void>(), la.data(), la.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, s), op);
    entries_kernel<<<cuda::blocks_for(count_left, kThreads), kThreads, 0, s>>>(
        di.get<int32_t>(), da.get<uint32_t>(), count_left, lvl.get<int32_t>(), start.get<int64_t>(),
        fill.get<unsigned>(), bidx.get<int32_t>(), bage.get<uint32_t>());
    cuda::check_launch(op);
    cuda::check(cudaStreamSynchronize(s), op);  // the host vectors go out of scope
  }
  flood(age, false);
}

}  // namespace ndimg::segmentation
