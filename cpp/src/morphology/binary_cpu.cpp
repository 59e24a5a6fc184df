// CPU schedule of the binary erosion: passes over the working buffer, lines spread over the pool. With
// scipy's centre shortcut the passes only ever clear elements, so after the first pass only the elements
// reading one that changed can change: the later passes visit those alone (scipy's coordinate lists).
#include <atomic>
#include <vector>

#include "morphology/binary.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::morphology {
namespace {

using ndimage::Geometry;

// fn(line, first element of the line in `v`) for every line of the last axis, in parallel; lines are
// numbered in C order, the working buffer's line l starting at l * shape[last].
template <class Fn>
void for_lines(const View& v, int64_t grain_elems, Fn&& fn) {
  const int last = v.ndim - 1;
  const int64_t n = v.shape[last], lines = v.size() / n;
  parallel_for(lines, std::max<int64_t>(1, grain_elems / n), [&](int64_t l0, int64_t l1) {
    for (int64_t l = l0; l < l1; ++l) fn(l, line_offset(v, last, l));
  });
}

// dst[i] = (src != 0) XOR flip over a strided view of any real dtype (the working buffers' loads).
void load(const View& src, uint8_t* dst, bool flip) {
  const int last = src.ndim - 1;
  const int64_t n = src.shape[last], s = src.strides[last];
  dispatch_dtype(src.dtype, [&]<class T>() {
    const T* a = src.ptr<T>();
    for_lines(src, 1 << 16, [&](int64_t l, int64_t o) {
      uint8_t* b = dst + l * n;
      for (int64_t j = 0; j < n; ++j) b[j] = uint8_t((a[o + j * s] != T(0)) != flip);
    });
  });
}

// One pass cur -> nxt over every element; returns how many changed.
int64_t full_pass(const BinaryPass& p, const ndimage::Taps& t, const uint8_t* cur, const uint8_t* m, uint8_t* nxt) {
  std::atomic<int64_t> changed{0};
  const Geometry& g = p.g;
  ndimage::cpu_for_each_output(g, 1 << 15, [&](const int64_t* c, int64_t i) {
    nxt[i] = erode_at(p, cur, m, i, c, t.offsets.data(), t.linear.data(), t.count);
  });
  // counted apart: a shared counter per element would serialise the pool
  const int64_t n = g.shape[0] * g.in_strides[0];  // C-contiguous buffer
  parallel_for(n, 1 << 16, [&](int64_t a, int64_t b) {
    int64_t k = 0;
    for (int64_t i = a; i < b; ++i) k += cur[i] != nxt[i];
    changed += k;
  });
  return changed;
}

// Passes 2.. of a centre-true erosion from the state after pass 1 (`cur`) and the elements it changed:
// each pass re-evaluates the set elements that read a changed one, against the state before the pass,
// then clears those that erode.
void frontier_passes(const BinaryPass& p, const ndimage::Taps& t, uint8_t* cur, const uint8_t* m,
                        std::vector<int64_t> changed, int64_t iterations) {
  const Geometry& g = p.g;
  const int nd = g.ndim;
  const int64_t n = g.shape[0] * g.in_strides[0];
  std::vector<uint8_t> mark(static_cast<size_t>(n), 0);
  std::vector<int64_t> cand, next;
  for (int64_t it = 2; !changed.empty() && (iterations < 1 || it <= iterations); ++it) {
    cand.clear();
    for (int64_t x : changed) {
      int64_t c[kMaxDim];
      int64_t r = x;
      for (int d = nd - 1; d >= 0; --d) {
        c[d] = r % g.shape[d];
        r /= g.shape[d];
      }
      for (int64_t k = 0; k < t.count; ++k) {  // y reads x through tap k: y = x - offset k
        const int64_t* off = t.offsets.data() + k * nd;
        bool inside = true;
        for (int d = 0; d < nd && inside; ++d) inside = c[d] - off[d] >= 0 && c[d] - off[d] < g.shape[d];
        const int64_t y = x - t.linear[size_t(k)];
        if (inside && cur[y] && !mark[y] && (!m || m[y])) {
          mark[y] = 1;
          cand.push_back(y);
        }
      }
    }
    next.clear();
    for (int64_t y : cand) {
      mark[y] = 0;
      int64_t c[kMaxDim];
      int64_t r = y;
      for (int d = nd - 1; d >= 0; --d) {
        c[d] = r % g.shape[d];
        r /= g.shape[d];
      }
      if (!erode_at(p, cur, m, y, c, t.offsets.data(), t.linear.data(), t.count)) next.push_back(y);
    }
    for (int64_t y : next) cur[y] = 0;
    changed.swap(next);
  }
}

}  // namespace

void binary_erosion_cpu(const View& in, const View& out, const BinaryPass& p, const ndimage::Taps& t,
                        const View* mask, bool invert, int64_t iterations) {
  const int64_t n = in.size();
  std::vector<uint8_t> cur(static_cast<size_t>(n)), nxt(cur.size()), mbuf;
  load(in, cur.data(), invert);
  if (mask) {
    mbuf.resize(size_t(n));
    load(*mask, mbuf.data(), false);
  }
  const uint8_t* m = mask ? mbuf.data() : nullptr;
  int64_t changed = full_pass(p, t, cur.data(), m, nxt.data());
  if (iterations != 1 && changed && p.centre) {
    std::vector<int64_t> list;
    for (int64_t i = 0; i < n; ++i)
      if (cur[size_t(i)] != nxt[size_t(i)]) list.push_back(i);
    cur.swap(nxt);
    frontier_passes(p, t, cur.data(), m, std::move(list), iterations);
  } else {
    cur.swap(nxt);
    for (int64_t it = 2; changed && (iterations < 1 || it <= iterations); ++it) {
      changed = full_pass(p, t, cur.data(), m, nxt.data());
      cur.swap(nxt);
    }
  }
  // out (bool, any strides) = state XOR invert
  const int last = out.ndim - 1;
  const int64_t len = out.shape[last], s = out.strides[last];
  bool* o = out.ptr<bool>();
  for_lines(out, 1 << 16, [&](int64_t l, int64_t off) {
    const uint8_t* a = cur.data() + l * len;
    for (int64_t j = 0; j < len; ++j) o[off + j * s] = bool(a[j]) != invert;
  });
}

}  // namespace ndimg::morphology
