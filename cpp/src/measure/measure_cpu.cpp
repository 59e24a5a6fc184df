// CPU schedules of the statistics per label: the elements split into parts in C order, each part reducing
// into its own tables (the first part into the outputs), merged part after part (a tie keeps the first
// position in C order).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/index.hpp"
#include "core/parts.hpp"
#include "measure/measure.hpp"

namespace ndimg::measure {
namespace {

// Parts of a reduction into tables of `width` entries. Small tables: a number fixed by n, so that float sums
// are the same bits at every thread count. Large ones (many labels): one part per thread, at most n / (8 *
// width) beyond the first, since zeroing and merging the tables would otherwise cost more than the pass.
int64_t slot_parts(int64_t n, int64_t width) {
  width = std::max<int64_t>(width, 1);
  if (fixed_parts(n) * width * 8 <= n) return fixed_parts(n);
  return std::max<int64_t>(1, std::min(parts_for(n), n / (8 * width)));
}

// f(x, s, i) for the elements [a, b) (C order) whose slot s is in [0, ns), i being the element's flat index
// (a slot beyond the tables counts nowhere: never a write out of bounds); empty slots: every element in slot 0.
template <class T, class F>
void walk(const View& in, const View& slots, int64_t ns, int64_t a, int64_t b, F&& f) {
  const T* src = in.ptr<T>();
  if (slots.size() == 0) {
    int64_t i = a;
    for_range(in, a, b, [&](int64_t oi) { f(src[oi], 0, i++); });
    return;
  }
  const int32_t* sl = slots.ptr<int32_t>();
  for_range2(in, slots, a, b, [&](int64_t oi, int64_t i) {
    const int32_t s = sl[i];
    if (s >= 0 && s < ns) f(src[oi], s, i);
  });
}

// walk() adding into a local accumulator while consecutive elements share a slot (labels come in regions),
// flushed into the slot's tables when the slot changes: no chain of loads and stores through a table entry.
template <class T, class Acc, class Add, class Flush>
void walk_merged(const View& in, const View& slots, int64_t ns, int64_t a, int64_t b, Add&& add, Flush&& flush) {
  int32_t cur = -1;
  Acc acc{};
  walk<T>(in, slots, ns, a, b, [&](T x, int32_t s, int64_t i) {
    if (s != cur) {
      if (cur >= 0) flush(cur, acc);
      cur = s;
      acc = Acc{};
    }
    add(acc, x, s, i);
  });
  if (cur >= 0) flush(cur, acc);
}

// For a C-contiguous image (and slots): f(s, i, j) for each stretch [i, j) of [a, b) whose elements share the
// slot s in [0, ns) (no slots: all of [a, b) in slot 0), so that a stretch is summed by a plain loop; false
// (nothing done) for other layouts.
template <class F>
bool for_stretches(const View& in, const View& slots, int64_t ns, int64_t a, int64_t b, F&& f) {
  if (!in.c_contiguous() || (slots.size() && !slots.c_contiguous())) return false;
  if (slots.size() == 0) {
    if (a < b && ns > 0) f(int32_t(0), a, b);
    return true;
  }
  const int32_t* sl = slots.ptr<int32_t>();
  for (int64_t i = a, j; i < b; i = j) {
    const int32_t s = sl[i];
    for (j = i + 1; j < b && sl[j] == s; ++j) {
    }
    if (s >= 0 && s < ns) f(s, i, j);
  }
  return true;
}

// The float64 sum of term(x) over src[a, b) in independent chains: one chain of float64 additions waits on
// the adder's latency (3-4x slower than the loads).
template <class T, class Term>
double lane_sum(const T* src, int64_t a, int64_t b, Term&& term) {
  constexpr int kLanes = 8;
  double l[kLanes] = {};
  int64_t i = a;
  for (; i + kLanes <= b; i += kLanes)
    for (int k = 0; k < kLanes; ++k) l[k] += term(src[i + k]);
  for (; i < b; ++i) l[0] += term(src[i]);
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

// Per-part tables of `width` entries of type V for parts 1..P-1 (part 0 writes the output itself).
template <class V>
struct PartTables {
  std::vector<V> data;
  int64_t width;
  V* out;
  PartTables(int64_t parts, int64_t w, V* o) : data((parts - 1) * w, V(0)), width(w), out(o) {}
  V* of(int64_t p) { return p == 0 ? out : data.data() + (p - 1) * width; }
};

// out[k] += part p's entry k for p = 1.. in order, over the entries k in parallel.
template <class V, class Add>
void merge_parts(int64_t parts, PartTables<V>& t, Add&& add) {
  if (parts <= 1) return;
  parallel_for(t.width, 4096, [&](int64_t k0, int64_t k1) {
    for (int64_t p = 1; p < parts; ++p) {
      const V* src = t.of(p);
      for (int64_t k = k0; k < k1; ++k) add(t.out[k], src[k]);
    }
  });
}

const auto plus = [](auto& a, auto b) { a += b; };
// int64 sums that wrap (two's complement), as NumPy's integer sums do
const auto wrap_plus = [](int64_t& a, int64_t b) { a = int64_t(uint64_t(a) + uint64_t(b)); };

}  // namespace

void slots_cpu(const View& labels, Map map, int64_t lo, const View& table, const View& out) {
  int32_t* o = out.ptr<int32_t>();
  dispatch_dtype(labels.dtype, [&]<class L>() {
    const L* src = labels.ptr<L>();
    const bool flat = labels.c_contiguous();
    const auto fill = [&](auto&& slot) {
      parallel_for(labels.size(), 1 << 15, [&](int64_t a, int64_t b) {
        if (flat)
          for (int64_t i = a; i < b; ++i) o[i] = slot(src[i]);
        else
          for_range2(labels, out, a, b, [&](int64_t ol, int64_t i) { o[i] = slot(src[ol]); });
      });
    };
    // one region (labels > 0, or one label): a branch-free loop the compiler vectorizes; 3-4x faster than
    // Slotter's per-element choice of map
    const int32_t first = map == Map::dense && table.size() == 1 ? static_cast<const int32_t*>(table.data)[0] : -1;
    if (map == Map::positive)
      fill([](L v) { return v > L(0) ? int32_t(0) : int32_t(-1); });
    else if (first >= 0 && !std::is_same_v<L, uint64_t>)   // uint64 labels beyond int64 must match nothing
    {
      // compared in L (vectors of L's width); a label no L can hold matches nothing
      const L key = L(lo);
      const int32_t hit = double(key) == double(lo) && int64_t(key) == lo ? first : -1;
      fill([key, hit](L v) { return v == key ? hit : int32_t(-1); });   // by value: no aliasing with the stores
    }
    else
      fill(Slotter<L>{map, lo, table.size(), table.data});
  });
}

void moments_cpu(const View& in, const View& slots, const View& counts, const View& sums, const View& isums) {
  const int64_t n = in.size(), ns = counts.size(), parts = slot_parts(n, ns);
  PartTables<int64_t> c(parts, ns, counts.ptr<int64_t>()), is(parts, ns, isums.ptr<int64_t>());
  PartTables<double> sm(parts, ns, sums.ptr<double>());
  dispatch_dtype(in.dtype, [&]<class T>() {
    for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
      int64_t *pc = c.of(p), *pi = is.of(p);
      double* ps = sm.of(p);
      const T* src = in.ptr<T>();
      if (for_stretches(in, slots, ns, a, b, [&](int32_t s, int64_t i, int64_t j) {
            pc[s] += j - i;
            ps[s] += lane_sum(src, i, j, [](T x) { return double(x); });
            if constexpr (!std::is_floating_point_v<T>) {
              uint64_t isum = 0;
              for (int64_t k = i; k < j; ++k) isum += uint64_t(src[k]);
              wrap_plus(pi[s], int64_t(isum));
            }
          }))
        return;
      struct Acc {
        int64_t c;
        double sum;
        uint64_t isum;
      };
      walk_merged<T, Acc>(
          in, slots, ns, a, b,
          [](Acc& r, T x, int32_t, int64_t) {
            ++r.c;
            r.sum += double(x);
            if constexpr (!std::is_floating_point_v<T>) r.isum += uint64_t(x);
          },
          [&](int32_t s, const Acc& r) {
            pc[s] += r.c;
            ps[s] += r.sum;
            wrap_plus(pi[s], int64_t(r.isum));
          });
    });
  });
  merge_parts(parts, c, plus);
  merge_parts(parts, sm, plus);
  merge_parts(parts, is, wrap_plus);
}

