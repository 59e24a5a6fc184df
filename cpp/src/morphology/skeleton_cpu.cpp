// CPU schedules of the skeletons: the 2-D subiterations over queues of the pixels that may change (a zero
// frame around the image); Lee's thinning with its candidates found in parallel over planes and rechecked serially
// in C order; the medial axis's serial removal after a radix lexsort.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "morphology/maxtree_sort.hpp"
#include "morphology/skeleton.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::morphology {

namespace {
uint64_t load8(const uint8_t* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}
// The 3 x 10 window of 8 consecutive pixels is all foreground (pixels are 0/1 bytes).
bool all_set(const uint8_t* p, int64_t w2) {
  constexpr uint64_t ones = 0x0101010101010101ull;
  return (load8(p - w2 - 1) & load8(p - w2 + 1) & load8(p - 1) & load8(p + 1) & load8(p + w2 - 1) &
          load8(p + w2 + 1)) == ones;
}
// A window as three columns of three bits (left column in bits 6-8, up/middle/down as bits 0/1/2 of a
// column), for scans that slide it along a row: the neighbour code of its centre, 0 where the centre is 0.
unsigned code_of_columns(unsigned win) {
  auto bit = [win](int k) { return win >> k & 1; };
  return bit(1) | bit(0) << 1 | bit(3) << 2 | bit(6) << 3 | bit(7) << 4 | bit(8) << 5 | bit(5) << 6 | bit(2) << 7;
}
}  // namespace

