// The rank filters' CPU schedules: image lines (rows of every plane) split over the thread pool. Along a
// line the window histogram is built once at its first pixel and then updated by the footprint's east and
// west run ends only (Huang's sliding histogram, as scikit-image slides it), the sum of its grey levels kept
// with it for the mean-like statistics; or, for a footprint small against the passes its statistic makes
// over a window and the bins it would scan, each pixel's window values gathered and read directly.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "ndimg/parallel.hpp"
#include "rank/rank.hpp"

namespace ndimg::rank {
namespace {

using namespace math;

// A thread's window histogram: the bins, then their groups' counts.
struct Hist {
  int32_t* bins;
  int32_t* groups;
  int32_t operator[](int64_t i) const { return bins[i]; }
  int32_t group(int64_t j) const { return groups[j]; }
};

// One footprint list element on the current line: the start of its image row and its column offset.
struct Tap {
  int64_t base;
  int64_t dc;
};

// The footprint list's elements whose plane and row lie in the image, on line (p, r).
void select(const Geometry& q, int64_t p, int64_t r, const Offset* o, int64_t n, std::vector<Tap>& taps) {
  taps.clear();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t pp = p + o[k].dp, rr = r + o[k].dr;
    if (pp >= 0 && pp < q.planes && rr >= 0 && rr < q.rows) taps.push_back({(pp * q.rows + rr) * q.cols, o[k].dc});
  }
}

bool use_direct(const Geometry& q) {
  if (!has_direct(q) || q.schedule == kForceHistogram) return false;
  return q.schedule == kForceDirect ||
         q.n_full * direct_passes(q) < q.n_east + q.n_west + (q.need_bins ? groups_of(q.n_bins) + kGroup : 0);
}

template <class T, class O>
void run_direct(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out) {
  const T* src = image.ptr<T>();
  const uint8_t* msk = q.use_mask ? mask.ptr<uint8_t>() : nullptr;
  O* dst = out.ptr<O>();
  const int64_t R = q.rows, C = q.cols;
  const int64_t line_cost = C * q.n_full * direct_passes(q);
  parallel_for(q.planes * R, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, line_cost)), [&](int64_t l0, int64_t l1) {
    std::vector<Tap> full;
    std::vector<int32_t> vals(size_t(std::max<int64_t>(1, q.n_full)));
    for (int64_t line = l0; line < l1; ++line) {
      select(q, line / R, line % R, lists, q.n_full, full);
      const int64_t row = line * C;
      for (int64_t col = 0; col < C; ++col) {
        int64_t m = 0;
        for (const Tap& t : full) {
          const int64_t cc = col + t.dc;
          if (cc < 0 || cc >= C || (msk && !msk[t.base + cc])) continue;
          vals[size_t(m++)] = int32_t(src[t.base + cc]);
        }
        ValueWindow<ValueArray> w{{vals.data()}, m, q.n_bins};
        w.scan<kScanAll, false>();
        store(q, w, w.pop, w.sum, int64_t(src[row + col]), dst + (row + col) * q.odepth);
      }
    }
  });
}

