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

namespace {

// One element of the watershed's queue, its fields together (a neighbour's test reads one cache line).
template <class I>
struct Node {
  I next, prev;    // the bucket list (-1: none)
  int32_t cost;
  int32_t lab;     // the label as scipy holds it (in the output's type, read back)
  uint16_t value;  // the input
  uint8_t done;
};

// The bucket queue: one doubly linked list per cost. Its updates are scipy's, step for step, quirks included
// (an element alone in its list is not unlinked when it moves, and a list emptied by dequeuing keeps its stale
// last element): the order of equal costs is the result.
template <class I>
void flood(std::vector<Node<I>>& e, const std::vector<int32_t>& mark, const std::vector<int64_t>& steps,
           int32_t maxval) {
  const int64_t n = int64_t(e.size());
  std::vector<I> first(size_t(maxval) + 1, I(-1)), last(size_t(maxval) + 1, I(-1));
  for (int64_t i = 0; i < n; ++i) {
    e[i].next = e[i].prev = I(-1);
    e[i].done = 0;
    if (mark[i] == 0) {
      e[i].cost = maxval + 1;
      continue;
    }
    e[i].cost = 0;
    if (first[0] < 0) {
      first[0] = last[0] = I(i);
    } else if (mark[i] > 0) {  // objects at the front, processed first
      e[i].next = first[0];
      e[first[0]].prev = I(i);
      first[0] = I(i);
    } else {  // background at the back
      e[i].prev = last[0];
      e[last[0]].next = I(i);
      last[0] = I(i);
    }
  }
  for (int32_t c = 0; c <= maxval; ++c) {
    while (first[c] >= 0) {
      const I v = first[c];
      Node<I>& ev = e[v];
      first[c] = ev.next;
      if (first[c] >= 0) e[first[c]].prev = I(-1);
      ev.next = ev.prev = I(-1);
      ev.done = 1;
      for (const int64_t step : steps) {
        const int64_t p = v + step;
        if (p < 0 || p >= n) continue;  // scipy's bounds test is on the flat index alone
        Node<I>& ep = e[p];
        if (ep.done) continue;
        const int32_t mx = std::max(ev.cost, std::abs(int32_t(ep.value) - int32_t(ev.value)));
        const int32_t pc = ep.cost;
        if (mx >= pc) continue;
        ep.cost = mx;
        ep.lab = ev.lab;
        if ((ep.next >= 0 || ep.prev >= 0) && pc <= maxval) {  // (an unqueued element has no links)
          const I pv = ep.prev, nx = ep.next;
          if (first[pc] == p) first[pc] = nx;
          if (last[pc] == p) last[pc] = pv;
          if (pv >= 0) e[pv].next = nx;
          if (nx >= 0) e[nx].prev = pv;
        }
        if (ep.lab < 0) {
          ep.prev = last[mx];
          ep.next = I(-1);
          if (last[mx] >= 0) e[last[mx]].next = I(p);
          last[mx] = I(p);
          if (first[mx] < 0) first[mx] = I(p);
        } else {
          ep.next = first[mx];
          ep.prev = I(-1);
          if (first[mx] >= 0) e[first[mx]].prev = I(p);
          first[mx] = I(p);
          if (last[mx] < 0) last[mx] = I(p);
        }
      }
    }
  }
}

template <class I>
void watershed_with(const View& in, const View& markers, std::span<const uint8_t> structure, const View& out) {
  const int64_t n = in.size();
  const int nd = in.ndim;
  std::vector<Node<I>> e(n);
  // the input in C order, and its maximum (the costs run 0..maxval)
  int32_t maxval = 0;
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>) {
      int64_t i = 0;
      for_range(in, 0, n, [&](int64_t o) {
        e[i].value = in.ptr<T>()[o];
        maxval = std::max<int32_t>(maxval, e[i++].value);
      });
    }
  });
  // the markers as C ints (they place the markers in the queue), and the labels as scipy holds them: the
  // marker stored in the output's type and read back from it
  std::vector<int32_t> mark(n);
  dispatch_dtype(markers.dtype, [&]<class M>() {
    dispatch_dtype(out.dtype, [&]<class O>() {
      if constexpr (std::is_integral_v<M> && std::is_integral_v<O>) {
        int64_t i = 0;
        for_range(markers, 0, n, [&](int64_t o) {
          mark[i] = int32_t(markers.ptr<M>()[o]);
          e[i].lab = int32_t(O(mark[i]));
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
  flood<I>(e, mark, steps, maxval);
  dispatch_dtype(out.dtype, [&]<class O>() {
    if constexpr (std::is_integral_v<O> && !std::is_same_v<O, bool>) {
      int64_t i = 0;
      for_range(out, 0, n, [&](int64_t o) { out.ptr<O>()[o] = O(e[i++].lab); });
    }
  });
}

}  // namespace

void watershed_ift_cpu(const View& in, const View& markers, std::span<const uint8_t> structure, const View& out) {
  if (in.size() < INT32_MAX) watershed_with<int32_t>(in, markers, structure, out);
  else watershed_with<int64_t>(in, markers, structure, out);
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
