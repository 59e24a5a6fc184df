// PyWavelets' transform along one axis on the CPU: the lines (the last axis) or rows of the axes after it
// (vectorised across those rows, one output row per unit) in parallel, each output summed in dwt.hpp's order.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "ndimg/error.hpp"
#include "ndimg/parallel.hpp"
#include "dwt.hpp"

namespace ndimg::wavelet {

namespace {

// Products and sums per chunk of work, so that small arrays stay on one thread.
constexpr int64_t kWork = 1 << 15;

struct Axis {
  int64_t outer = 1, inner = 1;   // elements before and after `axis`
};

Axis check(const View& in, std::initializer_list<const View*> outs, int axis, int64_t out_len, const char* op) {
  const std::string name(op);
  if (in.device != Device::CPU) throw ValueError(name + ": CPU arrays only");
  if (in.dtype != DType::F32 && in.dtype != DType::F64) throw TypeError(name + ": float32 or float64 arrays only");
  if (!in.c_contiguous()) throw ValueError(name + ": C-contiguous arrays only");
  for (const View* o : outs) {
    if (o->device != Device::CPU || o->dtype != in.dtype || !o->c_contiguous() || o->ndim != in.ndim)
      throw ValueError(name + ": outputs must be C-contiguous CPU arrays of the input's dtype and rank");
    for (int d = 0; d < in.ndim; ++d)
      if (o->shape[d] != (d == axis ? out_len : in.shape[d])) throw ValueError(name + ": output shape mismatch");
  }
  Axis a;
  for (int d = 0; d < axis; ++d) a.outer *= in.shape[d];
  for (int d = axis + 1; d < in.ndim; ++d) a.inner *= in.shape[d];
  return a;
}

template <class T>
void analysis(const View& in, const View& lo, const View& hi, int axis, std::span<const double> dec_lo,
              std::span<const double> dec_hi, Axis a) {
  const int F = int(dec_lo.size());
  const int64_t n = in.shape[axis], m = lo.shape[axis], inner = a.inner;
  if (in.size() == 0 || m == 0) return;
  // each output's F steps: the sample's offset and the two taps, in summation order
  std::vector<int64_t> at(size_t(m * F));
  std::vector<T> wl(size_t(m * F)), wh(size_t(m * F));
  for (int64_t k = 0; k < m; ++k)
    for (int s = 0; s < F; ++s) {
      int tap;
      int64_t sample;
      analysis_step(n, k, s, tap, sample);
      const size_t e = size_t(k * F + s);
      at[e] = sample * inner;
      wl[e] = T(dec_lo[size_t(tap)]);
      wh[e] = T(dec_hi[size_t(tap)]);
    }
  const T* x0 = in.ptr<T>();
  T *lo0 = lo.ptr<T>(), *hi0 = hi.ptr<T>();
  if (inner == 1) {
    // the outputs reaching neither end, [k0, k1): taps in order 0..F-1 on samples 2k + 1 - s, summed one step
    // at a time across them (vectorised); the few others through the table
    const int64_t k0 = std::min<int64_t>(m, (F - 2) / 2), k1 = std::max<int64_t>(k0, std::min<int64_t>(m, n / 2));
    std::vector<T> tl(dec_lo.begin(), dec_lo.end()), th(dec_hi.begin(), dec_hi.end());
    parallel_for(a.outer, std::max<int64_t>(1, kWork / (m * F)), [&](int64_t l0, int64_t l1) {
      for (int64_t l = l0; l < l1; ++l) {
        const T* x = x0 + l * n;
        T *yl = lo0 + l * m, *yh = hi0 + l * m;
        for (int s = 0; s < F; ++s) {
          const T cl = tl[size_t(s)], ch = th[size_t(s)];
          const T* xs = x + 1 - s;
          if (s == 0) {
            for (int64_t k = k0; k < k1; ++k) {
              yl[k] = T(0) + xs[2 * k] * cl;
              yh[k] = T(0) + xs[2 * k] * ch;
            }
          } else {
            for (int64_t k = k0; k < k1; ++k) {
              yl[k] += xs[2 * k] * cl;
              yh[k] += xs[2 * k] * ch;
            }
          }
        }
        auto edge = [&](int64_t k) {
          const int64_t* p = at.data() + k * F;
          const T *pl = wl.data() + k * F, *ph = wh.data() + k * F;
          T sl = 0, sh = 0;
          for (int s = 0; s < F; ++s) {
            const T v = x[p[s]];
            sl += v * pl[s];
            sh += v * ph[s];
          }
          yl[k] = sl;
          yh[k] = sh;
        };
        for (int64_t k = 0; k < k0; ++k) edge(k);
        for (int64_t k = k1; k < m; ++k) edge(k);
      }
    });
    return;
  }
  // one output row (o, k) per unit: the whole row of `inner` elements one step at a time, as NumPy sums
  parallel_for(a.outer * m, std::max<int64_t>(1, kWork / (inner * F)), [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t o = u / m, k = u % m;
      const T* x = x0 + o * n * inner;
      T *yl = lo0 + u * inner, *yh = hi0 + u * inner;
      for (int s = 0; s < F; ++s) {
        const size_t e = size_t(k * F + s);
        const T* xs = x + at[e];
        const T cl = wl[e], ch = wh[e];
        if (s == 0) {
          for (int64_t c = 0; c < inner; ++c) {
            yl[c] = T(0) + xs[c] * cl;
            yh[c] = T(0) + xs[c] * ch;
          }
        } else {
          for (int64_t c = 0; c < inner; ++c) {
            yl[c] += xs[c] * cl;
            yh[c] += xs[c] * ch;
          }
        }
      }
    }
  });
}

// One band's share of `len` synthesis outputs of one phase, summed one tap at a time across them:
// row[e] = sum over j = 0..half-1, in order, of src_j[e] * rec[2 j + phase] with src_j = base - j * jstep.
template <class T>
void share(const T* base, int64_t jstep, const std::vector<T>& rec, int phase, int half, int64_t len, T* row) {
  for (int j = 0; j < half; ++j) {
    const T* src = base - j * jstep;
    const T w = rec[size_t(2 * j + phase)];
    if (j == 0)
      for (int64_t e = 0; e < len; ++e) row[e] = T(0) + src[e] * w;
    else
      for (int64_t e = 0; e < len; ++e) row[e] += src[e] * w;
  }
}

template <class T>
void synthesis(const View& ca, const View& cd, const View& out, int axis, std::span<const double> rec_lo,
               std::span<const double> rec_hi, Axis a) {
  const bool use_a = !rec_lo.empty(), use_d = !rec_hi.empty();
  const int F = int(use_a ? rec_lo.size() : rec_hi.size()), half = F / 2;
  const int64_t m = ca.shape[axis], M = out.shape[axis] / 2, inner = a.inner;
  if (out.size() == 0) return;
  std::vector<T> ra(rec_lo.begin(), rec_lo.end()), rd(rec_hi.begin(), rec_hi.end());
  const T *a0 = ca.ptr<T>(), *d0 = cd.ptr<T>();
  T* y0 = out.ptr<T>();
  // the approximation's share plus the detail's, each summed alone (pywt.idwt's order); a missing band's
  // share is not added
  auto both = [&](const T* xa, const T* xd, int64_t jstep, int p, int64_t len, T* row, T* tmp) {
    if (use_a) share(xa, jstep, ra, p, half, len, row);
    if (use_a && use_d) {
      share(xd, jstep, rd, p, half, len, tmp);
      for (int64_t e = 0; e < len; ++e) row[e] += tmp[e];
    } else if (use_d) {
      share(xd, jstep, rd, p, half, len, row);
    }
  };
  if (inner == 1) {
    // per line and phase, all M outputs at once, then interleaved
    parallel_for(a.outer, std::max<int64_t>(1, kWork / (M * F)), [&](int64_t l0, int64_t l1) {
      std::vector<T> row(static_cast<size_t>(M)), tmp(static_cast<size_t>(M));
      for (int64_t l = l0; l < l1; ++l) {
        T* y = y0 + l * 2 * M;
        for (int p = 0; p < 2; ++p) {
          both(a0 + l * m + half - 1, d0 + l * m + half - 1, 1, p, M, row.data(), tmp.data());
          for (int64_t i = 0; i < M; ++i) y[2 * i + p] = row[size_t(i)];
        }
      }
    });
    return;
  }
  // one output row pair (o, i) per unit, each band's rows summed tap by tap across the row
  parallel_for(a.outer * M, std::max<int64_t>(1, kWork / (inner * F)), [&](int64_t u0, int64_t u1) {
    std::vector<T> tmp(static_cast<size_t>(inner));
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t o = u / M, i = u % M, at = (o * m + i + half - 1) * inner;
      for (int p = 0; p < 2; ++p)
        both(a0 + at, d0 + at, inner, p, inner, y0 + ((o * M + i) * 2 + p) * inner, tmp.data());
    }
  });
}

}  // namespace

