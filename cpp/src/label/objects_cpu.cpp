// CPU schedules of find_objects (per-label bounding boxes in one pass) and watershed_ift (scipy's image
// foresting transform, serial by nature).
#include <algorithm>
#include <atomic>
#include <climits>
#include <memory>
#include <vector>

#include "core/index.hpp"
#include "core/parts.hpp"
#include "label/components.hpp"

namespace ndimg::label {
namespace {

void atomic_min(int64_t& slot, int64_t v) {
  std::atomic_ref<int64_t> a(slot);
  for (int64_t cur = a.load(std::memory_order_relaxed); v < cur && !a.compare_exchange_weak(cur, v);) {}
}
void atomic_max(int64_t& slot, int64_t v) {
  std::atomic_ref<int64_t> a(slot);
  for (int64_t cur = a.load(std::memory_order_relaxed); v > cur && !a.compare_exchange_weak(cur, v);) {}
}

}  // namespace

void find_objects_cpu(const View& labels, int64_t max_label, const View& boxes) {
  const int nd = labels.ndim, last = nd - 1;
  int64_t* box = boxes.ptr<int64_t>();
  parallel_for(max_label, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t k = a; k < b; ++k) {
      std::fill(box + k * 2 * nd, box + k * 2 * nd + nd, INT64_MAX);
      std::fill(box + k * 2 * nd + nd, box + (k + 1) * 2 * nd, int64_t(-1));
    }
  });
  const int64_t width = labels.shape[last], lines = labels.size() / std::max<int64_t>(width, 1);
  if (width == 0) return;
  dispatch_dtype(labels.dtype, [&]<class T>() {
    {
      const T* src = labels.ptr<T>();
      // one line at a time, one update of the box per run of equal labels
      parallel_for(lines, 16, [&](int64_t l0, int64_t l1) {
        int64_t coord[kMaxDim];
        for (int64_t line = l0; line < l1; ++line) {
          for (int64_t d = last - 1, rem = line; d >= 0; --d) {
            coord[d] = rem % labels.shape[d];
            rem /= labels.shape[d];
          }
          const T* p = src + line_offset(labels, last, line);
          const int64_t s = labels.strides[last];
          for (int64_t x = 0; x < width;) {
            const T v = p[x * s];
            int64_t e = x + 1;
            while (e < width && p[e * s] == v) ++e;
            const int64_t k = box_index(v, max_label);
            if (k >= 0) {
              int64_t* lo = box + k * 2 * nd;
              int64_t* hi = lo + nd;
              for (int d = 0; d < last; ++d) {
                atomic_min(lo[d], coord[d]);
                atomic_max(hi[d], coord[d]);
              }
              atomic_min(lo[last], x);
              atomic_max(hi[last], e - 1);
            }
            x = e;
          }
        }
      });
    }
  });
  parallel_for(max_label, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t k = a; k < b; ++k)
      if (box[k * 2 * nd] == INT64_MAX) std::fill(box + k * 2 * nd, box + k * 2 * nd + nd, int64_t(-1));
  });
}