void centered_cpu(const View& in, const View& slots, const View& means, const View& sq) {
  const int64_t n = in.size(), ns = sq.size(), parts = slot_parts(n, ns);
  const double* m = means.ptr<double>();
  PartTables<double> t(parts, ns, sq.ptr<double>());
  dispatch_dtype(in.dtype, [&]<class T>() {
    for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
      double* q = t.of(p);
      const T* src = in.ptr<T>();
      if (for_stretches(in, slots, ns, a, b, [&](int32_t s, int64_t i, int64_t j) {
            const double ms = m[s];
            q[s] += lane_sum(src, i, j, [ms](T x) {
              const double d = double(x) - ms;
              return d * d;
            });
          }))
        return;
      walk_merged<T, double>(
          in, slots, ns, a, b,
          [&](double& r, T x, int32_t s, int64_t) {
            const double d = double(x) - m[s];
            r += d * d;
          },
          [&](int32_t s, double r) { q[s] += r; });
    });
  });
  merge_parts(parts, t, plus);
}

void weighted_coords_cpu(const View& in, const View& slots, const View& coords) {
  const int nd = in.ndim;
  const int64_t n = in.size(), ns = coords.shape[0], width = coords.size(), parts = slot_parts(n, width);
  PartTables<double> t(parts, width, coords.ptr<double>());
  dispatch_dtype(in.dtype, [&]<class T>() {
    for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
      double* w = t.of(p);
      // the index of element a, then stepped along with the walk (which visits every element in order)
      int64_t idx[kMaxDim];
      for (int64_t d = nd - 1, rem = a; d >= 0; --d) {
        idx[d] = rem % in.shape[d];
        rem /= in.shape[d];
      }
      const T* src = in.ptr<T>();
      const int32_t* sl = slots.size() ? slots.ptr<int32_t>() : nullptr;
      int64_t i = a;
      for_range(in, a, b, [&](int64_t oi) {
        const int32_t s = sl ? sl[i] : 0;
        ++i;
        if (s >= 0 && s < ns) {
          const double x = double(src[oi]);
          for (int d = 0; d < nd; ++d) w[s * nd + d] += x * double(idx[d]);
        }
        for (int d = nd - 1; d >= 0 && ++idx[d] == in.shape[d]; --d) idx[d] = 0;
      });
    });
  });
  merge_parts(parts, t, plus);
}