void dwt(const View& in, const View& lo, const View& hi, int axis, std::span<const double> dec_lo,
         std::span<const double> dec_hi) {
  const size_t F = dec_lo.size();
  if (F < 2 || F % 2 || dec_hi.size() != F) throw ValueError("dwt: filters of one even length >= 2 expected");
  if (axis < 0 || axis >= in.ndim) throw ValueError("dwt: axis out of range");
  if (in.shape[axis] == 0) throw ValueError("dwt: no samples along the axis");
  const Axis a = check(in, {&lo, &hi}, axis, (in.shape[axis] + int64_t(F) - 1) / 2, "dwt");
  if (in.dtype == DType::F32) analysis<float>(in, lo, hi, axis, dec_lo, dec_hi, a);
  else analysis<double>(in, lo, hi, axis, dec_lo, dec_hi, a);
}

void idwt(const View& ca, const View& cd, const View& out, int axis, std::span<const double> rec_lo,
          std::span<const double> rec_hi) {
  const size_t F = rec_lo.empty() ? rec_hi.size() : rec_lo.size();
  if (F < 2 || F % 2 || (!rec_lo.empty() && !rec_hi.empty() && rec_hi.size() != F))
    throw ValueError("idwt: filters of one even length >= 2 expected, at least one");
  if (axis < 0 || axis >= ca.ndim) throw ValueError("idwt: axis out of range");
  const int64_t M = std::max<int64_t>(0, ca.shape[axis] - int64_t(F / 2) + 1);
  // cd has ca's shape; out has it but 2 M along the axis
  const Axis a = check(ca, {&cd}, axis, ca.shape[axis], "idwt");
  check(ca, {&out}, axis, 2 * M, "idwt");
  if (ca.dtype == DType::F32) synthesis<float>(ca, cd, out, axis, rec_lo, rec_hi, a);
  else synthesis<double>(ca, cd, out, axis, rec_lo, rec_hi, a);
}

}  // namespace ndimg::wavelet
