// CPU schedules of the skeletons: the 2-D subiterations over queues of the pixels that may change (a zero
// frame around the image); Lee's thinning with its candidates found in parallel over planes and rechecked serially
// in C order; the medial axis's serial removal after a radix lexsort.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <vector>

#include "morphology/maxtree_sort.hpp"
#include "morphology/skeleton.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::morphology {

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
            for (int64_t r = 1 + t * h / nt; r < 1 + (t + 1) * h / nt; ++r)
              for (int64_t i = r * w2 + 1; i < r * w2 + 1 + w; ++i)
                if (v[i] && deletes[sub][neighbour_code(v + i, w2)]) d.push_back(i);
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

// ---- Lee's 3-D thinning: a voxel's 3x3x3 neighbourhood as 27 bits, bit 9*(dp+1) + 3*(dr+1) + (dc+1) ----
constexpr int kCentre = 13;

constexpr int bit_at(int dp, int dr, int dc) { return 9 * (dp + 1) + 3 * (dr + 1) + (dc + 1); }

// 8 x the Euler characteristic of the union of the closed voxels of a 2x2x2 window, counted at its shared
// vertex (the vertex, 6 edges shared by 2 windows, 12 faces by 4, 8 cubes by 8); bit (i << 2 | j << 1 | k)
// is the voxel (i, j, k).
constexpr int window_euler8(unsigned m) {
  auto on = [m](int i, int j, int k) { return (m >> (i << 2 | j << 1 | k) & 1) != 0; };
  int v = m != 0, e = 0, f = 0, c = 0;
  for (int s = 0; s < 2; ++s) {
    bool ea = false, eb = false, ec = false;
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 2; ++y) {
        ea |= on(s, x, y);
        eb |= on(x, s, y);
        ec |= on(x, y, s);
      }
    e += ea + eb + ec;
    for (int t = 0; t < 2; ++t) {
      f += (on(s, t, 0) || on(s, t, 1)) + (on(s, 0, t) || on(s, 1, t)) + (on(0, s, t) || on(1, s, t));
    }
  }
  for (int i = 0; i < 8; ++i) c += m >> i & 1;
  return 8 * v - 4 * e + 2 * f - c;
}
// Change of a window's Euler characteristic (x 8) when its voxel c, the centre, is set: one table per
// position of the centre in the window.
std::array<std::array<int8_t, 256>, 8> make_euler_delta() {
  std::array<std::array<int8_t, 256>, 8> t{};
  for (unsigned c = 0; c < 8; ++c)
    for (unsigned m = 0; m < 256; ++m) t[c][m] = int8_t(window_euler8(m | 1u << c) - window_euler8(m & ~(1u << c)));
  return t;
}
const std::array<std::array<int8_t, 256>, 8> kEulerDelta = make_euler_delta();

// Lee's condition 1: the Euler characteristic of the 26-neighbourhood does not change (sum over the eight
// 2x2x2 windows holding the centre). Window (a, b, c) starts at cube position (a, b, c); its voxel (i, j, k)
// is neighbourhood bit 9(a+i) + 3(b+j) + (c+k), window bit (i << 2 | j << 1 | k).
bool euler_invariant(uint32_t nb) {
  int sum = 0;
  for (unsigned w = 0; w < 8; ++w) {
    const uint32_t x = nb >> (9 * (w >> 2) + 3 * (w >> 1 & 1) + (w & 1));
    const unsigned m = (x & 3) | (x >> 3 & 3) << 2 | (x >> 9 & 3) << 4 | (x >> 12 & 3) << 6;
    sum += kEulerDelta[7 - w][m];   // the centre is voxel (1-a, 1-b, 1-c) of window (a, b, c)
  }
  return sum == 0;
}

// The 26-neighbour dilation of a set of cube bits (box dilation, one axis at a time).
constexpr uint32_t cube_mask(int axis_stride, int value) {
  uint32_t m = 0;
  for (int i = 0; i < 27; ++i)
    if (i / axis_stride % 3 != value) m |= 1u << i;
  return m;
}
uint32_t dilate26(uint32_t x) {
  constexpr uint32_t c0 = cube_mask(1, 0), c2 = cube_mask(1, 2), r0 = cube_mask(3, 0), r2 = cube_mask(3, 2),
                     p0 = cube_mask(9, 0), p2 = cube_mask(9, 2);
  x |= (x & c2) << 1 | (x & c0) >> 1;
  x |= (x & r2) << 3 | (x & r0) >> 3;
  x |= (x & p2) << 9 | (x & p0) >> 9;
  return x;
}

// Lee's conditions 2 and 3: the neighbours form at most one 26-connected component (grown from one of them
// by dilations within the neighbours, the centre left out).
bool simple_point(uint32_t nb) {
  const uint32_t left = nb & ~(1u << kCentre);
  if (!left) return true;
  uint32_t comp = left & (~left + 1);
  for (;;) {
    const uint32_t grown = dilate26(comp) & left;
    if (grown == comp) return comp == left;
    comp = grown;
  }
}

uint32_t neighbourhood(const uint8_t* v, int64_t sp, int64_t sr) {
  uint32_t nb = 0;
  for (int dp = -1; dp <= 1; ++dp)
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc) nb |= uint32_t(v[dp * sp + dr * sr + dc] == 1) << bit_at(dp, dr, dc);
  return nb;
}

bool deletable(uint32_t nb) { return std::popcount(nb) != 2 && simple_point(nb) && euler_invariant(nb); }

}  // namespace

