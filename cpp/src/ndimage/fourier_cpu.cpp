// The Fourier filters on the CPU engine: lines along the innermost axis on the thread pool, each line's
// outer axes joined once and its elements joined with the inner axis' table.
#include <algorithm>
#include <vector>

#include "ndimage/fourier.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {
namespace {

// One line: n elements from in parts (ir, ii) to out parts (orr, oi), strides si/so (Unit: both 1, so that
// the contiguous case compiles to a loop without stride multiplies).
template <FourierKind K, bool CIN, bool COUT, bool Unit, class TI, class TO>
inline void fourier_line(Factor outer, const double* inner, int ndim, const TI* ir, const TI* ii, TO* orr, TO* oi,
                         int64_t n, int64_t si, int64_t so) {
  using M = FourierMath<K>;
  constexpr int w = K == FourierKind::Shift ? 2 : 1;
  if constexpr (Unit) si = so = 1;
  for (int64_t i = 0; i < n; ++i) {
    const Factor f = M::finish(M::join(outer, inner + i * w), ndim);
    const Factor r = M::template apply<CIN>(f, double(ir[i * si]), CIN ? double(ii[i * si]) : 0.0);
    orr[i * so] = TO(r.re);
    if constexpr (COUT) oi[i * so] = TO(r.im);
  }
}

template <FourierKind K, bool CIN, bool COUT, class TI, class TO>
void fourier_lines(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* tables) {
  using M = FourierMath<K>;
  constexpr int w = K == FourierKind::Shift ? 2 : 1;
  const Layout& l = a.l;
  const int last = l.ndim - 1;
  const int64_t n = l.shape[last], si = l.in_strides[last], so = l.out_strides[last];
  int64_t total = 1;
  for (int d = 0; d < l.ndim; ++d) total *= l.shape[d];
  const TI* ir = in[0].ptr<TI>();
  const TI* ii = CIN ? in[1].ptr<TI>() : nullptr;
  TO* orr = out[0].ptr<TO>();
  TO* oi = COUT ? out[1].ptr<TO>() : nullptr;
  const double* inner = tables + a.start[last];
  parallel_for(total / n, std::max<int64_t>(1, 16384 / n), [&](int64_t l0, int64_t l1) {
    int64_t c[kMaxDim];
    for (int64_t line = l0; line < l1; ++line) {
      int64_t rem = line, io = 0, oo = 0;
      for (int d = last - 1; d >= 0; --d) {
        c[d] = rem % l.shape[d];
        rem /= l.shape[d];
        io += c[d] * l.in_strides[d];
        oo += c[d] * l.out_strides[d];
      }
      Factor outer = M::start();
      for (int d = 0; d < last; ++d) outer = M::join(outer, tables + a.start[d] + c[d] * w);
      auto run = [&]<bool Unit>() {
        fourier_line<K, CIN, COUT, Unit>(outer, inner, a.ndim, ir + io, CIN ? ii + io : nullptr, orr + oo,
                                          COUT ? oi + oo : nullptr, n, si, so);
      };
      if (si == 1 && so == 1) run.template operator()<true>();
      else run.template operator()<false>();
    }
  });
}

// The ellipsoid's transform costs a Bessel function or sines per element, and depends only on the sum of
// the axes' entries: lines are grouped by their outer axes' sum and a line's elements by their inner entry
// (a complex FFT's frequencies k and -k share them), so that each distinct value is computed once and the
// lines of a group read it back. The same sums as the direct form in the same order: the same results
// (NaN sums all give one result, so they form one group).
inline bool same_value(double x, double y) { return x == y || (x != x && y != y); }
inline bool value_less(double x, double y) { return x == x && (y != y || x < y); }  // NaN last, NaNs equivalent

// The distinct values of v (uniq) and each element's slot in it.
inline void distinct(const std::vector<double>& v, std::vector<double>& uniq, std::vector<int64_t>& slot) {
  std::vector<int64_t> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = int64_t(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return value_less(v[x], v[y]); });
  slot.assign(v.size(), 0);
  for (size_t r = 0; r < order.size(); ++r) {
    if (r == 0 || !same_value(v[order[r]], uniq.back())) uniq.push_back(v[order[r]]);
    slot[order[r]] = int64_t(uniq.size()) - 1;
  }
}

