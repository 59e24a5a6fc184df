// The Fourier filters on the CPU engine: lines along the innermost axis on the thread pool, each line's
// outer axes joined once and its elements joined with the inner axis' table.
#include <algorithm>

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

template <FourierKind K, class TI, class TO>
void fourier_typed(std::span<const View> in, std::span<const View> out, const FourierArgs& a, const double* t) {
  if (in.size() == 2) fourier_lines<K, true, true, TI, TO>(in, out, a, t);
  else if (out.size() == 2) fourier_lines<K, false, true, TI, TO>(in, out, a, t);
  else if constexpr (K != FourierKind::Shift) fourier_lines<K, false, false, TI, TO>(in, out, a, t);
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
