// CPU schedule of the binary erosion: passes over the working buffer, lines spread over the pool. With
// scipy's centre shortcut the passes only ever clear elements, so only the elements reading one that
// changed can change next: once few change, the passes visit those alone (scipy's coordinate lists).
#include <algorithm>
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

// One pass cur -> nxt, line by line along the last axis: each tap ANDs its shifted source line into the
// line's result (byte loops the compiler vectorises), which is erode_at for every element of the line.
// Flip: cur is a bool input read as its complement (nonzero = true), and nxt gets the result's complement
// (a single dilation straight from and into bool arrays). Returns how many elements changed.
template <bool Flip = false>
int64_t full_pass(const BinaryPass& p, const ndimage::Taps& t, const uint8_t* __restrict cur,
                  const uint8_t* __restrict m, uint8_t* __restrict nxt) {
  auto value = [](uint8_t x) { return uint8_t((x != 0) != Flip); };
  const Geometry& g = p.g;
  const int nd = g.ndim, last = nd - 1;
  const int64_t n = g.shape[last], lines = g.shape[0] * g.in_strides[0] / n;
  std::atomic<int64_t> changed{0};
  parallel_for(lines, std::max<int64_t>(1, (int64_t(1) << 15) / std::max<int64_t>(1, n * t.count / 8)),
               [&](int64_t l0, int64_t l1) {
    int64_t local = 0, c[kMaxDim];
    for (int64_t l = l0; l < l1; ++l) {
      for (int64_t d = last - 1, r = l; d >= 0; --d) {
        c[d] = r % g.shape[d];
        r /= g.shape[d];
      }
      const int64_t base = l * n;
      const uint8_t* __restrict v = cur + base;
      uint8_t* __restrict out = nxt + base;
      std::fill(out, out + n, uint8_t(1));
      for (int64_t k = 0; k < t.count; ++k) {
        const int64_t* off = t.offsets.data() + k * nd;
        bool inside = true;
        for (int d = 0; d < last; ++d) inside &= c[d] + off[d] >= 0 && c[d] + off[d] < g.shape[d];
        if (!inside) {
          if (p.border) continue;
          std::fill(out, out + n, uint8_t(0));
          break;
        }
        // source element i + off[last] of the line at the tap's offset; outside [lo, hi) it is the border
        const int64_t lo = std::clamp<int64_t>(-off[last], 0, n), hi = std::clamp<int64_t>(n - off[last], 0, n);
        if (!p.border) {
          std::fill(out, out + lo, uint8_t(0));
          std::fill(out + hi, out + n, uint8_t(0));
        }
        const uint8_t* __restrict src = cur + (base + t.linear[size_t(k)]);
        for (int64_t i = lo; i < hi; ++i) out[i] &= value(src[i]);
      }
      if (p.centre)
        for (int64_t i = 0; i < n; ++i) out[i] &= value(v[i]);
      if (m)
        for (int64_t i = 0; i < n; ++i) out[i] = m[base + i] ? out[i] : value(v[i]);
      for (int64_t i = 0; i < n; ++i) local += out[i] != value(v[i]);
      if constexpr (Flip)
        for (int64_t i = 0; i < n; ++i) out[i] ^= 1;
    }
    changed += local;
  });
  return changed;
}

// The elements where a and b differ, in increasing order.
std::vector<int64_t> differences(const uint8_t* a, const uint8_t* b, int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i)
    if (a[i] != b[i]) out.push_back(i);
  return out;
}

// One pass of a centre-true erosion from the elements the previous pass cleared (`changed`, replaced by
// those this pass clears): an element still set that reads one of them through a tap erodes (erode_at's
// AND sees a 0), where the mask lets it change; no other element can change. Clearing at once is safe:
// this pass reads only the previous pass's list, and a cleared element is not taken twice.
void frontier_pass(const BinaryPass& p, const ndimage::Taps& t, uint8_t* cur, const uint8_t* m,
                   std::vector<int64_t>& changed, std::vector<int64_t>& next) {
  const Geometry& g = p.g;
  const int nd = g.ndim;
  next.clear();
  for (int64_t x : changed) {
    int64_t c[kMaxDim];
    for (int64_t d = nd - 1, r = x; d >= 0; --d) {
      c[d] = r % g.shape[d];
      r /= g.shape[d];
    }
    for (int64_t k = 0; k < t.count; ++k) {  // y reads x through tap k: y = x - offset k
      const int64_t* off = t.offsets.data() + k * nd;
      bool inside = true;
      for (int d = 0; d < nd; ++d) inside &= c[d] - off[d] >= 0 && c[d] - off[d] < g.shape[d];
      const int64_t y = x - t.linear[size_t(k)];
      if (inside && cur[y] && (!m || m[y])) {
        cur[y] = 0;
        next.push_back(y);
      }
    }
  }
  changed.swap(next);
}

}  // namespace

void binary_erosion_cpu(const View& in, const View& out, const BinaryPass& p, const ndimage::Taps& t,
                        const View* mask, bool invert, int64_t iterations) {
  const int64_t n = in.size();
  // one erosion or dilation from a C-contiguous bool array into one: no working buffers
  auto bytes = [](const View* v) {
    return v && v->dtype == DType::Bool && v->c_contiguous() ? v->ptr<uint8_t>() : nullptr;
  };
  if (iterations == 1 && bytes(&in) && bytes(&out) && (!mask || bytes(mask))) {
    (invert ? full_pass<true> : full_pass<false>)(p, t, bytes(&in), bytes(mask), bytes(&out));
    return;
  }
  std::vector<uint8_t> cur(static_cast<size_t>(n)), nxt(cur.size()), mbuf;
  load(in, cur.data(), invert);
  if (mask) {
    mbuf.resize(size_t(n));
    load(*mask, mbuf.data(), false);
  }
  const uint8_t* m = mask ? mbuf.data() : nullptr;
  // Full passes while many elements change; with the centre shortcut, passes from the changed elements
  // once few do (a full pass reads every element for every tap, a list pass a few taps per change).
  const int64_t few = n / 16;
  int64_t changed = full_pass(p, t, cur.data(), m, nxt.data());
  cur.swap(nxt);  // nxt: the state before the pass
  std::vector<int64_t> list, next;
  std::vector<uint8_t> back;
  bool listed = false;
  for (int64_t it = 2; changed && (iterations < 1 || it <= iterations); ++it) {
    if (p.centre && changed <= few) {
      if (!listed) {
        list = differences(cur.data(), nxt.data(), n);
        listed = true;
      }
      frontier_pass(p, t, cur.data(), m, list, next);
      changed = int64_t(list.size());
    } else {
      // without the centre shortcut passes may cycle: once a pass restores the state of two passes
      // before, the states alternate, so iterations < 1 never end (scipy's loop neither: we raise) and
      // a count's result is the state of its parity
      const bool watch = !p.centre;
      if (watch) back.assign(nxt.begin(), nxt.end());
      changed = full_pass(p, t, cur.data(), m, nxt.data());
      const bool cycle = watch && changed && back == nxt;
      cur.swap(nxt);
      listed = false;
      if (cycle) {
        if (iterations < 1) throw ValueError(kCycle);
        if ((iterations - it) % 2) cur.swap(nxt);
        break;
      }
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
