// CPU schedule of the connected components: union-find with path halving over slabs along axis 0, labelled
// in parallel, their seams joined serially.
#include <algorithm>
#include <atomic>
#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
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

// The taps seen from one line of the last axis, by neighbour line: its offset and the steps along it (bit
// dx + 1 of `steps` for the step dx, that step being taps[tap[dx + 1]]).
struct LineTaps {
  int64_t line;
  unsigned steps;
  int tap[3];
};
// The neighbour lines that exist for the line starting at C index `start` (and, with `from` >= 0, lie at or
// after `from`); `prev` says whether the tap (0, ..., 0, -1) is among the taps.
int line_taps(const std::vector<Tap>& taps, int ndim, const int64_t* shape, const int64_t* cstride, int64_t start,
              int64_t from, LineTaps* out, bool& prev) {
  const int last = ndim - 1;
  int64_t coord[kMaxDim];
  for (int64_t d = last, rem = start; d >= 0; --d) {
    coord[d] = rem % shape[d];
    rem /= shape[d];
  }
  int count = 0;
  prev = false;
  for (size_t k = 0; k < taps.size(); ++k) {
    const Tap& t = taps[k];
    int64_t line = 0;
    bool inside = true;
    for (int d = 0; d < last && inside; ++d) {
      const int64_t c = coord[d] + t[d];
      inside = c >= 0 && c < shape[d];
      line += t[d] * cstride[d];
    }
    if (!inside || (from >= 0 && start + line < from)) continue;
    if (line == 0) {  // the only earlier tap within the line
      prev = true;
      continue;
    }
    int q = 0;
    while (q < count && out[q].line != line) ++q;
    if (q == count) out[count++] = LineTaps{line, 0, {}};
    out[q].steps |= 1u << (t[last] + 1);
    out[q].tap[t[last] + 1] = int(k);
  }
  return count;
}

// The members as bits, 64 elements of a line to a word (bit x % 64 of word x / 64; bits past the line's end
// are 0): the tests of the union pass run on whole words.
std::vector<uint64_t> member_bits(const uint8_t* m, int64_t lines, int64_t width, int64_t words) {
  std::vector<uint64_t> bits(size_t(lines * words));
  parallel_for(lines, 64, [&](int64_t l0, int64_t l1) {
    for (int64_t l = l0; l < l1; ++l) {
      const uint8_t* src = m + l * width;
      uint64_t* dst = bits.data() + l * words;
      for (int64_t w = 0; w < words; ++w) {
        const int64_t k1 = std::min<int64_t>(64, width - w * 64);
        uint64_t word = 0;
#if defined(__SSE2__)
        int64_t k = 0;
        for (; k + 16 <= k1; k += 16) {
          const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + w * 64 + k));
          const unsigned zero = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
          word |= uint64_t(~zero & 0xffffu) << k;
        }
        for (; k < k1; ++k) word |= uint64_t(src[w * 64 + k] != 0) << k;
#else
        for (int64_t k = 0; k < k1; ++k) word |= uint64_t(src[w * 64 + k] != 0) << k;
#endif
        dst[w] = word;
      }
    }
  });
  return bits;
}
// Word w of a line's bits moved by `by` elements (-2..1): bit x holds the element x + by (0 outside the line).
inline uint64_t moved(const uint64_t* line, int64_t w, int64_t words, int by) {
  if (by == 0) return line[w];
  if (by > 0) return (line[w] >> by) | (w + 1 < words ? line[w + 1] << (64 - by) : 0);
  return (line[w] << -by) | (w > 0 ? line[w - 1] >> (64 + by) : 0);
}

// label_values' equalities in member_bits' layout, a block of all lines per tap and a last block for the step
// back along the line: bit x of line l in block k says that element x equals its neighbour by that tap
// (compared as T; 0 where the neighbour lies outside). The union-find then reads bits only, whatever T.
template <class T>
std::vector<uint64_t> equal_bits(const View& in, const std::vector<Tap>& taps, int64_t words) {
  const int last = in.ndim - 1;
  const int64_t width = in.shape[last], lines = in.size() / width, block = lines * words, xs = in.strides[last];
  std::vector<Tap> all = taps;
  all.push_back(Tap{});
  all.back()[last] = -1;
  std::vector<uint64_t> bits(size_t(block) * all.size(), 0);
  const T* v = in.ptr<T>();
  parallel_for(lines, 64, [&](int64_t l0, int64_t l1) {
    for (int64_t l = l0; l < l1; ++l) {
      int64_t coord[kMaxDim], base = 0;
      for (int64_t d = last - 1, rem = l; d >= 0; --d) {
        coord[d] = rem % in.shape[d];
        rem /= in.shape[d];
        base += coord[d] * in.strides[d];
      }
      for (size_t k = 0; k < all.size(); ++k) {
        const Tap& t = all[k];
        int64_t step = 0;
        bool inside = true;
        for (int d = 0; d < last; ++d) {
          const int64_t c = coord[d] + t[d];
          inside &= c >= 0 && c < in.shape[d];
          step += t[d] * in.strides[d];
        }
        if (!inside) continue;
        const int64_t dx = t[last], lo = std::max<int64_t>(0, -dx), hi = std::min(width, width - dx);
        step += dx * xs;
        uint64_t* dst = bits.data() + k * block + l * words;
        for (int64_t w = 0; w < words; ++w) {
          uint64_t word = 0;
          for (int64_t x = std::max(lo, w * 64), x1 = std::min(hi, w * 64 + 64); x < x1; ++x) {
            const int64_t o = base + x * xs;
            word |= uint64_t(v[o] == v[o + step]) << (x & 63);
          }
          dst[w] = word;
        }
      }
    }
  });
  return bits;
}