template <class T, class O>
void run(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out) {
  const T* src = image.ptr<T>();
  const uint8_t* msk = q.use_mask ? mask.ptr<uint8_t>() : nullptr;
  O* dst = out.ptr<O>();
  const int64_t R = q.rows, C = q.cols;
  const int64_t line_cost = C * (q.n_east + q.n_west + std::min<int64_t>(q.n_bins, 256)) + q.n_full;
  parallel_for(q.planes * R, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, line_cost)), [&](int64_t l0, int64_t l1) {
    std::vector<int32_t> hist(size_t(q.n_bins + groups_of(q.n_bins)));
    const Hist h{hist.data(), hist.data() + q.n_bins};
    std::vector<Tap> full, east, west;
    std::vector<int64_t> eat, wat;
    // entropy's terms for the window's current population (constant away from the borders and the mask)
    std::vector<double> terms;
    int64_t terms_pop = -1;
    for (int64_t line = l0; line < l1; ++line) {
      const int64_t p = line / R, r = line % R;
      select(q, p, r, lists, q.n_full, full);
      select(q, p, r, lists + q.n_full, q.n_east, east);
      select(q, p, r, lists + q.n_full + q.n_east, q.n_west, west);
      if (q.need_bins) std::fill(hist.begin(), hist.end(), 0);
      int64_t pop = 0, wsum = 0;
      auto add = [&](int64_t at, int sign) {
        if (msk && !msk[at]) return;
        const int64_t v = src[at];
        pop += sign;
        wsum += sign * v;
        if (q.need_bins) {
          h.bins[v] += sign;
          if (q.need_groups) h.groups[v >> kGroupShift] += sign;
        }
      };
      for (const Tap& t : full)
        if (t.dc >= 0 && t.dc < C) add(t.base + t.dc, 1);
      const int64_t row = line * C;
      auto put = [&](int64_t at) {
        if (q.stat == kEntropy && pop != terms_pop && pop > 0) {
          terms.resize(size_t(pop + 1));
          for (int64_t c = 1; c <= pop; ++c) terms[size_t(c)] = entropy_term(c, double(pop));
          terms_pop = pop;
        }
        store(q, HistWindow<Hist>{h, q.n_bins}, pop, wsum, int64_t(src[at]), dst + at * q.odepth,
              q.stat == kEntropy ? terms.data() : nullptr);
      };
      put(row);
      // the columns near the line's ends: every tap checked
      auto edge = [&](int64_t c0, int64_t c1) {
        for (int64_t col = c0; col < c1; ++col) {
          for (const Tap& t : east) {
            const int64_t cc = col + t.dc;
            if (cc >= 0 && cc < C) add(t.base + cc, 1);
          }
          for (const Tap& t : west) {
            const int64_t cc = col - 1 + t.dc;
            if (cc >= 0 && cc < C) add(t.base + cc, -1);
          }
          put(row + col);
        }
      };
      // the columns whose taps all lie in the line's rows: each tap's index at column 0, no checks, the
      // mask and the histogram's parts decided once
      eat.clear();
      wat.clear();
      for (const Tap& t : east) eat.push_back(t.base + t.dc);
      for (const Tap& t : west) wat.push_back(t.base + t.dc - 1);
      auto inner = [&](auto masked, auto bins, auto groups, int64_t c0, int64_t c1) {
        const int64_t ne = int64_t(eat.size()), nw = int64_t(wat.size());
        const int64_t *ea = eat.data(), *wa = wat.data();
        for (int64_t col = c0; col < c1; ++col) {
          for (int64_t k = 0; k < ne; ++k) {
            const int64_t at = ea[k] + col;
            if (masked && !msk[at]) continue;
            const int v = src[at];
            ++pop;
            wsum += v;
            if (bins) ++h.bins[v];
            if (groups) ++h.groups[v >> kGroupShift];
          }
          for (int64_t k = 0; k < nw; ++k) {
            const int64_t at = wa[k] + col;
            if (masked && !msk[at]) continue;
            const int v = src[at];
            --pop;
            wsum -= v;
            if (bins) --h.bins[v];
            if (groups) --h.groups[v >> kGroupShift];
          }
          put(row + col);
        }
      };
      // a footprint wholly west of the centre (max_dc < 0) still ends the unchecked columns at the line's end
      const int64_t lo = std::min(C, std::max<int64_t>(1, 1 - q.min_dc));
      const int64_t hi = std::max(lo, C - std::max<int64_t>(0, q.max_dc));
      edge(1, lo);
      using Yes = std::true_type;
      using No = std::false_type;
      auto inner_masked = [&](auto masked) {
        if (q.need_groups) inner(masked, Yes{}, Yes{}, lo, hi);
        else if (q.need_bins) inner(masked, Yes{}, No{}, lo, hi);
        else inner(masked, No{}, No{}, lo, hi);
      };
      if (msk) inner_masked(Yes{});
      else inner_masked(No{});
      edge(hi, C);
    }
  });
}

template <class T, class O>
void run_either(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out) {
  if (use_direct(q)) run_direct<T, O>(image, mask, lists, q, out);
  else run<T, O>(image, mask, lists, q, out);
}

template <class T>
void run_in(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out) {
  switch (out.dtype) {
    case DType::U8: return run_either<T, uint8_t>(image, mask, lists, q, out);
    case DType::U16: return run_either<T, uint16_t>(image, mask, lists, q, out);
    case DType::F32: return run_either<T, float>(image, mask, lists, q, out);
    default: return run_either<T, double>(image, mask, lists, q, out);
  }
}

}  // namespace

void rank_cpu(const View& image, const View& mask, const Offset* lists, const Geometry& q, const View& out) {
  if (image.dtype == DType::U8) run_in<uint8_t>(image, mask, lists, q, out);
  else run_in<uint16_t>(image, mask, lists, q, out);
}

}  // namespace ndimg::rank