template <bool CIN, bool COUT, class TI, class TO>
void ellipsoid_lines(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* tables) {
  using M = FourierMath<FourierKind::Ellipsoid>;
  const Layout& l = a.l;
  const int last = l.ndim - 1;
  const int64_t n = l.shape[last], si = l.in_strides[last], so = l.out_strides[last];
  int64_t nlines = 1;
  for (int d = 0; d < last; ++d) nlines *= l.shape[d];
  std::vector<double> outer(static_cast<size_t>(nlines)), inner(tables + a.start[last], tables + a.start[last] + n);
  for (int64_t line = 0; line < nlines; ++line) {
    int64_t rem = line, c[kMaxDim];
    for (int d = last - 1; d >= 0; --d) {
      c[d] = rem % l.shape[d];
      rem /= l.shape[d];
    }
    Factor f = M::start();
    for (int d = 0; d < last; ++d) f = M::join(f, tables + a.start[d] + c[d]);
    outer[size_t(line)] = f.re;
  }
  std::vector<double> outer_values, inner_values;
  std::vector<int64_t> line_slot, inner_slot;
  distinct(outer, outer_values, line_slot);
  distinct(inner, inner_values, inner_slot);
  // the lines of each group, group by group
  std::vector<int64_t> first(outer_values.size() + 1, 0), lines(static_cast<size_t>(nlines));
  for (int64_t s : line_slot) ++first[size_t(s) + 1];
  for (size_t g = 0; g < outer_values.size(); ++g) first[g + 1] += first[g];
  std::vector<int64_t> fill(first.begin(), first.end() - 1);
  for (int64_t line = 0; line < nlines; ++line) lines[size_t(fill[size_t(line_slot[size_t(line)])]++)] = line;

  const TI* ir = in[0].ptr<TI>();
  const TI* ii = CIN ? in[1].ptr<TI>() : nullptr;
  TO* orr = out[0].ptr<TO>();
  TO* oi = COUT ? out[1].ptr<TO>() : nullptr;
  const int64_t ngroups = int64_t(outer_values.size()), nu = int64_t(inner_values.size());
  parallel_for(ngroups, std::max<int64_t>(1, 16384 / (nu + n)), [&](int64_t g0, int64_t g1) {
    std::vector<double> row(static_cast<size_t>(nu));
    for (int64_t g = g0; g < g1; ++g) {
      for (int64_t u = 0; u < nu; ++u)
        row[size_t(u)] = M::finish(M::join({outer_values[size_t(g)], 0.0}, &inner_values[size_t(u)]), a.ndim).re;
      for (int64_t k = first[size_t(g)]; k < first[size_t(g) + 1]; ++k) {
        int64_t rem = lines[size_t(k)], io = 0, oo = 0;
        for (int d = last - 1; d >= 0; --d) {
          const int64_t c = rem % l.shape[d];
          rem /= l.shape[d];
          io += c * l.in_strides[d];
          oo += c * l.out_strides[d];
        }
        for (int64_t i = 0; i < n; ++i) {
          const Factor r = M::template apply<CIN>({row[size_t(inner_slot[size_t(i)])], 0.0}, double(ir[io + i * si]),
                                                  CIN ? double(ii[io + i * si]) : 0.0);
          orr[oo + i * so] = TO(r.re);
          if constexpr (COUT) oi[oo + i * so] = TO(r.im);
        }
      }
    }
  });
}

template <FourierKind K, bool CIN, bool COUT, class TI, class TO>
void fourier_run(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* t) {
  if constexpr (K == FourierKind::Ellipsoid) ellipsoid_lines<CIN, COUT, TI, TO>(in, out, a, t);
  else fourier_lines<K, CIN, COUT, TI, TO>(in, out, a, t);
}

template <FourierKind K, class TI, class TO>
void fourier_typed(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* t) {
  if (in.size() == 2) fourier_run<K, true, true, TI, TO>(in, out, a, t);
  else if (out.size() == 2) fourier_run<K, false, true, TI, TO>(in, out, a, t);
  else if constexpr (K != FourierKind::Shift) fourier_run<K, false, false, TI, TO>(in, out, a, t);
}

template <FourierKind K>
void fourier_kind(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* t) {
  const bool fi = in[0].dtype == DType::F32, fo = out[0].dtype == DType::F32;
  if (fi && fo) fourier_typed<K, float, float>(in, out, a, t);
  else if (fi) fourier_typed<K, float, double>(in, out, a, t);
  else if (fo) fourier_typed<K, double, float>(in, out, a, t);
  else fourier_typed<K, double, double>(in, out, a, t);
}

}  // namespace

void fourier_cpu(std::span<const View> in, std::span<const View> out, FourierKind kind, const FourierArgs& a,
                 const std::vector<double>& tables) {
  switch (kind) {
    case FourierKind::Gaussian: return fourier_kind<FourierKind::Gaussian>(in, out, a, tables.data());
    case FourierKind::Uniform: return fourier_kind<FourierKind::Uniform>(in, out, a, tables.data());
    case FourierKind::Ellipsoid: return fourier_kind<FourierKind::Ellipsoid>(in, out, a, tables.data());
    case FourierKind::Shift: return fourier_kind<FourierKind::Shift>(in, out, a, tables.data());
  }
}

}  // namespace ndimg::ndimage
