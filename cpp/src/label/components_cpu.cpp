// CPU schedule of the connected components: union-find with path halving over slabs along axis 0, labelled
// in parallel, their seams joined serially.
#include <atomic>
#include <memory>
#include <vector>

#include "core/index.hpp"
#include "core/parts.hpp"
#include "label/components.hpp"

namespace ndimg::label {
namespace {

template <class I>
I find_root(I* parent, I i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}
template <class I>
void unite(I* parent, I a, I b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a == b) return;
  if (a < b) parent[b] = a;
  else parent[a] = b;
}

// Union-find over the C-order classes m (0: background, 1: member, 2: seed), then every element learns
// whether its component holds a seed (and, with roots, its root: the component's first element).
template <class I>
void seeded(const View& in, const uint8_t* m, uint8_t* keep, int64_t* roots) {
  const int64_t n = in.size(), rows = in.shape[0], row = n / rows;
  std::unique_ptr<I[]> parent(new I[n]);  // not zero-filled: the line sweep below writes every entry
  I* par = parent.get();
  int64_t cstride[kMaxDim];
  cstride[in.ndim - 1] = 1;
  for (int d = in.ndim - 2; d >= 0; --d) cstride[d] = cstride[d + 1] * in.shape[d + 1];
  const int last = in.ndim - 1;
  const int64_t slabs = parts_for(rows, (1 << 15) / row);
  const int64_t width = in.shape[last];
  parallel_for(slabs, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t begin = rows * s / slabs * row, end = rows * (s + 1) / slabs * row;
      for (int64_t start = begin; start < end; start += width) {  // one line of the last axis at a time
        // the other axes whose previous line lies in this slab (the same for the whole line)
        int axes[kMaxDim], naxes = 0;
        for (int64_t d = last - 1, rem = start / width; d >= 0; rem /= in.shape[d], --d)
          if (rem % in.shape[d] > 0 && start - cstride[d] >= begin) axes[naxes++] = int(d);
        for (int64_t x = 0; x < width; ++x) {
          const int64_t i = start + x;
          if (!m[i]) {
            par[i] = I(i);  // its own set, never joined: the passes below read every element branch free
            continue;
          }
          // with the previous element along the last axis a member, i joins its set by taking its parent (an
          // ancestor of smaller index, as unite keeps them), and a neighbour j whose own previous element is
          // a member is in that set already (j - 1 neighbours both): no union, no find (dense regions)
          const bool prev = x > 0 && m[i - 1];
          par[i] = prev ? par[i - 1] : I(i);
          for (int q = 0; q < naxes; ++q) {
            const int64_t j = i - cstride[axes[q]];
            if (m[j] && !(prev && m[j - 1])) unite<I>(par, I(i), I(j));
          }
        }
      }
    }
  });
  for (int64_t s = 1; s < slabs; ++s) {
    const int64_t begin = rows * s / slabs * row;
    for (int64_t i = begin; i < begin + row; ++i)
      if (m[i] && m[i - row]) unite<I>(par, I(i), I(i - row));
  }
  // Flatten. Every parent has a smaller index (unite links the larger root under the smaller), so a part
  // swept upwards finds a parent inside it already pointing at its root: one read; a parent in an earlier
  // part takes a walk (concurrent readers there see an old ancestor or the root: both lead to the root).
  std::vector<uint8_t> reaches(n, 0);  // by root: its set holds a seed (a non-member's stays 0)
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) {
      I r = std::atomic_ref<I>(par[i]).load(std::memory_order_relaxed);
      if (r >= a) {
        r = std::atomic_ref<I>(par[r]).load(std::memory_order_relaxed);
      } else {
        for (I p; (p = std::atomic_ref<I>(par[r]).load(std::memory_order_relaxed)) != r;) r = p;
      }
      std::atomic_ref<I>(par[i]).store(r, std::memory_order_relaxed);
      if (m[i] == 2) std::atomic_ref<uint8_t>(reaches[r]).store(1, std::memory_order_relaxed);
    }
  });
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) keep[i] = reaches[par[i]];
    if (roots)
      for (int64_t i = a; i < b; ++i) roots[i] = m[i] ? int64_t(par[i]) : -1;
  });
}

}  // namespace

void seeded_components_cpu(const View& in, double low, double high, const View& out, int64_t* roots) {
  const int64_t n = in.size();
  std::unique_ptr<uint8_t[]> m(new uint8_t[n]);  // every element written below
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
      if (in.c_contiguous()) {
        for (int64_t i = a; i < b; ++i) m[i] = seed_class(src[i], low, high);
        return;
      }
      int64_t i = a;
      for_range(in, a, b, [&](int64_t o) { m[i++] = seed_class(src[o], low, high); });
    });
  });
  // a C-contiguous output takes the 0/1 bytes directly (bool is one byte); any other through a buffer
  bool* dst = out.ptr<bool>();
  const bool direct = out.c_contiguous();
  std::unique_ptr<uint8_t[]> buffer(direct ? nullptr : new uint8_t[n]);
  uint8_t* keep = direct ? reinterpret_cast<uint8_t*>(dst) : buffer.get();
  if (n < INT32_MAX) seeded<int32_t>(in, m.get(), keep, roots);
  else seeded<int64_t>(in, m.get(), keep, roots);
  if (direct) return;
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    int64_t i = a;
    for_range(out, a, b, [&](int64_t o) { dst[o] = keep[i++] != 0; });
  });
}

}  // namespace ndimg::label
