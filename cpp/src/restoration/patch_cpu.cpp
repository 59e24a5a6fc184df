// The patch primitives' CPU schedules: bilateral and exact non-local means in parallel over output rows
// (every output element's sums in scikit-image's order, so results match it bit for bit but for the
// exponential's last digits); fast non-local means in parallel over shifts, each worker with its own weight
// and value accumulators summed at the end; rolling_ball's min-plus filter over output rows, one kernel
// element at a time along a contiguous row (vectorizable).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ndimg/parallel.hpp"
#include "restoration/patch.hpp"

namespace ndimg::restoration {
namespace {

using patch_math::color_bin;
using patch_math::coord_map;
using patch_math::fast_exp;
using patch_math::kDistanceCutoff;

template <class T>
void bilateral_t(const View& image, int64_t win, char mode, double cval_d, double dist_scale_d, const View& clut,
                 const View& rlut, const View& outv) {
  const int64_t rows = image.shape[0], cols = image.shape[1], dims = image.shape[2];
  const T* img = image.ptr<const T>();
  const T* color_lut = clut.ptr<const T>();
  const T* range_lut = rlut.ptr<const T>();
  T* out = outv.ptr<T>();
  const int64_t ext = (win - 1) / 2, max_bin = clut.shape[0] - 1;
  const T cval = T(cval_d), dist_scale = T(dist_scale_d);
  parallel_for(rows, 1, [&](int64_t r0, int64_t r1) {
    std::vector<T> values(dims), centres(dims), totals(dims);
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        T total_weight = 0;
        for (int64_t d = 0; d < dims; ++d) {
          totals[d] = 0;
          centres[d] = img[(r * cols + c) * dims + d];
        }
        for (int64_t wr = -ext; wr <= ext; ++wr) {
          const int64_t rr = wr + r, kr = wr + ext;
          const bool row_out = rr < 0 || rr >= rows;
          const int64_t mr = mode == 'C' ? rr : coord_map(rows, rr, mode);
          for (int64_t wc = -ext; wc <= ext; ++wc) {
            const int64_t cc = wc + c, kc = wc + ext;
            const bool outside = mode == 'C' && (row_out || cc < 0 || cc >= cols);
            const T* px = outside ? nullptr : img + (mr * cols + (mode == 'C' ? cc : coord_map(cols, cc, mode))) * dims;
            T dist = 0;
            for (int64_t d = 0; d < dims; ++d) {
              const T value = outside ? cval : px[d];
              values[d] = value;
              const T t = centres[d] - value;
              dist += t * t;
            }
            dist = T(std::sqrt(double(dist)));
            const T scaled = dist * dist_scale;
            const int64_t bin = color_bin(scaled, max_bin);
            const T weight = range_lut[kr * win + kc] * color_lut[bin];
            for (int64_t d = 0; d < dims; ++d) totals[d] += values[d] * weight;
            total_weight += weight;
          }
        }
        for (int64_t d = 0; d < dims; ++d) out[(r * cols + c) * dims + d] = totals[d] / total_weight;
      }
  });
}

template <class T>
void rolling_ball_t(const View& padded, const View& diff, const View& outv, bool nansafe) {
  const int nd = outv.ndim;
  const int64_t width = outv.shape[nd - 1], lines = outv.size() / width;
  int64_t pstride[kMaxDim];
  for (int64_t d = nd - 1, s = 1; d >= 0; s *= padded.shape[d], --d) pstride[d] = s;
  // the kernel's terms: their offset in the padded image and value (+inf ones can never be the minimum,
  // but a NaN they make counts in the NaN-safe filter)
  struct Term {
    int64_t off;
    T v;
  };
  std::vector<Term> terms;
  const T* dv = diff.ptr<const T>();
  for (int64_t k = 0; k < diff.size(); ++k) {
    if (!nansafe && dv[k] == std::numeric_limits<T>::infinity()) continue;
    int64_t off = 0, r = k;
    for (int d = nd - 1; d >= 0; r /= diff.shape[d], --d) off += (r % diff.shape[d]) * pstride[d];
    terms.push_back({off, dv[k]});
  }
  const T* src = padded.ptr<const T>();
  T* out = outv.ptr<T>();
  parallel_for(lines, 1, [&](int64_t l0, int64_t l1) {
    std::vector<unsigned char> nan(nansafe ? width : 0);
    for (int64_t line = l0; line < l1; ++line) {
      int64_t base = 0;
      for (int64_t d = nd - 2, r = line; d >= 0; r /= outv.shape[d], --d) base += (r % outv.shape[d]) * pstride[d];
      T* o = out + line * width;
      std::fill(o, o + width, std::numeric_limits<T>::infinity());
      if (nansafe) std::fill(nan.begin(), nan.end(), 0);
      for (const Term& term : terms) {
        const T* p = src + base + term.off;
        const T v = term.v;
        for (int64_t x = 0; x < width; ++x) {
          const T t = p[x] + v;
          o[x] = t < o[x] ? t : o[x];
        }
        if (nansafe)
          for (int64_t x = 0; x < width; ++x) nan[x] |= std::isnan(p[x] + v);
      }
      if (nansafe)
        for (int64_t x = 0; x < width; ++x)
          if (nan[x]) o[x] = std::numeric_limits<T>::quiet_NaN();
    }
  });
}

// Calls fn(offset of the row start, row length) for every row (along the last axis) of the box
// [lo, hi) of an array of pixel strides `st`.
template <class F>
void for_rows(int nd, const int64_t* lo, const int64_t* hi, const int64_t* st, F&& fn) {
  for (int a = 0; a < nd; ++a)
    if (hi[a] <= lo[a]) return;
  int64_t idx[kMaxDim];
  for (int a = 0; a < nd; ++a) idx[a] = lo[a];
  while (true) {
    int64_t off = 0;
    for (int a = 0; a < nd; ++a) off += idx[a] * st[a];
    fn(off, hi[nd - 1] - lo[nd - 1]);
    int a = nd - 2;
    for (; a >= 0; --a) {
      if (++idx[a] < hi[a]) break;
      idx[a] = lo[a];
    }
    if (a < 0) return;
  }
}

struct FastAcc {
  std::vector<double> weights, result, box, line;
};

// One shift t of fast non-local means: the box sums of the squared differences between the image and its
// shift, then every pair's weight added to both pixels' accumulators.
void nl_fast_shift(const double* p, int nd, int64_t nch, const int64_t* P, const int64_t* st, const int64_t* t,
                   int64_t o, double var2, double h2s, FastAcc& acc) {
  int64_t lo[kMaxDim], hi[kMaxDim], rlo[kMaxDim], rhi[kMaxDim];
  int64_t toff = 0;
  for (int a = 0; a < nd; ++a) {
    lo[a] = std::max(o, o - t[a]);
    hi[a] = std::min(P[a] - o, P[a] - o - t[a]);
    if (hi[a] <= lo[a]) return;
    rlo[a] = lo[a] - o + 1;
    rhi[a] = hi[a] + o;
    toff += t[a] * st[a];
  }
  double* box = acc.box.data();
  if (o > 0) {
    for_rows(nd, rlo, rhi, st, [&](int64_t off, int64_t n) {
      for (int64_t x = off; x < off + n; ++x) {
        double dist = 0;
        for (int64_t c = 0; c < nch; ++c) {
          const double v = p[x * nch + c] - p[(x + toff) * nch + c];
          dist += v * v;
        }
        box[x] = dist - double(nch) * var2;
      }
    });
    // the sum over (x - o, x + o] along each axis in turn, in place (a running sum along each line)
    int64_t cur_lo[kMaxDim], cur_hi[kMaxDim];
    for (int a = 0; a < nd; ++a) cur_lo[a] = rlo[a], cur_hi[a] = rhi[a];
    for (int a = 0; a < nd; ++a) {
      int64_t llo[kMaxDim], lhi[kMaxDim];
      for (int b = 0; b < nd; ++b) llo[b] = cur_lo[b], lhi[b] = cur_hi[b];
      llo[a] = 0, lhi[a] = 1;   // one start per line along a
      const int64_t len = rhi[a] - rlo[a], sa = st[a];
      double* line = acc.line.data();
      auto run = [&](int64_t start) {
        double* q = box + start + rlo[a] * sa;
        for (int64_t i = 0; i < len; ++i) line[i] = q[i * sa];
        double s = 0;
        for (int64_t i = 0; i < 2 * o; ++i) s += line[i];
        double* dst = box + start + lo[a] * sa;
        dst[0] = s;
        for (int64_t i = 1; i < hi[a] - lo[a]; ++i) {
          s += line[i + 2 * o - 1] - line[i - 1];
          dst[i * sa] = s;
        }
      };
      if (a == nd - 1) {
        for_rows(nd, llo, lhi, st, [&](int64_t off, int64_t) { run(off); });
      } else {
        for_rows(nd, llo, lhi, st, [&](int64_t off, int64_t n) {
          for (int64_t i = 0; i < n; ++i) run(off + i);
        });
      }
      cur_lo[a] = lo[a], cur_hi[a] = hi[a];
    }
  }
  const double alpha = t[nd - 1] == 0 ? 0.5 : 1.0;
  double* weights = acc.weights.data();
  double* result = acc.result.data();
  for_rows(nd, lo, hi, st, [&](int64_t off, int64_t n) {
    for (int64_t x = off; x < off + n; ++x) {
      const double distance = (o > 0 ? std::max(box[x], 0.0) : 0.0) / h2s;
      if (distance > kDistanceCutoff) continue;
      const double w = alpha * fast_exp(-distance);
      const int64_t y = x + toff;
      weights[x] += w;
      weights[y] += w;
      for (int64_t c = 0; c < nch; ++c) {
        result[x * nch + c] += w * p[y * nch + c];
        result[y * nch + c] += w * p[x * nch + c];
      }
    }
  });
}

template <class T>
void nl_means_t(const View& padded, const View& wv, int64_t dmax, double var, const View& outv) {
  const int nd = padded.ndim - 1;
  const int64_t nch = padded.shape[nd], s = wv.shape[0], o = s / 2;
  const T* p = padded.ptr<const T>();
  const T* w = wv.ptr<const T>();
  T* out = outv.ptr<T>();
  int64_t n[kMaxDim], st[kMaxDim], ost[kMaxDim], sp = 1, so = 1;
  for (int a = nd - 1; a >= 0; --a) {
    n[a] = outv.shape[a];
    st[a] = sp;
    ost[a] = so;
    sp *= padded.shape[a];
    so *= n[a];
  }
  std::vector<int64_t> poff(size_t(wv.size()));
  for (int64_t k = 0; k < wv.size(); ++k) {
    int64_t off = 0, r = k;
    for (int a = nd - 1; a >= 0; r /= s, --a) off += (r % s) * st[a];
    poff[size_t(k)] = off;
  }
  int64_t centre = 0;   // the patch centre's offset from its corner
  for (int a = 0; a < nd; ++a) centre += o * st[a];
  const int64_t per_plane = wv.size() / s;   // patch elements per index along the first axis
  const T var2 = T(2 * var), cutoff = T(kDistanceCutoff);
  const int64_t npix = outv.size() / nch, lines = npix / n[nd - 1];
  parallel_for(lines, 1, [&](int64_t l0, int64_t l1) {
    std::vector<T> nv(nch);
    for (int64_t pix = l0 * n[nd - 1]; pix < l1 * n[nd - 1]; ++pix) {
      int64_t x[kMaxDim], lo[kMaxDim], hi[kMaxDim], xo = 0;
      for (int a = nd - 1; a >= 0; --a) {
        x[a] = (pix / ost[a]) % n[a];
        lo[a] = x[a] - std::min(dmax, x[a]);
        hi[a] = x[a] + std::min(dmax + 1, n[a] - x[a]);
        xo += x[a] * st[a];
      }
      std::fill(nv.begin(), nv.end(), T(0));
      T wsum = 0;
      for_rows(nd, lo, hi, st, [&](int64_t off, int64_t len) {
        for (int64_t y = off; y < off + len; ++y) {
          T dist = 0;
          bool cut = false;
          for (int64_t k = 0; k < wv.size(); ++k) {
            if (k % per_plane == 0 && dist > cutoff) {
              cut = true;
              break;
            }
            const T* a = p + (xo + poff[size_t(k)]) * nch;
            const T* b = p + (y + poff[size_t(k)]) * nch;
            for (int64_t c = 0; c < nch; ++c) {
              const T diff = a[c] - b[c];
              dist += w[k] * (diff * diff - var2);
            }
          }
          const T weight = cut ? T(0) : T(fast_exp(-std::max(0.0, double(dist))));
          wsum += weight;
          for (int64_t c = 0; c < nch; ++c) nv[c] += weight * p[(y + centre) * nch + c];
        }
      });
      for (int64_t c = 0; c < nch; ++c) out[pix * nch + c] = nv[c] / wsum;
    }
  });
}

}  // namespace

