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

// One output row at a time, the window's offsets outermost: every pixel of the row takes its neighbour at
// that offset in turn, so each pixel's sums run in scikit-image's order (bit for bit) while the work along
// the row vectorizes. The source rows are copied with their out-of-image neighbours as the mode maps them.
template <class T>
void bilateral_t(const View& image, int64_t win, char mode, double cval_d, double dist_scale_d, const View& clut,
                 const View& rlut, const View& outv) {
  const int64_t rows = image.shape[0], cols = image.shape[1], dims = image.shape[2];
  const T* img = image.ptr<const T>();
  const T* color_lut = clut.ptr<const T>();
  const T* range_lut = rlut.ptr<const T>();
  T* out = outv.ptr<T>();
  const int64_t ext = (win - 1) / 2, max_bin = clut.shape[0] - 1, wide = std::max<int64_t>(cols + 2 * ext, 0);
  const T cval = T(cval_d), dist_scale = T(dist_scale_d);
  parallel_for(rows, 1, [&](int64_t r0, int64_t r1) {
    std::vector<T> src(static_cast<size_t>(wide * dims)), totals(static_cast<size_t>(cols * dims)),
        weights(static_cast<size_t>(cols));
    for (int64_t r = r0; r < r1; ++r) {
      std::fill(totals.begin(), totals.end(), T(0));
      std::fill(weights.begin(), weights.end(), T(0));
      const T* centre = img + r * cols * dims;
      for (int64_t wr = -ext; wr <= ext; ++wr) {
        const int64_t rr = wr + r, kr = wr + ext;
        // the source row, ext neighbours either side
        for (int64_t i = 0; i < wide; ++i) {
          const int64_t cc = i - ext;
          const bool outside = mode == 'C' && (rr < 0 || rr >= rows || cc < 0 || cc >= cols);
          const T* px = outside ? nullptr : img + (coord_map(rows, rr, mode) * cols + coord_map(cols, cc, mode)) * dims;
          for (int64_t d = 0; d < dims; ++d) src[size_t(i * dims + d)] = outside ? cval : px[d];
        }
        for (int64_t kc = 0; kc <= 2 * ext; ++kc) {
          const T range_weight = range_lut[kr * win + kc];
          const T* v = src.data() + kc * dims;
          T* tot = totals.data();
          T* tw = weights.data();
          if (dims == 1) {
            for (int64_t c = 0; c < cols; ++c) {
              const T t = centre[c] - v[c];
              const T dist = std::sqrt(t * t);   // correctly rounded, as scikit-image's double sqrt rounded back
              const T weight = range_weight * color_lut[color_bin(dist * dist_scale, max_bin)];
              tot[c] += v[c] * weight;
              tw[c] += weight;
            }
            continue;
          }
          for (int64_t c = 0; c < cols; ++c) {
            T dist = 0;
            for (int64_t d = 0; d < dims; ++d) {
              const T t = centre[c * dims + d] - v[c * dims + d];
              dist += t * t;
            }
            dist = std::sqrt(dist);
            const T weight = range_weight * color_lut[color_bin(dist * dist_scale, max_bin)];
            for (int64_t d = 0; d < dims; ++d) tot[c * dims + d] += v[c * dims + d] * weight;
            tw[c] += weight;
          }
        }
      }
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t d = 0; d < dims; ++d) out[(r * cols + c) * dims + d] = totals[size_t(c * dims + d)] / weights[size_t(c)];
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
  std::vector<double> weights, result, a, b, line, sums;
  std::vector<int64_t> rows;
};

// The running box sum over (x - o, x + o] along axis `ax` (stride sa) of the rows `rows` (offsets without
// axis ax, each `len` long): src holds axis positions [from, from + n + 2o - 1), the n sums go to dst at
// axis positions [from + o - 1, ...). fn(k, sums) instead of dst where given (the last pass, fused).
template <class F>
void box_along(const double* src, const std::vector<int64_t>& rows, int64_t len, int64_t sa, int64_t from, int64_t n,
               int64_t o, std::vector<double>& sums, F&& emit) {
  const int64_t nr = int64_t(rows.size());
  sums.assign(size_t(nr * len), 0.0);
  double* s = sums.data();
  for (int64_t i = 0; i < 2 * o; ++i)
    for (int64_t r = 0; r < nr; ++r) {
      const double* q = src + rows[size_t(r)] + (from + i) * sa;
      double* sr = s + r * len;
      for (int64_t x = 0; x < len; ++x) sr[x] += q[x];
    }
  for (int64_t k = 0; k < n; ++k) {
    if (k > 0)
      for (int64_t r = 0; r < nr; ++r) {
        const double* in = src + rows[size_t(r)] + (from + k + 2 * o - 1) * sa;
        const double* out = src + rows[size_t(r)] + (from + k - 1) * sa;
        double* sr = s + r * len;
        for (int64_t x = 0; x < len; ++x) sr[x] += in[x] - out[x];
      }
    emit(k, s);
  }
}

// One shift t of fast non-local means: the box sums of the squared differences between the image and its
// shift (along the last axis as they are made, then along each other axis, the first one fused with the
// weighting), every pair's weight added to both pixels' accumulators.
void nl_fast_shift(const double* p, int nd, int64_t nch, const int64_t* P, const int64_t* st, const int64_t* t,
                   int64_t o, double var2, double h2s, bool finite, FastAcc& acc) {
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
  const double alpha = t[nd - 1] == 0 ? 0.5 : 1.0;
  double* weights = acc.weights.data();
  double* result = acc.result.data();
  auto weigh = [&](int64_t x, double box) {
    const double distance = std::max(box, 0.0) / h2s;
    if (distance > kDistanceCutoff) return;
    const double w = alpha * fast_exp(-distance);
    const int64_t y = x + toff;
    weights[x] += w;
    weights[y] += w;
    for (int64_t c = 0; c < nch; ++c) {
      result[x * nch + c] += w * p[y * nch + c];
      result[y * nch + c] += w * p[x * nch + c];
    }
  };
  auto weigh_row = [&](int64_t base, const double* box, int64_t n) {
    for (int64_t x = 0; x < n; ++x) weigh(base + x, box ? box[x] : 0.0);
  };
  if (o == 0) {   // a one-pixel patch: the box (x, x] is empty
    for_rows(nd, lo, hi, st, [&](int64_t off, int64_t n) { weigh_row(off, nullptr, n); });
    return;
  }
  const int l = nd - 1;
  const int64_t len = hi[l] - lo[l];
  // the squared differences, summed along the last axis at once (box[x] at lo[l] + k)
  int64_t blo[kMaxDim], bhi[kMaxDim];
  for (int a = 0; a < nd; ++a) blo[a] = rlo[a], bhi[a] = rhi[a];
  double* line = acc.line.data();
  double* a_buf = acc.a.data();
  // one row of those sums: the n squared differences from offset off (a row of the region), boxed into dst
  auto box_row = [&](int64_t off, int64_t n, double* dst) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t x = off + i;
      double dist = 0;
      for (int64_t c = 0; c < nch; ++c) {
        const double v = p[x * nch + c] - p[(x + toff) * nch + c];
        dist += v * v;
      }
      line[i] = dist - double(nch) * var2;
    }
    // small patches of a finite image: each box summed directly (independent sums vectorize; a running sum
    // is a chain); a NaN or inf, though, spreads along the rest of the line as scikit-image's integral image
    // spreads it
    if (o <= 4 && finite) {
      for (int64_t k = 0; k < len; ++k) dst[k] = line[k];
      for (int64_t i = 1; i < 2 * o; ++i)
        for (int64_t k = 0; k < len; ++k) dst[k] += line[k + i];
      return;
    }
    double sum = 0;
    for (int64_t i = 0; i < 2 * o; ++i) sum += line[i];
    dst[0] = sum;
    for (int64_t k = 1; k < len; ++k) {
      sum += line[k + 2 * o - 1] - line[k - 1];
      dst[k] = sum;
    }
  };
  for_rows(nd, blo, bhi, st, [&](int64_t off, int64_t n) { box_row(off, n, a_buf + off + (o - 1)); });
  blo[l] = lo[l], bhi[l] = hi[l];
  // the middle axes, from buffer a to b and back
  double* src = a_buf;
  double* other = acc.b.data();
  for (int ax = nd - 2; ax >= 0; --ax) {
    int64_t clo[kMaxDim], chi[kMaxDim];
    for (int q = 0; q < nd; ++q) clo[q] = blo[q], chi[q] = bhi[q];
    clo[ax] = 0, chi[ax] = 1;
    acc.rows.clear();
    for_rows(nd, clo, chi, st, [&](int64_t off, int64_t) { acc.rows.push_back(off); });
    const int64_t n = hi[ax] - lo[ax];
    if (ax == 0) {   // the last pass: the box sums weigh the pairs as they come
      box_along(src, acc.rows, len, st[0], rlo[0], n, o, acc.sums, [&](int64_t k, const double* s) {
        for (size_t r = 0; r < acc.rows.size(); ++r) weigh_row(acc.rows[r] + (lo[0] + k) * st[0], s + int64_t(r) * len, len);
      });
      return;
    }
    box_along(src, acc.rows, len, st[ax], rlo[ax], n, o, acc.sums, [&](int64_t k, const double* s) {
      for (size_t r = 0; r < acc.rows.size(); ++r)
        std::copy(s + int64_t(r) * len, s + int64_t(r + 1) * len, other + acc.rows[r] + (lo[ax] + k) * st[ax]);
    });
    std::swap(src, other);
    blo[ax] = lo[ax], bhi[ax] = hi[ax];
  }
  // one spatial axis: the last-axis sums are the boxes
  for_rows(nd, lo, hi, st, [&](int64_t off, int64_t n) {
    for (int64_t x = off; x < off + n; ++x) weigh(x, src[x]);
  });
}

