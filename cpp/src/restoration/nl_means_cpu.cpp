// Non-local means' CPU schedules. The fast form in parallel over shifts, each worker with its own weight
// and value accumulators summed at the end (a fixed partition: the same bits on any thread count); the
// exact form in parallel over output rows, each pixel's sums in scikit-image's order, so results match it
// bit for bit but for the exponential's last digits. The per-pixel math is nl_means.hpp's.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ndimg/parallel.hpp"
#include "restoration/nl_means.hpp"

namespace ndimg::restoration {

using nl_math::ExactGeometry;

ExactGeometry exact_geometry(const View& padded, const View& w, int64_t dmax) {
  ExactGeometry g;
  g.nd = padded.ndim - 1;
  g.nch = padded.shape[g.nd];
  g.s = w.shape[0];
  g.dmax = dmax;
  for (int64_t a = g.nd - 1, sp = 1, so = 1; a >= 0; --a) {
    g.n[a] = padded.shape[a] - 2 * (g.s / 2);
    g.st[a] = sp;
    g.ost[a] = so;
    g.centre += (g.s / 2) * sp;
    sp *= padded.shape[a];
    so *= g.n[a];
  }
  return g;
}

namespace {

using nl_math::exact_pixel;
using nl_math::pair_term;
using nl_math::pair_weight;
using nl_math::shift_of;

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
    double w;
    if (!pair_weight(box, h2s, alpha, w)) return;
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
    for (int64_t i = 0; i < n; ++i) line[i] = pair_term(p, off + i, off + i + toff, nch, double(nch) * var2);
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
    for (int64_t i = 0; i < width; ++i) line[i] = pair_term(p, off + i, off + i + sh.toff, nch, double(nch) * var2);
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
      double w;
      if (!pair_weight(o > 0 ? box[i] : 0.0, h2s, sh.alpha, w)) continue;
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


// One thread per output row; each pixel's sums in scikit-image's order (nl_math::exact_pixel), accumulated
// in its output elements.
template <class T>
void nl_means_t(const View& padded, const View& wv, int64_t dmax, double var, const View& outv) {
  const ExactGeometry g = exact_geometry(padded, wv, dmax);
  const T* p = padded.ptr<const T>();
  const T* w = wv.ptr<const T>();
  T* out = outv.ptr<T>();
  const int64_t npix = outv.size() / g.nch, width = g.n[g.nd - 1];
  parallel_for(npix / width, 1, [&](int64_t l0, int64_t l1) {
    for (int64_t pix = l0 * width; pix < l1 * width; ++pix) {
      T* acc = out + pix * g.nch;
      std::fill(acc, acc + g.nch, T(0));
      const T wsum = exact_pixel(p, w, g, T(2 * var), pix, acc);
      for (int64_t c = 0; c < g.nch; ++c) acc[c] /= wsum;
    }
  });
}

}  // namespace

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
        shift_of(nd, d, sh, t);
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