void extrema_cpu(const View& in, const View& slots, const View& mins, const View& maxs, const View& minpos,
                 const View& maxpos, const View& nans, const View& nanpos) {
  const int64_t n = in.size(), ns = mins.size(), parts = slot_parts(n, ns);
  dispatch_dtype(in.dtype, [&]<class T>() {
    struct Slot {
      T mn{}, mx{};
      int64_t mnp = -1, mxp = -1, nanc = 0, nanp = -1;
    };
    std::vector<Slot> t(parts * ns);
    for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
      Slot* q = t.data() + p * ns;
      walk<T>(in, slots, ns, a, b, [&](T x, int32_t s, int64_t i) {
        Slot& e = q[s];
        if (is_nan(x)) {
          if (e.nanc++ == 0) e.nanp = i;
          return;
        }
        if (e.mnp < 0 || x < e.mn) e.mn = x, e.mnp = i;
        if (e.mxp < 0 || x > e.mx) e.mx = x, e.mxp = i;
      });
    });
    T *omn = mins.ptr<T>(), *omx = maxs.ptr<T>();
    int64_t *omnp = minpos.ptr<int64_t>(), *omxp = maxpos.ptr<int64_t>(), *onan = nans.ptr<int64_t>(),
            *onanp = nanpos.ptr<int64_t>();
    parallel_for(ns, 4096, [&](int64_t s0, int64_t s1) {
      for (int64_t s = s0; s < s1; ++s) {
        Slot r = t[s];
        for (int64_t p = 1; p < parts; ++p) {  // parts in C order: on a tie the earlier one stays
          const Slot& e = t[p * ns + s];
          if (e.mnp >= 0 && (r.mnp < 0 || e.mn < r.mn)) r.mn = e.mn, r.mnp = e.mnp;
          if (e.mxp >= 0 && (r.mxp < 0 || e.mx > r.mx)) r.mx = e.mx, r.mxp = e.mxp;
          if (e.nanc && !r.nanc) r.nanp = e.nanp;
          r.nanc += e.nanc;
        }
        const bool any = r.mnp >= 0;
        omn[s] = any ? r.mn : T(0);
        omx[s] = any ? r.mx : T(0);
        omnp[s] = any ? r.mnp : -1;
        omxp[s] = any ? r.mxp : -1;
        onan[s] = r.nanc;
        onanp[s] = r.nanc ? r.nanp : -1;
      }
    });
  });
}