// Union-find over the C-order classes m (0: background, else member) joined by the earlier taps, flattened:
// par[i] = the root of i's set, the set's smallest index (a non-member is its own root). kValues: members join
// only where equal_bits says their values are equal (eq).
template <class I, bool kValues = false>
void connect(const View& in, const uint8_t* m, const std::vector<Tap>& taps, I* par, const uint64_t* eq = nullptr) {
  const int64_t n = in.size(), rows = in.shape[0], row = n / rows;
  int64_t cstride[kMaxDim];
  cstride[in.ndim - 1] = 1;
  for (int d = in.ndim - 2; d >= 0; --d) cstride[d] = cstride[d + 1] * in.shape[d + 1];
  const int last = in.ndim - 1;
  // slabs of whole lines: a 1-D input is one line
  const int64_t slabs = in.ndim == 1 ? 1 : parts_for(rows, (1 << 15) / row);
  const int64_t width = in.shape[last];
  const int64_t* shape = in.shape.data();
  const int64_t words = (width + 63) / 64;
  const std::vector<uint64_t> bits = member_bits(m, n / width, width, words);
  const int64_t block = n / width * words;  // eq's blocks; the last one: equal to the element before on the line
  const auto eq_line = [&](size_t k, int64_t start) { return eq + int64_t(k) * block + start / width * words; };
  parallel_for(slabs, 1, [&](int64_t s0, int64_t s1) {
    std::vector<LineTaps> lt(taps.size());
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t begin = rows * s / slabs * row, end = rows * (s + 1) / slabs * row;
      for (int64_t start = begin; start < end; start += width) {  // one line of the last axis at a time
        bool has_prev;
        const int nt = line_taps(taps, in.ndim, shape, cstride, start, begin, lt.data(), has_prev);
        // 1. Runs: with the tap (0, ..., 0, -1), each member takes the first element of its run along the
        // line as its parent (a smaller index, its own root so far); a non-member is its own set, never
        // joined. A select per element, no branch (members are salt in a random mask).
        const uint64_t* same = kValues ? eq_line(taps.size(), start) : nullptr;
        I head = I(start);
        par[start] = head;
        for (int64_t i = start + 1; i < start + width; ++i) {
          unsigned link = has_prev & (m[i] != 0) & (m[i - 1] != 0);
          if constexpr (kValues) link &= unsigned(same[(i - start) >> 6] >> ((i - start) & 63)) & 1u;
          const I keep = -I(link);  // masks: GCC makes ?: a branch here
          head = (head & keep) | (I(i) & ~keep);
          par[i] = head;
        }
        // 2. Unions with the earlier lines where needed, 64 elements at a time as bits (no branches where
        // members are salt). i's run and j's runs are joined by step 1 already.
        const uint64_t* here = bits.data() + start / width * words;
        for (int q = 0; q < nt; ++q) {
          const int64_t line = lt[q].line;
          const uint64_t* there = bits.data() + (start + line) / width * words;
          const uint64_t* same_there = kValues ? eq_line(taps.size(), start + line) : nullptr;
          const bool full = has_prev && lt[q].steps == 7;
          for (int64_t w = 0; w < words; ++w) {
            const int64_t base = start + w * 64;
            const uint64_t mi = here[w], before = has_prev ? moved(here, w, words, -1) : 0;
            if (!mi) continue;
            if (full) {
              // all three steps: i - 1, joined to i (a member; kValues: of i's value), met j - 1 and j; else i
              // meets j, or j - 1 (not joined to j); and j + 1 unless it is joined to j and j met i. e*: the
              // pairs' equalities (all ones without kValues), run: i joined to i - 1, next: j + 1 to j.
              uint64_t em = ~uint64_t(0), e0 = em, ep = em, run = before, next = em;
              if constexpr (kValues) {
                em = eq_line(lt[q].tap[0], start)[w], e0 = eq_line(lt[q].tap[1], start)[w];
                ep = eq_line(lt[q].tap[2], start)[w], run &= same[w], next = moved(same_there, w, words, 1);
              }
              const uint64_t jp = moved(there, w, words, 1), meet = mi & moved(there, w, words, 0) & e0;
              uint64_t mid = meet & ~run, left = mi & moved(there, w, words, -1) & em & ~run & ~meet;
              uint64_t right = mi & jp & ep & ~(meet & jp & next);
              for (; mid; mid &= mid - 1) unite<I>(par, I(base + std::countr_zero(mid)), I(base + std::countr_zero(mid) + line));
              for (; left; left &= left - 1) unite<I>(par, I(base + std::countr_zero(left)), I(base + std::countr_zero(left) + line - 1));
              for (; right; right &= right - 1) unite<I>(par, I(base + std::countr_zero(right)), I(base + std::countr_zero(right) + line + 1));
              continue;
            }
            // each step alone: where i - 1 and j - 1 are members (kValues: each of i's value, j's), the same
            // step joined them already
            for (int dx = -1; dx <= 1; ++dx) {
              if (!(lt[q].steps >> (dx + 1) & 1)) continue;
              uint64_t need;
              if constexpr (kValues)
                need = mi & moved(there, w, words, dx) & eq_line(lt[q].tap[dx + 1], start)[w] &
                       ~(before & same[w] & moved(there, w, words, dx - 1) & moved(same_there, w, words, dx));
              else
                need = mi & moved(there, w, words, dx) & ~(before & moved(there, w, words, dx - 1));
              for (; need; need &= need - 1) {
                const int64_t i = base + std::countr_zero(need);
                unite<I>(par, I(i), I(i + line + dx));
              }
            }
          }
        }
      }
    }
  });
  // the seams: the taps that reach back across axis 0 from each slab's first hyperplane
  std::vector<Tap> back;
  std::vector<size_t> back_at;  // their indices in taps
  for (size_t k = 0; k < taps.size(); ++k)
    if (taps[k][0] == -1) back.push_back(taps[k]), back_at.push_back(k);
  std::vector<LineTaps> lt(back.size());
  for (int64_t s = 1; s < slabs; ++s) {
    const int64_t begin = rows * s / slabs * row;
    for (int64_t start = begin; start < begin + row; start += width) {
      bool has_prev;  // never: every tap here steps along axis 0
      const int nt = line_taps(back, in.ndim, shape, cstride, start, -1, lt.data(), has_prev);
      for (int q = 0; q < nt; ++q)
        for (int64_t dx = -1; dx <= 1; ++dx) {
          if (!(lt[q].steps >> (dx + 1) & 1)) continue;
          for (int64_t x = std::max<int64_t>(0, -dx); x < std::min<int64_t>(width, width - dx); ++x) {
            const int64_t i = start + x, j = i + lt[q].line + dx;
            bool join = m[i] && m[j];
            if constexpr (kValues) join = join && (eq_line(back_at[lt[q].tap[dx + 1]], start)[x >> 6] >> (x & 63) & 1);
            if (join) unite<I>(par, I(i), I(j));
          }
        }
    }
  }
}