// Only pixels whose neighbourhood changed since their last test in a subiteration can change their answer
// there: once an iteration deletes few pixels, each subiteration tests a queue, the foreground neighbours of
// the pixels deleted (queued for both subiterations), instead of the whole image. Tests read the state before
// the subiteration and deletions are applied after it: the parallel rule exactly.
void thin2d_cpu(const View& in, const View& out, Thinning m, int64_t max_iter) {
  const int64_t h = in.shape[0], w = in.shape[1], w2 = w + 2;
  std::vector<uint8_t> img(size_t((h + 2) * w2), 0);
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    parallel_for(h, 64, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = 0; c < w; ++c) img[(r + 1) * w2 + c + 1] = src[r * in.strides[0] + c * in.strides[1]] != T(0);
    });
  });
  uint8_t* v = img.data();
  const int64_t around[8] = {-w2 - 1, -w2, -w2 + 1, -1, 1, w2 - 1, w2, w2 + 1};
  std::array<std::array<uint8_t, 256>, 2> deletes{};  // the rule as two tables, tested per pixel below
  for (int sub = 0; sub < 2; ++sub)
    for (unsigned code = 0; code < 256; ++code) deletes[sub][code] = thinning_deletes(m, code, sub);
  std::array<std::array<uint8_t, 512>, 2> deletes9{};  // the same by column windows (scans)
  for (int sub = 0; sub < 2; ++sub)
    for (unsigned win = 0; win < 512; ++win) deletes9[sub][win] = (win >> 4 & 1) && deletes[sub][code_of_columns(win)];
  // a pixel whose window is full is never deleted (both rules): the scans skip such runs, and background
  const bool interior_stays = !deletes[0][255] && !deletes[1][255];
  const int nt = num_threads();
  using Lists = std::vector<std::vector<int64_t>>;  // one list per thread
  Lists deleted[2] = {Lists(static_cast<size_t>(nt)), Lists(static_cast<size_t>(nt))};
  Lists grown[2] = {Lists(static_cast<size_t>(nt)), Lists(static_cast<size_t>(nt))};
  std::vector<uint8_t> queued;  // bit s: waiting in subiteration s's queue
  std::vector<int64_t> queue[2];
  // the foreground neighbours of deleted pixels join both queues (once)
  auto enqueue_neighbours = [&](const Lists& dels) {
    parallel_for(nt, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        grown[0][size_t(t)].clear();
        grown[1][size_t(t)].clear();
        for (int64_t i : dels[size_t(t)])
          for (int64_t d : around) {
            const int64_t q = i + d;
            if (!v[q]) continue;
            std::atomic_ref<uint8_t> flag(queued[q]);
            if (flag.load(std::memory_order_relaxed) == 3) continue;
            const uint8_t before = flag.fetch_or(uint8_t(3), std::memory_order_relaxed);
            for (int s = 0; s < 2; ++s)
              if (!(before >> s & 1)) grown[s][size_t(t)].push_back(q);
          }
      }
    });
    for (int t = 0; t < nt; ++t)
      for (int s = 0; s < 2; ++s) queue[s].insert(queue[s].end(), grown[s][size_t(t)].begin(), grown[s][size_t(t)].end());
  };
  auto count = [](const Lists& l) {
    int64_t c = 0;
    for (const auto& x : l) c += int64_t(x.size());
    return c;
  };
  // While many pixels go per iteration, subiterations scan the whole image; once few do, only the queues
  // (pixels whose neighbourhood changed since their last test in that subiteration) are tested.
  bool scanning = true;
  for (int64_t it = 0; max_iter < 0 || it < max_iter; ++it) {
    for (int sub = 0; sub < 2; ++sub) {
      auto& del = deleted[sub];
      if (scanning) {
        parallel_for(nt, 1, [&](int64_t t0, int64_t t1) {
          for (int64_t t = t0; t < t1; ++t) {
            auto& d = del[size_t(t)];
            d.clear();
            const auto& table = deletes9[sub];
            for (int64_t r = 1 + t * h / nt; r < 1 + (t + 1) * h / nt; ++r) {
              const int64_t end = r * w2 + 1 + w;
              auto column = [&](int64_t i) { return unsigned(v[i - w2]) | unsigned(v[i]) << 1 | unsigned(v[i + w2]) << 2; };
              for (int64_t i = r * w2 + 1; i < end;) {
                // 8 background pixels, or 8 whose windows are full, at once
                while (i + 8 <= end && (!load8(v + i) || (interior_stays && all_set(v + i, w2)))) i += 8;
                // then pixel by pixel, the window slid one column at a time, until the next aligned run
                unsigned win = column(i - 1) << 3 | column(i);
                for (const int64_t stop = std::min(end, i + 16); i < stop; ++i) {
                  win = (win << 3 | column(i + 1)) & 511;
                  if (table[win]) d.push_back(i);
                }
              }
            }
          }
        });
      } else {
        std::vector<int64_t> tests;
        tests.swap(queue[sub]);
        const int64_t n = int64_t(tests.size());
        const int64_t step = (n + nt - 1) / nt;
        parallel_for(nt, 1, [&](int64_t t0, int64_t t1) {
          for (int64_t t = t0; t < t1; ++t) {
            auto& d = del[size_t(t)];
            d.clear();
            for (int64_t j = t * step; j < std::min(n, (t + 1) * step); ++j) {
              const int64_t i = tests[j];
              queued[i] &= uint8_t(~(1u << sub));  // (no other thread touches queued[i] in this phase)
              if (v[i] && deletes[sub][neighbour_code(v + i, w2)]) d.push_back(i);
            }
          }
        });
      }
      parallel_for(nt, 1, [&](int64_t t0, int64_t t1) {  // deletions after all tests: the parallel rule
        for (int64_t t = t0; t < t1; ++t)
          for (int64_t i : del[size_t(t)]) v[i] = 0;
      });
      if (!scanning) enqueue_neighbours(del);
    }
    const int64_t gone = count(deleted[0]) + count(deleted[1]);
    if (gone == 0) break;
    if (scanning && gone * 64 < h * w) {  // the changes since each subiteration's last scan seed the queues
      scanning = false;
      queued.assign(img.size(), 0);
      enqueue_neighbours(deleted[0]);
      enqueue_neighbours(deleted[1]);
    }
  }
  bool* dst = out.ptr<bool>();
  parallel_for(h, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < w; ++c) dst[r * out.strides[0] + c * out.strides[1]] = v[(r + 1) * w2 + c + 1];
  });
}

namespace {
constexpr LeeEulerTable kLeeEuler = make_lee_euler_table();
}  // namespace