void watershed_ift_cpu(const View& in, const View& markers, std::span<const uint8_t> structure, const View& out) {
  const int64_t n = in.size();
  const int nd = in.ndim;
  // the input in C order, and its maximum (the costs run 0..maxval)
  std::vector<int32_t> val(n);
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>) {
      int64_t i = 0;
      for_range(in, 0, n, [&](int64_t o) { val[i++] = in.ptr<T>()[o]; });
    }
  });
  const int32_t maxval = *std::max_element(val.begin(), val.end());
  // the markers as C ints (they place the markers in the queue), and the labels as scipy holds them: the
  // marker stored in the output's type and read back from it
  std::vector<int32_t> mark(n), lab(n);
  dispatch_dtype(markers.dtype, [&]<class M>() {
    dispatch_dtype(out.dtype, [&]<class O>() {
      if constexpr (std::is_integral_v<M> && std::is_integral_v<O>) {
        int64_t i = 0;
        for_range(markers, 0, n, [&](int64_t o) {
          mark[i] = int32_t(markers.ptr<M>()[o]);
          lab[i] = int32_t(O(mark[i]));
          ++i;
        });
      }
    });
  });
  // neighbour steps of the structure's taps (the centre excluded), in flat C indices
  int64_t cstride[kMaxDim];
  cstride[nd - 1] = 1;
  for (int d = nd - 2; d >= 0; --d) cstride[d] = cstride[d + 1] * in.shape[d + 1];
  std::vector<int64_t> steps;
  const int64_t ssize = int64_t(structure.size());
  for (int64_t k = 0; k < ssize; ++k) {
    if (!structure[k] || k == ssize / 2) continue;
    int64_t off = 0;
    for (int64_t d = nd - 1, rem = k; d >= 0; --d, rem /= 3) off += (rem % 3 - 1) * cstride[d];
    if (off != 0) steps.push_back(off);
  }
  // The bucket queue: one doubly linked list per cost, by element index (-1: none). Its updates are scipy's,
  // step for step, quirks included (an element alone in its list is not unlinked when it moves, and a list
  // emptied by dequeuing keeps its stale last element): the order of equal costs is the result.
  std::vector<int64_t> first(size_t(maxval) + 1, -1), last(size_t(maxval) + 1, -1), next(n, -1), prev(n, -1);
  std::vector<int32_t> cost(n);
  std::vector<uint8_t> done(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (mark[i] == 0) {
      cost[i] = maxval + 1;
      continue;
    }
    cost[i] = 0;
    if (first[0] < 0) {
      first[0] = last[0] = i;
    } else if (mark[i] > 0) {  // objects at the front, processed first
      next[i] = first[0];
      prev[first[0]] = i;
      first[0] = i;
    } else {  // background at the back
      prev[i] = last[0];
      next[last[0]] = i;
      last[0] = i;
    }
  }
  for (int32_t c = 0; c <= maxval; ++c) {
    while (first[c] >= 0) {
      const int64_t v = first[c];
      first[c] = next[v];
      if (first[c] >= 0) prev[first[c]] = -1;
      next[v] = prev[v] = -1;
      done[v] = 1;
      for (const int64_t step : steps) {
        const int64_t p = v + step;
        if (p < 0 || p >= n || done[p]) continue;  // scipy's bounds test is on the flat index alone
        const int32_t mx = std::max(cost[v], std::abs(val[p] - val[v]));
        const int32_t pc = cost[p];
        if (mx >= pc) continue;
        cost[p] = mx;
        lab[p] = lab[v];
        if ((next[p] >= 0 || prev[p] >= 0) && pc <= maxval) {  // (an unqueued element has no links)
          const int64_t pv = prev[p], nx = next[p];
          if (first[pc] == p) first[pc] = nx;
          if (last[pc] == p) last[pc] = pv;
          if (pv >= 0) next[pv] = nx;
          if (nx >= 0) prev[nx] = pv;
        }
        if (lab[p] < 0) {
          prev[p] = last[mx];
          next[p] = -1;
          if (last[mx] >= 0) next[last[mx]] = p;
          last[mx] = p;
          if (first[mx] < 0) first[mx] = p;
        } else {
          next[p] = first[mx];
          prev[p] = -1;
          if (first[mx] >= 0) prev[first[mx]] = p;
          first[mx] = p;
          if (last[mx] < 0) last[mx] = p;
        }
      }
    }
  }
  dispatch_dtype(out.dtype, [&]<class O>() {
    if constexpr (std::is_integral_v<O> && !std::is_same_v<O, bool>) {
      int64_t i = 0;
      for_range(out, 0, n, [&](int64_t o) { out.ptr<O>()[o] = O(lab[i++]); });
    }
  });
}

}  // namespace ndimg::label

namespace ndimg::label {

void value_groups_cpu(const View& in, int64_t lo, const View& counts, const View& coords) {
  const int64_t n = in.size(), range = counts.size();
  const int nd = in.ndim;
  int64_t* total = counts.ptr<int64_t>();
  int64_t* co = coords.ptr<int64_t>();
  // a counting sort: per part the count of each value, the parts' places per value in C order, the scatter
  const int64_t parts = std::max<int64_t>(1, std::min(parts_for(n, 1 << 16), 4 * n / std::max<int64_t>(range, 1)));
  std::vector<int64_t> place(size_t(parts * range), 0);
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* src = in.ptr<T>();
      auto each = [&](int64_t a, int64_t b, auto&& f) {
        if (in.c_contiguous()) {
          for (int64_t i = a; i < b; ++i) f(i, int64_t(src[i]) - lo);
        } else {
          int64_t i = a;
          for_range(in, a, b, [&](int64_t o) { f(i++, int64_t(src[o]) - lo); });
        }
      };
      std::atomic<bool> outside{false};
      for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
        int64_t* c = place.data() + p * range;
        each(a, b, [&](int64_t, int64_t v) {
          if (uint64_t(v) < uint64_t(range)) ++c[v];
          else outside.store(true, std::memory_order_relaxed);
        });
      });
      if (outside) throw ValueError("value_groups: a value outside lo .. lo + counts.size() - 1");
      parallel_for(range, 1 << 12, [&](int64_t v0, int64_t v1) {
        for (int64_t v = v0; v < v1; ++v) {
          int64_t sum = 0;
          for (int64_t p = 0; p < parts; ++p) sum += place[p * range + v];
          total[v] = sum;
        }
      });
      std::vector<int64_t> start(range);
      for (int64_t v = 0, at = 0; v < range; ++v) {
        start[v] = at;
        at += total[v];
      }
      parallel_for(range, 1 << 12, [&](int64_t v0, int64_t v1) {
        for (int64_t v = v0; v < v1; ++v)
          for (int64_t p = 0, at = start[v]; p < parts; ++p) {
            const int64_t c = place[p * range + v];
            place[p * range + v] = at;
            at += c;
          }
      });
      // the scatter writes each element's coordinates (kept by counting along the part, no divisions)
      for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
        int64_t* at = place.data() + p * range;
        int64_t c[kMaxDim];
        for (int64_t d = nd - 1, rem = a; d >= 0; --d) {
          c[d] = rem % in.shape[d];
          rem /= in.shape[d];
        }
        each(a, b, [&](int64_t, int64_t v) {
          const int64_t pos = at[v]++;
          for (int d = 0; d < nd; ++d) co[d * n + pos] = c[d];
          for (int d = nd - 1; d >= 0 && ++c[d] == in.shape[d]; --d) c[d] = 0;
        });
      });
    }
  });
}

}  // namespace ndimg::label