// Parts of 2**16 elements for the passes after the union-find: a root's part is its index shifted.
constexpr int kPartBits = 16;

// Flatten: par[i] = the root of i. Every parent has a smaller index (unite links the larger root under the
// smaller), so a part swept upwards finds a parent inside it already pointing at its root: one read; a
// parent in an earlier part takes a walk (concurrent readers there see an old ancestor or the root: both
// lead to the root). With `count`, also number the roots of members within each part: a root's slot takes
// minus its number there (negative: the walks stop at it), count[p + 1] the part's roots.
template <class I>
void flatten(const uint8_t* m, int64_t n, I* par, std::vector<int64_t>* count) {
  const int64_t parts = ((n - 1) >> kPartBits) + 1;
  if (count) count->assign(parts + 1, 0);
  const bool numbering = count != nullptr;
  parallel_for(parts, 1, [&, m, par, numbering](int64_t p0, int64_t p1) {  // copies: no reloads after stores
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t a = p << kPartBits, b = std::min(n, (p + 1) << kPartBits);
      I local = 0;
      for (int64_t i = a; i < b; ++i) {
        I r = std::atomic_ref<I>(par[i]).load(std::memory_order_relaxed);
        if (r >= a) {
          const I q = par[r];
          r = q < 0 ? r : q;
        } else {
          for (I q; (q = std::atomic_ref<I>(par[r]).load(std::memory_order_relaxed)) >= 0 && q != r;) r = q;
        }
        const I root = I(numbering & (r == I(i)) & (m[i] != 0));
        local += root;
        // -local where a root, else r: masks, not a branch (roots are salt in a random mask)
        std::atomic_ref<I>(par[i]).store((-local & -root) | (r & (root - 1)), std::memory_order_relaxed);
      }
      if (count) (*count)[p + 1] = local;
    }
  });
}