void bilateral_cpu(const View& image, int64_t win_size, char mode, double cval, double dist_scale,
                   const View& color_lut, const View& range_lut, const View& out) {
  if (image.dtype == DType::F32)
    bilateral_t<float>(image, win_size, mode, cval, dist_scale, color_lut, range_lut, out);
  else
    bilateral_t<double>(image, win_size, mode, cval, dist_scale, color_lut, range_lut, out);
}

void rolling_ball_cpu(const View& padded, const View& diff, const View& out, bool nansafe) {
  if (padded.dtype == DType::F32)
    rolling_ball_t<float>(padded, diff, out, nansafe);
  else
    rolling_ball_t<double>(padded, diff, out, nansafe);
}

void nl_means_cpu(const View& padded, const View& w, int64_t distance, double var, const View& out) {
  if (padded.dtype == DType::F32)
    nl_means_t<float>(padded, w, distance, var, out);
  else
    nl_means_t<double>(padded, w, distance, var, out);
}

void nl_means_fast_cpu(const View& padded, int64_t s, int64_t d, double h, double var, const View& outv) {
  const int nd = padded.ndim - 1;
  const int64_t nch = padded.shape[nd], o = s / 2, pad = o + d + 1;
  int64_t P[kMaxDim], st[kMaxDim];
  int64_t np = 1, maxlen = 1;
  for (int a = nd - 1; a >= 0; --a) {
    P[a] = padded.shape[a];
    st[a] = np;
    np *= P[a];
    maxlen = std::max(maxlen, P[a]);
  }
  double h2s = double(nch) * h * h;
  for (int a = 0; a < nd; ++a) h2s *= double(s);
  const double var2 = 2 * var;
  // every shift: [-d, d] on the leading axes, [0, d] on the last (each pair of pixels once)
  int64_t nshift = d + 1;
  for (int a = 0; a < nd - 1; ++a) nshift *= 2 * d + 1;
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(num_threads(), nshift));
  std::vector<FastAcc> accs(static_cast<size_t>(workers));
  const double* p = padded.ptr<const double>();
  parallel_for(workers, 1, [&](int64_t w0, int64_t w1) {
    for (int64_t wk = w0; wk < w1; ++wk) {
      FastAcc& acc = accs[size_t(wk)];
      acc.weights.assign(size_t(np), 0.0);
      acc.result.assign(size_t(np * nch), 0.0);
      acc.box.assign(size_t(np), 0.0);
      acc.line.assign(size_t(maxlen), 0.0);
      for (int64_t sh = wk; sh < nshift; sh += workers) {
        int64_t t[kMaxDim];
        int64_t r = sh;
        t[nd - 1] = r % (d + 1);
        r /= d + 1;
        for (int a = nd - 2; a >= 0; --a) {
          t[a] = r % (2 * d + 1) - d;
          r /= 2 * d + 1;
        }
        nl_fast_shift(p, nd, nch, P, st, t, o, var2, h2s, acc);
      }
    }
  });
  FastAcc& total = accs[0];
  for (size_t k = 1; k < accs.size(); ++k) {
    for (int64_t i = 0; i < np; ++i) total.weights[size_t(i)] += accs[k].weights[size_t(i)];
    for (int64_t i = 0; i < np * nch; ++i) total.result[size_t(i)] += accs[k].result[size_t(i)];
  }
  double* out = outv.ptr<double>();
  const int64_t npix = outv.size() / nch;
  parallel_for(npix, 1024, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      int64_t x = 0;
      for (int64_t a = nd - 1, r = i; a >= 0; r /= outv.shape[a], --a) x += (r % outv.shape[a] + pad) * st[a];
      for (int64_t c = 0; c < nch; ++c) out[i * nch + c] = total.result[size_t(x * nch + c)] / total.weights[size_t(x)];
    }
  });
}

}  // namespace ndimg::restoration