void histogram_cpu(const View& in, const View& slots, std::span<const double> edges, const View& hist) {
  const int64_t nbins = hist.shape[1];
  const int64_t n = in.size(), ns = hist.shape[0], width = hist.size(), parts = slot_parts(n, width);
  const double scale = double(nbins) / (edges.back() - edges.front());
  PartTables<int64_t> t(parts, width, hist.ptr<int64_t>());
  dispatch_dtype(in.dtype, [&]<class T>() {
    for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
      int64_t* h = t.of(p);
      walk<T>(in, slots, ns, a, b, [&](T x, int32_t s, int64_t) {
        const int64_t bin = bin_of(double(x), edges.data(), nbins, scale);
        if (bin >= 0) ++h[s * nbins + bin];
      });
    });
  });
  merge_parts(parts, t, plus);
}

void order_cpu(const View& slots, const View& counts, const View& out) {
  const int64_t ns = counts.size();
  const int64_t* c = counts.ptr<int64_t>();
  std::vector<int64_t> at(ns, 0);
  for (int64_t s = 1; s < ns; ++s) at[s] = at[s - 1] + c[s - 1];
  const int32_t* sl = slots.ptr<int32_t>();
  int64_t* o = out.ptr<int64_t>();
  for (int64_t i = 0, n = slots.size(); i < n; ++i)
    if (sl[i] >= 0) o[at[sl[i]]++] = i;
}

void median_cpu(const View& in, const View& slots, const View& out, bool propagate_nan) {
  const int64_t n = in.size(), ns = out.size();
  dispatch_dtype(in.dtype, [&]<class T>() {
    // selected in the output's type (float32 input: float, half the memory of double)
    using V = std::conditional_t<std::is_same_v<T, float>, float, double>;
    V* o = out.ptr<V>();
    // each slot's values side by side (a counting sort by slot; no slots: the image in one)
    std::vector<int64_t> c(ns, 0), start(ns + 1, 0);
    if (slots.size() == 0) c[0] = n;
    else walk<T>(in, slots, ns, 0, n, [&](T, int32_t s, int64_t) { ++c[s]; });
    for (int64_t s = 0; s < ns; ++s) start[s + 1] = start[s] + c[s];
    std::vector<V> values(start[ns]);
    std::vector<int64_t> at(start.begin(), start.end() - 1);
    walk<T>(in, slots, ns, 0, n, [&](T x, int32_t s, int64_t) { values[at[s]++] = V(x); });
    parallel_for(ns, 256, [&](int64_t s0, int64_t s1) {
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t k = c[s];
        if (k == 0) continue;
        V* v = values.data() + start[s];
        // NaN sorts above every number: moved to the end, the numbers then selected with a plain <
        const int64_t valid = std::partition(v, v + k, [](V x) { return x == x; }) - v;
        const int64_t mid = k / 2;
        if (mid >= valid || (propagate_nan && valid < k)) {
          o[s] = std::numeric_limits<V>::quiet_NaN();
          continue;
        }
        std::nth_element(v, v + mid, v + valid);
        const V hi = v[mid], lo = k % 2 ? hi : *std::max_element(v, v + mid);
        o[s] = (lo + hi) / V(2);
      }
    });
  });
}

}  // namespace ndimg::measure