// The classes of `in` in C order, by cls(value), on the threads.
template <class F>
std::unique_ptr<uint8_t[]> classes(const View& in, F&& cls) {
  const int64_t n = in.size();
  std::unique_ptr<uint8_t[]> m(new uint8_t[n]);  // every element written below
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
      if (in.c_contiguous()) {
        for (int64_t i = a; i < b; ++i) m[i] = cls(src[i]);
        return;
      }
      int64_t i = a;
      for_range(in, a, b, [&](int64_t o) { m[i++] = cls(src[o]); });
    });
  });
  return m;
}

// Every element learns whether its component holds a seed (and, with roots, its root).
template <class I>
void seeded(const View& in, const uint8_t* m, uint8_t* keep, int64_t* roots) {
  const int64_t n = in.size();
  std::unique_ptr<I[]> parent(new I[n]);  // not zero-filled: connect writes every entry
  I* par = parent.get();
  connect<I>(in, m, face_taps(in.ndim), par);
  flatten<I>(m, n, par, nullptr);
  std::vector<uint8_t> reaches(n, 0);  // by root: its set holds a seed (a non-member's stays 0)
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i)
      if (m[i] == 2) std::atomic_ref<uint8_t>(reaches[par[i]]).store(1, std::memory_order_relaxed);
  });
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) keep[i] = reaches[par[i]];
    if (roots)
      for (int64_t i = a; i < b; ++i) roots[i] = m[i] ? int64_t(par[i]) : -1;
  });
}

// scipy's labels, in place of the parents (out: int32 or int64, C-contiguous): the roots numbered 1.. in C
// order (within parts by flatten, then a scan over the parts), then every member takes its root's number.
template <class I, bool kValues = false>
int64_t label_into(const View& in, const uint8_t* m, const std::vector<Tap>& taps, I* out,
                   const uint64_t* eq = nullptr) {
  const int64_t n = in.size();
  std::vector<int64_t> first;
  connect<I, kValues>(in, m, taps, out, eq);
  flatten<I>(m, n, out, &first);
  const int64_t parts = int64_t(first.size()) - 1;
  for (int64_t p = 0; p < parts; ++p) first[p + 1] += first[p];
  // branch free (members and roots are salt in a random mask): a slot holds minus its number within its
  // part (a root, until converted here), a root's index (a member), or its own index (background)
  const int64_t* base_of = first.data();
  parallel_for(parts, 1, [n, m, out, base_of](int64_t p0, int64_t p1) {  // copies: no reloads after stores
    for (int64_t i = p0 << kPartBits, end = std::min(n, p1 << kPartBits); i < end; ++i) {
      const I v = out[i];
      const I at = v < 0 ? I(i) : v;
      const I w = std::atomic_ref<I>(out[at]).load(std::memory_order_relaxed);
      const I base = I(base_of[at >> kPartBits]);  // read whatever w is: selects below, no branches
      const I number = w < 0 ? base - w : w;     // converted already, or not yet
      std::atomic_ref<I>(out[i]).store(number & -I(m[i] != 0), std::memory_order_relaxed);
    }
  });
  return first[parts];
}

}  // namespace

void seeded_components_cpu(const View& in, double low, double high, const View& out, int64_t* roots) {
  const int64_t n = in.size();
  auto m = classes(in, [&](auto v) { return seed_class(v, low, high); });
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

int64_t label_cpu(const View& in, const std::vector<Tap>& taps, const View& out) {
  // one-byte C-contiguous input is its own classes (connect reads them as truths)
  std::unique_ptr<uint8_t[]> m;
  const bool bytes = dtype_size(in.dtype) == 1 && in.c_contiguous();
  if (!bytes) m = classes(in, [](auto v) { return nonzero_class(v); });
  const uint8_t* cls = bytes ? in.ptr<uint8_t>() : m.get();
  if (out.dtype == DType::I32) return label_into(in, cls, taps, out.ptr<int32_t>());
  return label_into(in, cls, taps, out.ptr<int64_t>());
}

int64_t label_values_cpu(const View& in, int64_t background, const std::vector<Tap>& taps, const View& out) {
  const auto m = classes(in, [&](auto v) { return foreground_class(v, background); });
  const int64_t words = (in.shape[in.ndim - 1] + 63) / 64;
  const auto eq = dispatch_dtype(in.dtype, [&]<class T>() { return equal_bits<T>(in, taps, words); });
  if (out.dtype == DType::I32) return label_into<int32_t, true>(in, m.get(), taps, out.ptr<int32_t>(), eq.data());
  return label_into<int64_t, true>(in, m.get(), taps, out.ptr<int64_t>(), eq.data());
}

}  // namespace ndimg::label