// 2-D fast non-local means for the row shift t0 and every column shift in [0, d] together: the output rows
// are streamed once, each column shift keeping a ring of its last 2o rows of last-axis box sums and their
// running sum down the columns, so that each output row's accumulators are weighed by all the column shifts
// while they are in cache. Each pair's arithmetic is nl_fast_shift's.
void nl_fast_2d(const double* p, int64_t nch, const int64_t* P, const int64_t* st, int64_t t0, int64_t d, int64_t o,
                double var2, double h2s, bool finite, FastAcc& acc) {
  const int64_t lo0 = std::max(o, o - t0), hi0 = std::min(P[0] - o, P[0] - o - t0);
  if (hi0 <= lo0 || d < 0) return;
  const int64_t rlo0 = lo0 - o + 1, nt = d + 1, ring_rows = std::max<int64_t>(2 * o, 1);
  struct Shift {
    int64_t toff, lo1, len;
    double alpha;
    double *ring, *sums;
  };
  std::vector<Shift> shifts;
  std::vector<double>& store = acc.a;   // per column shift: the ring (2o rows) and the running sums
  const int64_t maxlen = P[1];
  store.assign(size_t(nt * (ring_rows + 1) * maxlen + maxlen), 0.0);
  double* fresh = store.data() + nt * (ring_rows + 1) * maxlen;
  for (int64_t t1 = 0; t1 <= d; ++t1) {
    const int64_t lo1 = o, hi1 = P[1] - o - t1;
    if (hi1 <= lo1) break;
    double* base = store.data() + t1 * (ring_rows + 1) * maxlen;
    shifts.push_back({t0 * st[0] + t1, lo1, hi1 - lo1, t1 == 0 ? 0.5 : 1.0, base, base + ring_rows * maxlen});
  }
  double* weights = acc.weights.data();
  double* result = acc.result.data();
  double* line = acc.line.data();
  auto box_row = [&](const Shift& sh, int64_t off, double* dst) {   // off: the row's first box element
    const int64_t width = sh.len + 2 * o - 1;
    for (int64_t i = 0; i < width; ++i) {
      const int64_t x = off + i;
      double dist = 0;
      for (int64_t c = 0; c < nch; ++c) {
        const double v = p[x * nch + c] - p[(x + sh.toff) * nch + c];
        dist += v * v;
      }
      line[i] = dist - double(nch) * var2;
    }
    if (o <= 4 && finite) {   // as nl_fast_shift's box_row
      for (int64_t k = 0; k < sh.len; ++k) dst[k] = line[k];
      for (int64_t i = 1; i < 2 * o; ++i)
        for (int64_t k = 0; k < sh.len; ++k) dst[k] += line[k + i];
      return;
    }
    double sum = 0;
    for (int64_t i = 0; i < 2 * o; ++i) sum += line[i];
    dst[0] = sum;
    for (int64_t k = 1; k < sh.len; ++k) {
      sum += line[k + 2 * o - 1] - line[k - 1];
      dst[k] = sum;
    }
  };
  auto weigh_row = [&](const Shift& sh, int64_t base, const double* box) {
    for (int64_t i = 0; i < sh.len; ++i) {
      const int64_t x = base + i;
      const double distance = (o > 0 ? std::max(box[i], 0.0) : 0.0) / h2s;
      if (distance > kDistanceCutoff) continue;
      const double w = sh.alpha * fast_exp(-distance);
      const int64_t y = x + sh.toff;
      weights[x] += w;
      weights[y] += w;
      for (int64_t c = 0; c < nch; ++c) {
        result[x * nch + c] += w * p[y * nch + c];
        result[y * nch + c] += w * p[x * nch + c];
      }
    }
  };
  if (o > 0)
    for (const Shift& sh : shifts)
      for (int64_t i = 0; i < 2 * o; ++i) {
        double* row = sh.ring + i * maxlen;
        box_row(sh, (rlo0 + i) * st[0] + sh.lo1 - o + 1, row);
        for (int64_t x = 0; x < sh.len; ++x) sh.sums[x] += row[x];
      }
  for (int64_t k = 0; k < hi0 - lo0; ++k)
    for (const Shift& sh : shifts) {
      if (k > 0 && o > 0) {
        double* slot = sh.ring + ((k - 1) % (2 * o)) * maxlen;
        box_row(sh, (rlo0 + k + 2 * o - 1) * st[0] + sh.lo1 - o + 1, fresh);
        for (int64_t x = 0; x < sh.len; ++x) sh.sums[x] += fresh[x] - slot[x];
        std::copy(fresh, fresh + sh.len, slot);
      }
      weigh_row(sh, (lo0 + k) * st[0] + sh.lo1, sh.sums);
    }
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
  // the patch as rows of s contiguous pixels along the last axis: each row's offset from the corner (C order)
  const int64_t nrows = wv.size() / s;
  std::vector<int64_t> row_off(static_cast<size_t>(nrows));
  for (int64_t k = 0; k < nrows; ++k) {
    int64_t off = 0, r = k;
    for (int a = nd - 2; a >= 0; r /= s, --a) off += (r % s) * st[a];
    row_off[size_t(k)] = off;
  }
  int64_t centre = 0;   // the patch centre's offset from its corner
  for (int a = 0; a < nd; ++a) centre += o * st[a];
  const int64_t rows_per_plane = nrows / (nd > 1 ? s : 1);   // patch rows per index along the first axis
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
          // the patch's elements in C order, channels innermost, a cut-off test before each first-axis plane
          T dist = 0;
          bool cut = false;
          for (int64_t k = 0; k < nrows && !cut; ++k) {
            if (k % rows_per_plane == 0 && dist > cutoff) {
              cut = true;
              break;
            }
            const T* a = p + (xo + row_off[size_t(k)]) * nch;
            const T* b = p + (y + row_off[size_t(k)]) * nch;
            const T* wr = w + k * s;
            if (nch == 1) {
              for (int64_t j = 0; j < s; ++j) {
                const T diff = a[j] - b[j];
                dist += wr[j] * (diff * diff - var2);
              }
            } else {
              for (int64_t j = 0; j < s; ++j) {
                const T wj = wr[j];
                for (int64_t c = 0; c < nch; ++c) {
                  const T diff = a[j * nch + c] - b[j * nch + c];
                  dist += wj * (diff * diff - var2);
                }
              }
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
  int64_t nshift = std::max<int64_t>(d + 1, 0);
  for (int a = 0; a < nd - 1; ++a) nshift *= std::max<int64_t>(2 * d + 1, 0);
  const int64_t tasks = nd == 2 ? std::max<int64_t>(2 * d + 1, 0) : nshift;
  // The shifts are dealt to a fixed number of partitions, whatever the thread count, each accumulating into
  // arrays of the padded image's size and summed in order at the end: the same bits on every thread count.
  // No more partitions than 2 GiB of accumulators hold.
  constexpr int64_t kPartitions = 4;
  const int64_t per_worker = np * (nch + (nd > 2 ? 4 : 1)) * int64_t(sizeof(double));
  const int64_t by_memory = std::max<int64_t>(1, (int64_t(2) << 30) / std::max<int64_t>(per_worker, 1));
  const int64_t workers = std::max<int64_t>(1, std::min({kPartitions, tasks, by_memory}));
  std::vector<FastAcc> accs(static_cast<size_t>(workers));
  const double* p = padded.ptr<const double>();
  bool finite = true;
  for (int64_t i = 0; i < np * nch && finite; ++i) finite = std::isfinite(p[i]);
  parallel_for(workers, 1, [&](int64_t w0, int64_t w1) {
    for (int64_t wk = w0; wk < w1; ++wk) {
      FastAcc& acc = accs[size_t(wk)];
      acc.weights.assign(size_t(np), 0.0);
      acc.result.assign(size_t(np * nch), 0.0);
      acc.a.assign(nd > 2 ? size_t(np) : 0, 0.0);   // 2-D streams its rows (nl_fast_2d)
      acc.b.assign(nd > 2 ? size_t(np) : 0, 0.0);
      acc.line.assign(size_t(maxlen), 0.0);
      if (nd == 2) {   // a worker takes whole rows of shifts (every column shift of a row shift)
        for (int64_t t0 = -d + wk; t0 <= d; t0 += workers) nl_fast_2d(p, nch, P, st, t0, d, o, var2, h2s, finite, acc);
        continue;
      }
      for (int64_t sh = wk; sh < nshift; sh += workers) {
        int64_t t[kMaxDim];
        int64_t r = sh;
        t[nd - 1] = r % (d + 1);
        r /= d + 1;
        for (int a = nd - 2; a >= 0; --a) {
          t[a] = r % (2 * d + 1) - d;
          r /= 2 * d + 1;
        }
        nl_fast_shift(p, nd, nch, P, st, t, o, var2, h2s, finite, acc);
      }
    }
  });
  FastAcc& total = accs[0];
  parallel_for(np, 4096, [&](int64_t i0, int64_t i1) {   // the partitions in order: the same bits on any split
    for (size_t k = 1; k < accs.size(); ++k) {
      for (int64_t i = i0; i < i1; ++i) total.weights[size_t(i)] += accs[k].weights[size_t(i)];
      for (int64_t i = i0 * nch; i < i1 * nch; ++i) total.result[size_t(i)] += accs[k].result[size_t(i)];
    }
  });
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