void thin_lee(const View& img) {
  if (img.device != Device::CPU) throw ValueError("skeletonize: host arrays only");
  if (img.ndim != 3 || img.dtype != DType::U8 || !img.c_contiguous())
    throw ValueError("skeletonize: a C-contiguous 3-D uint8 volume is expected");
  const int64_t np_ = img.shape[0], nr = img.shape[1], nc = img.shape[2];
  if (np_ < 3 || nr < 3 || nc < 3) return;
  const int64_t sr = nc, sp = nr * nc;
  uint8_t* v = img.ptr<uint8_t>();
  // border directions, in scikit-image's order: the neighbour that must be background
  const int64_t dirs[6] = {-sr, sr, 1, -1, sp, -sp};
  const int nborders = np_ == 3 ? 4 : 6;
  std::vector<std::vector<int64_t>> per_plane(static_cast<size_t>(np_));
  int unchanged = 0;
  while (unchanged < nborders) {
    unchanged = 0;
    for (int j = 0; j < nborders; ++j) {
      const int64_t dir = dirs[j];
      parallel_for(np_ - 2, 1, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0 + 1; p < p1 + 1; ++p) {
          auto& list = per_plane[size_t(p)];
          list.clear();
          for (int64_t r = 1; r < nr - 1; ++r)
            for (int64_t c = 1; c < nc - 1; ++c) {
              const int64_t i = p * sp + r * sr + c;
              if (v[i] != 1 || v[i + dir] != 0) continue;
              if (deletable(neighbourhood(v + i, sp, sr))) list.push_back(i);
            }
        }
      });
      bool no_change = true;
      for (int64_t p = 1; p < np_ - 1; ++p)
        for (int64_t i : per_plane[size_t(p)])
          if (simple_point(neighbourhood(v + i, sp, sr))) {  // the candidates deleted before may split it
            v[i] = 0;
            no_change = false;
          }
      unchanged += no_change;
    }
  }
}

namespace {

// medial_axis's table: keep a foreground pixel whose removal changes the number of 8-connected components of
// its 3x3 window, or whose window holds fewer than three pixels. Bit 3 * r + c is the window's pixel (r, c).
int window_components(unsigned m) {
  int n = 0;
  unsigned left = m;
  while (left) {
    unsigned comp = left & (~left + 1), grow = comp;
    while (grow) {
      unsigned next = 0;
      for (unsigned g = grow; g; g &= g - 1) {
        const int k = std::countr_zero(g), r = k / 3, c = k % 3;
        for (int dr = -1; dr <= 1; ++dr)
          for (int dc = -1; dc <= 1; ++dc)
            if (r + dr >= 0 && r + dr < 3 && c + dc >= 0 && c + dc < 3) next |= 1u << (3 * (r + dr) + c + dc);
      }
      grow = next & left & ~comp;
      comp |= grow;
    }
    left &= ~comp;
    ++n;
  }
  return n;
}

std::array<uint8_t, 512> make_medial_table() {
  std::array<uint8_t, 512> t{};
  for (unsigned m = 0; m < 512; ++m)
    t[m] = (m & 16) && (window_components(m) != window_components(m & ~16u) || std::popcount(m) < 3);
  return t;
}

}  // namespace

void medial_axis_thin(const View& result, const View& distance, const View& tiebreak) {
  if (result.device != Device::CPU) throw ValueError("medial_axis: host arrays only");
  if (result.ndim != 2 || result.dtype != DType::U8 || !result.c_contiguous() || distance.dtype != DType::F64 ||
      !distance.c_contiguous() || distance.size() != result.size() || tiebreak.dtype != DType::I64 ||
      tiebreak.ndim != 1)
    throw ValueError("medial_axis: C-contiguous uint8 result, float64 distance and int64 tiebreak expected");
  static const std::array<uint8_t, 512> table = make_medial_table();
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
  auto at = [&](int64_t r, int64_t c) { return r >= 0 && r < h && c >= 0 && c < w && img[r * w + c]; };
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
  {
    std::vector<uint32_t> k(n);
    parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t r = fg[order[t]] / w, c = fg[order[t]] % w;
        uint32_t bg = 0;
        for (int dr = -1; dr <= 1; ++dr)
          for (int dc = -1; dc <= 1; ++dc) bg += !at(r + dr, c + dc);
        k[t] = bg;
      }
    });
    radix_argsort(k, order.data(), false);
  }
  {
    // the distances of a binary image are square roots of integers: sorting those integers sorts them (fewer
    // radix passes); any other distance falls back to its float order
    std::vector<uint32_t> k(n);
    std::atomic<bool> integral{true};
    parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const double d = dist[fg[order[t]]];
        const double sq = std::nearbyint(d * d);
        if (!(sq >= 0 && sq < 4294967296.0) || std::sqrt(sq) != d) {
          integral.store(false, std::memory_order_relaxed);
          return;
        }
        k[t] = uint32_t(sq);
      }
    });
    if (integral.load()) {
      radix_argsort(k, order.data(), false);
    } else {
      std::vector<uint64_t> k64(n);
      parallel_for(n, 1 << 14, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) k64[t] = sort_key(dist[fg[order[t]]]);
      });
      radix_argsort(k64, order.data(), false);
    }
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
    unsigned m = 16;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc)
        if ((dr || dc) && at(r + dr, c + dc)) m |= 1u << (3 * (dr + 1) + dc + 1);
    img[i] = table[m];
  }
}

}  // namespace ndimg::morphology
