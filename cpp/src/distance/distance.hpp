// Distance transforms: the per-line math, written once for both engines, and the engine schedules'
// declarations. The entries are in distance.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/engine.hpp"
#include "ndimg/distance.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"

namespace ndimg::distance {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The squared distance from position p of a line to site q whose partial squared distance (over the axes
// passed before) is f: scipy's sum, in its order.
NDIMG_HD double site_distance(double f, int64_t q, int64_t p, double spacing) {
  const double t = mul_rn(double(q - p), spacing);
  return add_rn(f, mul_rn(t, t));
}

// Whether site v, between sites u and w of the envelope, is nowhere strictly nearest (Maurer's test, as
// scipy evaluates it: kept on a tie).
NDIMG_HD bool hidden(int64_t u, double fu, int64_t v, double fv, int64_t w, double fw, double spacing) {
  const double a = mul_rn(double(v - u), spacing), b = mul_rn(double(w - v), spacing), c = add_rn(a, b);
  return sub_rn(sub_rn(sub_rn(mul_rn(c, fv), mul_rn(b, fu)), mul_rn(a, fw)), mul_rn(mul_rn(a, b), c)) > 0.0;
}

// The envelope passes (axes after the first). A line `c` gives value(q), a position's partial squared
// distance (read only before any write), keeps envelope sites in numbered slots (push(k, q, value),
// pos(k), val(k), move(to, from)) and takes the results (write(p, d, k): squared distance d, or the
// distance on the last pass, from the site in slot k).

// The lower envelope of the sites among positions [q0, q1) (those with a finite value), in slots from
// `base` on: Maurer's stack as scipy runs it. Returns the number of sites kept.
template <class Line>
NDIMG_HD int64_t build_envelope(Line& c, int64_t q0, int64_t q1, int64_t base, double spacing) {
  int64_t m = base - 1;
  for (int64_t q = q0; q < q1; ++q) {
    const double fq = c.value(q);
    if (!(fq < kInf)) continue;
    while (m > base && hidden(c.pos(m - 1), c.val(m - 1), c.pos(m), c.val(m), q, fq, spacing)) --m;
    c.push(++m, q, fq);
  }
  return m - base + 1;
}

// The line's envelope from its bands' envelopes (band b's in slots from band_start(b), count(b) of them),
// into slots from 0: a site hidden within its band is hidden in the line, so the stack runs over the bands'
// survivors alone. In place: slot k is written after every slot below it has been read.
NDIMG_HD int64_t band_start(int b, int bands, int64_t len) { return b * len / bands; }
template <class Line, class Count>
NDIMG_HD int64_t merge_envelopes(Line& c, int bands, int64_t len, const Count& count, double spacing) {
  int64_t m = -1;
  for (int b = 0; b < bands; ++b) {
    const int64_t s0 = band_start(b, bands, len), n = count(b);
    for (int64_t r = s0; r < s0 + n; ++r) {
      const int64_t q = c.pos(r);
      const double fq = c.val(r);
      while (m >= 1 && hidden(c.pos(m - 1), c.val(m - 1), c.pos(m), c.val(m), q, fq, spacing)) --m;
      if (++m != r) c.move(m, r);
    }
  }
  return m + 1;
}

// Each position of [p0, p1) takes its nearest site of the envelope (n > 0 sites in slots from 0), the first
// of equals, walking on as scipy does. A band that starts inside the line finds its first site by
// bisection (the envelope is ordered: whether the next site is strictly nearer is true, then false).
template <class Line>
NDIMG_HD void query_envelope(Line& c, int64_t n, int64_t p0, int64_t p1, double spacing, bool last) {
  int64_t k = 0, hi = n - 1;
  while (p0 > 0 && k < hi) {
    const int64_t mid = k + (hi - k) / 2;
    if (site_distance(c.val(mid + 1), c.pos(mid + 1), p0, spacing) < site_distance(c.val(mid), c.pos(mid), p0, spacing))
      k = mid + 1;
    else
      hi = mid;
  }
  for (int64_t p = p0; p < p1; ++p) {
    double d1 = site_distance(c.val(k), c.pos(k), p, spacing);
    while (k < n - 1) {
      const double d2 = site_distance(c.val(k + 1), c.pos(k + 1), p, spacing);
      if (d1 <= d2) break;
      d1 = d2;
      ++k;
    }
    c.write(p, last ? std::sqrt(d1) : d1, k);
  }
}

// A line read and written in place (elements `inner` apart from line0), its envelope in scratch slots (slot
// k at k * stride + at: interleaved with other lines', or a run of its own): sites keep their values and
// features, which the query overwrites.
template <class F>
struct InPlaceLine {
  double* dist;
  F* feat;
  int64_t line0, inner, stride, at;
  int32_t* sites;  // positions: lines are shorter than 2^31
  double* vals;
  F* feats;
  NDIMG_HD int64_t slot(int64_t k) const { return k * stride + at; }
  NDIMG_HD double value(int64_t q) const { return dist[line0 + q * inner]; }
  NDIMG_HD int64_t pos(int64_t k) const { return sites[slot(k)]; }
  NDIMG_HD double val(int64_t k) const { return vals[slot(k)]; }
  NDIMG_HD void push(int64_t k, int64_t q, double fq) {
    sites[slot(k)] = int32_t(q);
    vals[slot(k)] = fq;
    if (feat) feats[slot(k)] = feat[line0 + q * inner];
  }
  NDIMG_HD void move(int64_t to, int64_t from) {
    sites[slot(to)] = sites[slot(from)];
    vals[slot(to)] = vals[slot(from)];
    if (feat) feats[slot(to)] = feats[slot(from)];
  }
  NDIMG_HD void write(int64_t p, double d, int64_t k) {
    dist[line0 + p * inner] = d;
    if (feat) feat[line0 + p * inner] = feats[slot(k)];
  }
};

// One whole line (a line without sites keeps +inf).
template <class Line>
NDIMG_HD void envelope_line(Line& c, int64_t len, double spacing, bool last) {
  const int64_t n = build_envelope(c, 0, len, 0, spacing);
  if (n > 0) query_envelope(c, n, 0, len, spacing, last);
}

// The pass along axis 0 is a 1-D distance to the nearest zero element: a count k of steps (0 on zeros,
// +inf without one), squared with the spacing (and its root on the last pass).
NDIMG_HD double first_pass_value(double k, double spacing, bool last) {
  if (!(k < kInf)) return kInf;
  const double t = mul_rn(k, spacing);
  const double d = mul_rn(t, t);
  return last ? std::sqrt(d) : d;
}

// The pass along axis 0 over a segment [r0, r1) of column c (elements i * inner + c): `zero(i)` tells the
// zero rows; up is the last zero row above the segment, down the first below it (-1: none). Forward, the
// steps back to the last zero; backward, the steps on to the next zero where strictly fewer (the upper
// one of equals). Segments of one column give the same results as the column in one piece.
template <class Zero, class F>
NDIMG_HD void sweep_segment(const Zero& zero, int64_t r0, int64_t r1, int64_t up, int64_t down, int64_t inner,
                            int64_t c, double s0, bool last, double* dist, F* feat) {
  int64_t prev = up;
  for (int64_t i = r0; i < r1; ++i) {
    const int64_t e = i * inner + c;
    if (zero(i)) prev = i;
    dist[e] = prev >= 0 ? double(i - prev) : kInf;
    if (feat && prev >= 0) feat[e] = F(prev * inner + c);
  }
  int64_t next = down;
  for (int64_t i = r1 - 1; i >= r0; --i) {
    const int64_t e = i * inner + c;
    double k = dist[e];
    if (k == 0) {
      next = i;
    } else if (next >= 0 && double(next - i) < k) {
      k = double(next - i);
      if (feat) feat[e] = F(next * inner + c);
    }
    dist[e] = first_pass_value(k, s0, last);
  }
}
// The first and last zero rows of segment [r0, r1) (-1: none).
template <class Zero>
NDIMG_HD void segment_zeros(const Zero& zero, int64_t r0, int64_t r1, int64_t& first, int64_t& last) {
  first = last = -1;
  for (int64_t i = r0; i < r1; ++i)
    if (zero(i)) {
      if (first < 0) first = i;
      last = i;
    }
}
// Segments of a column of `rows`: at least 64 rows, at most 1024 segments (a segment looks for its
// neighbours' zeros through the segments before and after it).
NDIMG_HD int64_t segment_rows(int64_t rows) { return rows / 1024 > 64 ? (rows + 1023) / 1024 : 64; }

// A C-contiguous array's geometry for the passes along `axis`: lines of `len` elements `inner` apart.
struct Lines {
  int64_t len, inner, count;
};
inline Lines lines_along(const View& v, int axis) {
  Lines l{v.shape[axis], 1, 0};
  for (int d = axis + 1; d < v.ndim; ++d) l.inner *= v.shape[d];
  l.count = v.size() / l.len;
  return l;
}
// Start of line i (lines numbered over the outer axes, then the inner ones, in C order).
NDIMG_HD int64_t line_start(int64_t i, int64_t len, int64_t inner) { return i / inner * len * inner + i % inner; }

// ---- chamfer (distance_transform_cdt) ----
// The first half of the structure as offsets: rel (noff x ndim relative coordinates) and delta (their
// C-order flat offsets), without the step back along the last axis (the half's last offset, when set),
// which is `chain`. Lines are those of the last axis.
struct Chamfer {
  int ndim = 0, noff = 0;
  bool chain = false;
  // the structure is the cross (1) or the cube (2): the sweeps give exact taxicab (chessboard) distances,
  // which separate into passes along each axis (used where no features are asked)
  int separable = 0;
  int64_t shape[kMaxDim];
  const int8_t* rel = nullptr;
  const int64_t* delta = nullptr;
};

// A line's offsets for one sweep (backward: mirrored). Up to kLineOffsets offsets, those whose line lies
// inside the array are found once per line and only the line's ends check the last axis; more (structures
// of 5 and more dimensions) check every axis each time.
constexpr int kLineOffsets = 64;
struct ChamferLine {
  int64_t c[kMaxDim];  // the element's coordinates
  int64_t delta[kLineOffsets];
  int step[kLineOffsets];  // the offset's step along the line
  int n = 0;
  int64_t sgn = 1;
};
NDIMG_HD bool chamfer_inside(const Chamfer& g, const ChamferLine& l, int k, int upto) {
  const int8_t* r = g.rel + k * g.ndim;
  for (int d = 0; d < upto; ++d) {
    const int64_t x = l.c[d] + l.sgn * r[d];
    if (x < 0 || x >= g.shape[d]) return false;
  }
  return true;
}
NDIMG_HD void chamfer_setup(const Chamfer& g, int64_t line, bool backward, ChamferLine& l) {
  const int last = g.ndim - 1;
  l.sgn = backward ? -1 : 1;
  for (int d = last - 1; d >= 0; --d) {
    l.c[d] = line % g.shape[d];
    line /= g.shape[d];
  }
  l.n = 0;
  for (int k = 0; g.noff <= kLineOffsets && k < g.noff; ++k) {
    if (!chamfer_inside(g, l, k, last)) continue;
    l.delta[l.n] = l.sgn * g.delta[k];
    l.step[l.n++] = int(l.sgn * g.rel[k * g.ndim + last]);
  }
}
// scipy's choice for element i (position j of its line) over the offsets into other lines, in order: the
// smallest neighbour + 1 (the first of equals; -1 neighbours and those outside ignored), its own value v
// (nonzero) kept unless strictly larger. Returns the value; src is the neighbour taken (-1: none).
NDIMG_HD int32_t chamfer_base(const Chamfer& g, ChamferLine& l, int64_t i, int64_t j, int32_t v,
                              const int32_t* dist, int64_t& src) {
  const int last = g.ndim - 1;
  const int64_t len = g.shape[last];
  const bool per_line = g.noff <= kLineOffsets, edge = j == 0 || j == len - 1;
  l.c[last] = j;
  int32_t best = v;
  src = -1;
  for (int k = 0; k < (per_line ? l.n : g.noff); ++k) {
    int64_t o;
    if (per_line) {
      if (edge && (j + l.step[k] < 0 || j + l.step[k] >= len)) continue;
      o = i + l.delta[k];
    } else {
      if (!chamfer_inside(g, l, k, g.ndim)) continue;
      o = i + l.sgn * g.delta[k];
    }
    const int32_t t = dist[o];
    if (t >= 0 && (best < 0 || t + 1 < best)) {
      best = t + 1;
      src = o;
    }
  }
  return best;
}

// A line's sweep in three steps that split into chunks of the sweep order (s: steps along the sweep). First
// each element takes its choice over the other lines (chamfer_base). Then, with the chain, an element j
// takes min over earlier k of value(k) + (s_j - s_k), where strictly smaller than its own: scipy's step by
// step propagation, unrolled (the latest source of equals wins, as each step keeps its own value on ties).
// A source is its own best, so no element reads a feature that another one rewrites.
struct ChainKey {
  int64_t key, s;  // value(k) - s_k (kNoSource: none), and s_k
};
constexpr int64_t kNoSource = INT64_MAX;
NDIMG_HD ChainKey later_min(ChainKey a, ChainKey b) { return b.key <= a.key ? b : a; }  // b is the later
NDIMG_HD int64_t sweep_element(const Chamfer& g, int64_t line, bool backward, int64_t s) {
  const int64_t len = g.shape[g.ndim - 1];
  return line * len + (backward ? len - 1 - s : s);
}
template <class F>
NDIMG_HD void chamfer_own(const Chamfer& g, ChamferLine& l, int64_t line, bool backward, int64_t s0, int64_t s1,
                          int32_t* dist, F* feat) {
  const int64_t len = g.shape[g.ndim - 1];
  for (int64_t s = s0; s < s1; ++s) {
    const int64_t i = sweep_element(g, line, backward, s);
    const int32_t v = dist[i];
    if (v == 0) continue;
    int64_t src;
    dist[i] = chamfer_base(g, l, i, backward ? len - 1 - s : s, v, dist, src);
    if (feat && src >= 0) feat[i] = feat[src];
  }
}
NDIMG_HD ChainKey chain_key(const int32_t* dist, int64_t i, int64_t s) {
  const int32_t v = dist[i];
  return {v >= 0 ? int64_t(v) - s : kNoSource, s};
}
// the chunk's sources from `run` (the chunks before it); returns the run over the chunk
template <class F>
NDIMG_HD ChainKey chamfer_chain(const Chamfer& g, int64_t line, bool backward, int64_t s0, int64_t s1, ChainKey run,
                                int32_t* dist, F* feat) {
  for (int64_t s = s0; s < s1; ++s) {
    const int64_t i = sweep_element(g, line, backward, s);
    run = later_min(run, chain_key(dist, i, s));
    if (run.s == s || run.key == kNoSource) continue;
    dist[i] = int32_t(run.key + s);
    if (feat) feat[i] = feat[sweep_element(g, line, backward, run.s)];
  }
  return run;
}
// the run over a chunk without writing (the summary the chunks after it start from)
NDIMG_HD ChainKey chain_summary(const Chamfer& g, int64_t line, bool backward, int64_t s0, int64_t s1,
                                const int32_t* dist) {
  ChainKey run{kNoSource, -1};
  for (int64_t s = s0; s < s1; ++s) run = later_min(run, chain_key(dist, sweep_element(g, line, backward, s), s));
  return run;
}
// One whole line of a sweep (the CPU's schedule).
template <class F>
NDIMG_HD void chamfer_line(const Chamfer& g, int64_t line, bool backward, int32_t* dist, F* feat) {
  ChamferLine l;
  chamfer_setup(g, line, backward, l);
  const int64_t len = g.shape[g.ndim - 1];
  chamfer_own(g, l, line, backward, 0, len, dist, feat);
  if (g.chain) chamfer_chain(g, line, backward, 0, len, ChainKey{kNoSource, -1}, dist, feat);
}

// Exact taxicab and chessboard distances, one axis at a time, over values where kFar stands for no zero yet.
constexpr int32_t kFar = 1 << 29;
// A line of `step`-strided elements (raw pointers serve where the line is contiguous).
template <class T>
struct Strided {
  T* p;
  int64_t step;
  NDIMG_HD T& operator[](int64_t i) const { return p[i * step]; }
};
// taxicab along a line, in place: each value at most its neighbour's + 1
template <class G>
NDIMG_HD void taxicab_line(G g, int64_t len) {
  for (int64_t p = 1; p < len; ++p) g[p] = g[p] < g[p - 1] + 1 ? g[p] : g[p - 1] + 1;
  for (int64_t p = len - 2; p >= 0; --p) g[p] = g[p] < g[p + 1] + 1 ? g[p] : g[p + 1] + 1;
}
// chessboard along a line: out[x] = min over i of max(|x - i|, g[i]). Small values (all at most 64): each
// position looks only as far as its own value (a farther i cannot do better); else Meijster, Roerdink and
// Hesselink's lower envelope (stacks s, t of len), in linear time.
template <class G, class S, class O>
NDIMG_HD void chessboard_line(G g, int64_t len, S s, S t, O out) {
  int32_t top = 0;
  for (int64_t p = 0; p < len; ++p) top = g[p] > top ? g[p] : top;
  if (top <= 64) {
    for (int64_t p = 0; p < len; ++p) {
      int32_t best = g[p];
      for (int32_t d = 1; d < best; ++d) {
        const int32_t lo = p >= d ? g[p - d] : kFar, hi = p + d < len ? g[p + d] : kFar;
        const int32_t near = lo < hi ? lo : hi, c = near > d ? near : d;
        best = c < best ? c : best;
      }
      out[p] = best;
    }
    return;
  }
  auto f = [&](int64_t x, int64_t i) {
    const int64_t d = x > i ? x - i : i - x;
    return d > g[i] ? d : int64_t(g[i]);
  };
  auto sep = [&](int64_t i, int64_t u) {  // the first x from which u is nearer than i
    const int64_t mid = (i + u) / 2;
    if (g[i] <= g[u]) return i + g[u] > mid ? i + g[u] : mid;
    return u - g[i] < mid ? u - g[i] : mid;
  };
  int64_t q = 0;
  s[0] = t[0] = 0;
  for (int64_t u = 1; u < len; ++u) {
    while (q >= 0 && f(t[q], s[q]) > f(t[q], u)) --q;
    if (q < 0) {
      q = 0;
      s[0] = u;
    } else {
      const int64_t w = 1 + sep(s[q], u);
      if (w < len) {
        s[++q] = u;
        t[q] = w;
      }
    }
  }
  for (int64_t u = len - 1; u >= 0; --u) {
    out[u] = int32_t(f(u, s[q]));
    if (u == t[q]) --q;
  }
}

// ---- brute force (distance_transform_bf) ----
// Element i's distance to the nearest border element (the last of equals) and that element's flat index.
template <class D>
NDIMG_HD void nearest_border(const int64_t* coords, int ndim, const int64_t* border, int64_t nb, Metric metric,
                             const double* sampling, const int64_t* cstride, D& dist, int64_t& feature) {
  feature = 0;
  if (metric == Metric::euclidean) {
    double best = std::numeric_limits<double>::max();
    for (int64_t b = nb - 1; b >= 0; --b) {
      const int64_t* e = border + b * ndim;
      double d = 0.0;
      for (int k = 0; k < ndim; ++k) {
        double t = double(coords[k] - e[k]);
        if (sampling) t = mul_rn(t, sampling[k]);
        d = add_rn(d, mul_rn(t, t));
      }
      if (d < best) {
        best = d;
        feature = b;
      }
    }
    dist = D(std::sqrt(best));
  } else {
    uint32_t best = UINT32_MAX;
    for (int64_t b = nb - 1; b >= 0; --b) {
      const int64_t* e = border + b * ndim;
      uint32_t d = 0;
      for (int k = 0; k < ndim; ++k) {
        int64_t t = coords[k] - e[k];
        if (t < 0) t = -t;
        if (metric == Metric::taxicab) d += uint32_t(t);
        else if (uint32_t(t) > d) d = uint32_t(t);
      }
      if (d < best) {
        best = d;
        feature = b;
      }
    }
    dist = D(best);
  }
  if (nb > 0) {  // the border element's flat index
    const int64_t* e = border + feature * ndim;
    int64_t f = 0;
    for (int k = 0; k < ndim; ++k) f += e[k] * cstride[k];
    feature = f;
  }
}

// ---- engine schedules (arguments validated by the entries) ----
// feat: nullptr or a C-contiguous int32/int64 view's data, of type F
template <class F>
void edt_cpu(const View& in, const double* sampling, double* dist, F* feat);
template <class F>
void chamfer_cpu(const View& in, const Chamfer& g, int32_t* dist, F* feat);
template <class F>
void brute_force_cpu(const View& in, const int64_t* border, int64_t nb, Metric metric, const double* sampling,
                     const View& dist, F* feat);
void unravel_cpu(const View& feat, const View& indices);
#ifdef NDIMG_WITH_CUDA
template <class F>
void edt_cuda(const View& in, const double* sampling, double* dist, F* feat, StreamHandle s);
template <class F>
void chamfer_cuda(const View& in, const Chamfer& g, int32_t* dist, F* feat, StreamHandle s);
template <class F>
void brute_force_cuda(const View& in, const int64_t* border, int64_t nb, Metric metric, const double* sampling,
                      const View& dist, F* feat, StreamHandle s);
void unravel_cuda(const View& feat, const View& indices, StreamHandle s);
#endif

}  // namespace ndimg::distance