// Lee's thinning, one border direction at a time: the candidates are found in parallel over planes (each
// plane's list in C order), then rechecked in C order. A candidate's recheck sees only the earlier candidates
// of its 3x3x3 neighbourhood, so planes are rechecked at once, each a wavefront two rows behind the plane
// before it: the row of plane p waits for rows r + 1 of plane p - 1, exactly the C order's decisions.
void thin_lee_cpu(const View& img) {
  const int64_t np_ = img.shape[0], nr = img.shape[1], nc = img.shape[2];
  const int64_t sr = nc, sp = nr * nc;
  uint8_t* v = img.ptr<uint8_t>();
  const int nborders = np_ == 3 ? 4 : 6;
  std::vector<std::vector<int64_t>> per_plane(static_cast<size_t>(np_));
  std::vector<std::atomic<int64_t>> rows_done(static_cast<size_t>(np_));  // plane p's rows below it are rechecked
  const int nt = int(std::min<int64_t>(num_threads(), np_ - 2));
  int unchanged = 0;
  while (unchanged < nborders) {
    unchanged = 0;
    for (int j = 0; j < nborders; ++j) {
      const int64_t dir = lee_direction(j, sp, sr);
      std::atomic<int64_t> candidates{0};
      parallel_for(np_ - 2, 1, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0 + 1; p < p1 + 1; ++p) {
          auto& list = per_plane[size_t(p)];
          list.clear();
          auto test = [&](int64_t i) {
            if (lee_deletable(lee_neighbourhood(v + i, sp, sr), kLeeEuler)) list.push_back(i);
          };
          for (int64_t r = 1; r < nr - 1; ++r) {
            int64_t i = p * sp + r * sr + 1;
            const int64_t end = p * sp + r * sr + nc - 1;
            if constexpr (std::endian::native == std::endian::little)  // (bytes in C order from the low bits)
              for (; i + 8 <= end; i += 8) {  // the border voxels of 8 at once (voxels are 0/1 bytes)
                for (uint64_t m = load8(v + i) & ~load8(v + i + dir) & 0x0101010101010101ull; m; m &= m - 1)
                  test(i + std::countr_zero(m) / 8);
              }
            for (; i < end; ++i)
              if (v[i] == 1 && v[i + dir] == 0) test(i);
          }
          candidates.fetch_add(int64_t(list.size()), std::memory_order_relaxed);
        }
      });
      std::atomic<bool> changed{false};
      auto recheck = [&](const std::vector<int64_t>& list, size_t k, size_t end) {
        for (; k < end; ++k)
          if (lee_simple_point(lee_neighbourhood(v + list[k], sp, sr))) {  // earlier deletions may split it
            v[list[k]] = 0;
            changed.store(true, std::memory_order_relaxed);
          }
      };
      if (candidates.load() < 4096 || nt < 2) {  // too few to share out
        for (int64_t p = 1; p < np_ - 1; ++p) recheck(per_plane[size_t(p)], 0, per_plane[size_t(p)].size());
      } else {
        for (auto& d : rows_done) d.store(0, std::memory_order_relaxed);
        rows_done[0].store(nr, std::memory_order_relaxed);  // the frame
        std::atomic<int64_t> next_plane{1};
        parallel_for(nt, 1, [&](int64_t, int64_t) {
          // planes are taken in order, so the plane waited for is always held by a running task
          for (int64_t p; (p = next_plane.fetch_add(1, std::memory_order_relaxed)) < np_ - 1;) {
            const auto& list = per_plane[size_t(p)];
            size_t k = 0;
            for (int64_t r = 1; r < nr - 1; ++r) {
              size_t end = k;
              while (end < list.size() && list[end] < p * sp + (r + 1) * sr) ++end;
              if (end > k) {
                while (rows_done[size_t(p - 1)].load(std::memory_order_acquire) < r + 2) std::this_thread::yield();
                recheck(list, k, end);
                k = end;
              }
              rows_done[size_t(p)].store(r + 1, std::memory_order_release);
            }
            rows_done[size_t(p)].store(nr, std::memory_order_release);
          }
        });
      }
      unchanged += !changed.load();
    }
  }
}

namespace {
constexpr MedialTable kMedialTable = make_medial_table();
}  // namespace

void medial_axis_thin_cpu(const View& result, const View& distance, const View& tiebreak) {
  const int64_t h = result.shape[0], w = result.shape[1];
  uint8_t* img = result.ptr<uint8_t>();
  const double* dist = distance.ptr<double>();
  std::vector<int64_t> fg;  // foreground pixels in C order, gathered per row block on the threads
  {
    const int chunks = int(std::max<int64_t>(1, std::min<int64_t>(h, 4 * num_threads())));
    std::vector<std::vector<int64_t>> parts(static_cast<size_t>(chunks));
    parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t i = c * h / chunks * w; i < (c + 1) * h / chunks * w; ++i)
          if (img[i]) parts[size_t(c)].push_back(i);
    });
    for (auto& part : parts) fg.insert(fg.end(), part.begin(), part.end());
  }
  const int64_t n = int64_t(fg.size());
  if (tiebreak.shape[0] != n) throw ValueError("medial_axis: one tiebreak per foreground pixel");
  const int64_t* tie = tiebreak.ptr<int64_t>();
  // NumPy's lexsort((tiebreak, corner, distance)) as stable passes from the last key to the first. The
  // tiebreak is a permutation of 0..n-1 (NumPy's): its order is its inverse.
  std::vector<int64_t> order(n, -1);
  bool permutation = true;
  for (int64_t j = 0; j < n && permutation; ++j) {
    permutation = tie[j] >= 0 && tie[j] < n && order[tie[j]] < 0;
    if (permutation) order[tie[j]] = j;
  }
  if (!permutation) {
    std::vector<uint64_t> k(n);
    for (int64_t j = 0; j < n; ++j) k[j] = sort_key(tie[j]);
    radix_argsort(k, order.data());
  }
  // The other keys per foreground pixel in C order (sequential reads of the image and the distances): the
  // background pixels of its window, and the distance of a binary image as the integer it is the square
  // root of (then one radix sort of (that integer, background) sorts by both; any other distance falls back
  // to its float order, sorted after the background count).
  std::vector<uint8_t> bg(static_cast<size_t>(n));
  std::vector<uint32_t> sq(static_cast<size_t>(n));
  std::atomic<bool> integral{true};
  parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      const int64_t i = fg[j];
      bg[j] = uint8_t(9 - std::popcount(medial_window(img, h, w, i / w, i % w)));
      const double d = dist[i], s = std::nearbyint(d * d);
      if (!(s >= 0 && s < double(1 << 28)) || std::sqrt(s) != d) integral.store(false, std::memory_order_relaxed);
      else sq[j] = uint32_t(s);
    }
  });
  {
    std::vector<uint32_t> k(static_cast<size_t>(n));
    const bool both = integral.load();
    parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) k[t] = both ? sq[order[t]] << 4 | bg[order[t]] : bg[order[t]];
    });
    radix_argsort(k, order.data(), false);
  }
  if (!integral.load()) {
    std::vector<uint64_t> k64(static_cast<size_t>(n));
    parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) k64[t] = sort_key(dist[fg[order[t]]]);
    });
    radix_argsort(k64, order.data(), false);
  }
  for (int64_t t = 0; t < n; ++t) {
    if (t + 16 < n) {  // the order jumps around the image: fetch the window 16 pixels ahead
      const int64_t a = fg[order[t + 16]];
      __builtin_prefetch(img + std::max<int64_t>(a - w - 1, 0));
      __builtin_prefetch(img + a);
      __builtin_prefetch(img + std::min<int64_t>(a + w + 1, h * w - 1));
    }
    if (t + 32 < n) __builtin_prefetch(&fg[order[t + 32]]);
    const int64_t i = fg[order[t]], r = i / w, c = i % w;
    img[i] = kMedialTable.keep[medial_window(img, h, w, r, c)];
  }
}

}  // namespace ndimg::morphology
