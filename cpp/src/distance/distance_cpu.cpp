// CPU schedules of the distance transforms. EDT: the axis-0 pass sweeps rows (many columns side by side),
// the other passes gather tiles of adjacent lines into per-thread buffers; few long lines go in segments and
// bands. Chamfer: the lines of one wavefront level in parallel, or passes per axis for the cross and the
// cube without features. Brute force: elements in parallel.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/index.hpp"
#include "distance/distance.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::distance {
namespace {

// the pass along axis 0: forward, the steps back to the last zero; backward, the steps on to the next
// zero where strictly fewer (the first of equals is the upper one). Many columns: rows swept across a
// range of columns at a time; few (a 1-D input): each column in segments (sweep_segment), in parallel.
template <class T, class F>
void first_pass(const View& in, double s0, bool last, double* dist, F* feat) {
  const int64_t rows = in.shape[0], inner = in.size() / rows, step = in.strides[0];
  View sub = in;  // one row of the input
  sub.ndim = in.ndim - 1;
  for (int d = 0; d < sub.ndim; ++d) {
    sub.shape[d] = in.shape[d + 1];
    sub.strides[d] = in.strides[d + 1];
  }
  const T* src = in.ptr<T>();
  if (inner < 64 && rows >= 256) {
    const int64_t seg = segment_rows(rows), nseg = (rows + seg - 1) / seg;
    for (int64_t c = 0; c < inner; ++c) {
      const int64_t col = flat_offset(c, sub.ndim, sub.shape.data(), sub.strides.data());
      auto zero = [&](int64_t i) { return src[col + i * step] == T(0); };
      std::vector<int64_t> first(nseg), lastz(nseg);
      parallel_for(nseg, 1, [&](int64_t a, int64_t b) {
        for (int64_t g = a; g < b; ++g) segment_zeros(zero, g * seg, std::min(rows, (g + 1) * seg), first[g], lastz[g]);
      });
      parallel_for(nseg, 1, [&](int64_t a, int64_t b) {
        for (int64_t g = a; g < b; ++g) {
          int64_t up = -1, down = -1;
          for (int64_t h = g - 1; h >= 0 && up < 0; --h) up = lastz[h];
          for (int64_t h = g + 1; h < nseg && down < 0; ++h) down = first[h];
          sweep_segment(zero, g * seg, std::min(rows, (g + 1) * seg), up, down, inner, c, s0, last, dist, feat);
        }
      });
    }
    return;
  }
  parallel_for(inner, 256, [&](int64_t c0, int64_t c1) {
    for (int64_t i = 0; i < rows; ++i) {
      double* d = dist + i * inner;
      int64_t j = c0;
      for_range(sub, c0, c1, [&](int64_t o) {
        if (src[i * step + o] == T(0)) {
          d[j] = 0;
          if (feat) feat[i * inner + j] = F(i * inner + j);
        } else if (i == 0) {
          d[j] = kInf;
        } else {
          d[j] = d[j - inner] + 1;
          if (feat) feat[i * inner + j] = feat[(i - 1) * inner + j];
        }
        ++j;
      });
    }
    std::vector<double> next(c1 - c0, kInf);
    for (int64_t i = rows - 1; i >= 0; --i) {
      double* d = dist + i * inner;
      for (int64_t j = c0; j < c1; ++j) {
        double k = d[j];
        double& n = next[j - c0];
        if (k == 0) {
          n = 0;
        } else {
          n += 1;
          if (n < k) {
            k = n;
            if (feat) feat[i * inner + j] = F((i + int64_t(n)) * inner + j);
          }
        }
        d[j] = first_pass_value(k, s0, last);
      }
    }
  });
}

// One line of a later pass, gathered into `f` (and its features into `fe`); results written in place.
template <class F>
struct BufferLine {
  const double* f;
  const F* fe;
  int64_t* sites;
  double* out;
  F* fout;
  int64_t stride;
  double value(int64_t q) const { return f[q]; }
  int64_t pos(int64_t k) const { return sites[k]; }
  double val(int64_t k) const { return f[sites[k]]; }
  void push(int64_t k, int64_t q, double) { sites[k] = q; }
  void move(int64_t to, int64_t from) { sites[to] = sites[from]; }
  void write(int64_t p, double d, int64_t k) {
    out[p * stride] = d;
    if (fout) fout[p * stride] = fe[sites[k]];
  }
};

// Few long lines (fewer than the threads): each line in bands, in parallel, as the CUDA schedule's warps
// run it: the bands' envelopes, their merge, then each band's positions.
template <class F>
void banded_lines(const Lines& l, double spacing, bool last, double* dist, F* feat) {
  const int bands = int(std::min<int64_t>(l.len / 256, 4 * num_threads()));
  std::vector<double> f(l.len);
  std::vector<F> fe(feat ? l.len : 0);
  std::vector<int64_t> sites(l.len), count(bands);
  for (int64_t i = 0; i < l.count; ++i) {
    const int64_t base = line_start(i, l.len, l.inner);
    for (int64_t p = 0; p < l.len; ++p) f[p] = dist[base + p * l.inner];
    if (feat)
      for (int64_t p = 0; p < l.len; ++p) fe[p] = feat[base + p * l.inner];
    BufferLine<F> line{f.data(), feat ? fe.data() : nullptr, sites.data(), dist + base, feat ? feat + base : nullptr,
                       l.inner};
    parallel_for(bands, 1, [&](int64_t a, int64_t b) {
      for (int64_t k = a; k < b; ++k) {
        const int64_t b0 = band_start(int(k), bands, l.len);
        BufferLine<F> own = line;
        count[k] = build_envelope(own, b0, band_start(int(k) + 1, bands, l.len), b0, spacing);
      }
    });
    const int64_t n = merge_envelopes(line, bands, l.len, [&](int b) { return count[b]; }, spacing);
    if (n == 0) continue;
    parallel_for(bands, 1, [&](int64_t a, int64_t b) {
      for (int64_t k = a; k < b; ++k) {
        BufferLine<F> own = line;
        query_envelope(own, n, band_start(int(k), bands, l.len), band_start(int(k) + 1, bands, l.len), spacing, last);
      }
    });
  }
}

template <class F>
void line_pass(const View& in, int axis, double spacing, bool last, double* dist, F* feat) {
  const Lines l = lines_along(in, axis);
  if (l.count < num_threads() && l.len >= 512) return banded_lines(l, spacing, last, dist, feat);
  if (l.inner == 1) {  // contiguous lines, in place: no gather
    parallel_for(l.count, std::max<int64_t>(1, (1 << 14) / l.len), [&](int64_t a, int64_t b) {
      std::unique_ptr<int32_t[]> sites(new int32_t[l.len]);
      std::unique_ptr<double[]> vals(new double[l.len]);
      std::unique_ptr<F[]> feats(new F[feat ? l.len : 0]);
      for (int64_t i = a; i < b; ++i) {
        InPlaceLine<F> line{dist, feat, i * l.len, 1, 1, 0, sites.get(), vals.get(), feats.get()};
        envelope_line(line, l.len, spacing, last);
      }
    });
    return;
  }
  const int64_t width = std::min<int64_t>(l.inner, 16);  // adjacent lines per tile: whole cache lines
  const int64_t per_outer = (l.inner + width - 1) / width, tiles = l.count / l.inner * per_outer;
  parallel_for(tiles, std::max<int64_t>(1, (1 << 14) / (l.len * width)), [&](int64_t t0, int64_t t1) {
    // not zero-filled: every entry is written before it is read
    std::unique_ptr<double[]> f(new double[width * l.len]);
    std::unique_ptr<F[]> fe(new F[feat ? width * l.len : 0]);
    std::unique_ptr<int64_t[]> sites(new int64_t[l.len]);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t c0 = t % per_outer * width, n = std::min(width, l.inner - c0);
      const int64_t base = t / per_outer * l.len * l.inner + c0;
      for (int64_t p = 0; p < l.len; ++p) {
        const double* row = dist + base + p * l.inner;
        for (int64_t w = 0; w < n; ++w) f[w * l.len + p] = row[w];
        if (feat)
          for (int64_t w = 0; w < n; ++w) fe[w * l.len + p] = feat[base + p * l.inner + w];
      }
      for (int64_t w = 0; w < n; ++w) {
        BufferLine<F> line{f.get() + w * l.len, feat ? fe.get() + w * l.len : nullptr, sites.get(), dist + base + w,
                           feat ? feat + base + w : nullptr, l.inner};
        envelope_line(line, l.len, spacing, last);
      }
    }
  });
}

// Lines of the last axis grouped by wavefront level over the outer axes (weights 2^(m-1-d) for outer axis
// d of m): every offset of the structure's first half reaching another line goes to a lower level.
std::vector<std::vector<int64_t>> wavefront(const View& in) {
  const int m = in.ndim - 1;
  int64_t levels = 1, lines = 1;
  for (int d = 0; d < m; ++d) {
    levels += (int64_t(1) << (m - 1 - d)) * (in.shape[d] - 1);
    lines *= in.shape[d];
  }
  std::vector<std::vector<int64_t>> out(levels);
  for (int64_t i = 0; i < lines; ++i) {
    int64_t rem = i, lv = 0;
    for (int d = m - 1; d >= 0; --d) {
      lv += (int64_t(1) << (m - 1 - d)) * (rem % in.shape[d]);
      rem /= in.shape[d];
    }
    out[lv].push_back(i);
  }
  return out;
}

}  // namespace

template <class F>
void edt_cpu(const View& in, const double* sampling, double* dist, F* feat) {
  dispatch_dtype(in.dtype, [&]<class T>() {
    first_pass<T, F>(in, sampling ? sampling[0] : 1.0, in.ndim == 1, dist, feat);
  });
  for (int d = 1; d < in.ndim; ++d) line_pass<F>(in, d, sampling ? sampling[d] : 1.0, d == in.ndim - 1, dist, feat);
}

// The cross's and the cube's sweeps as exact taxicab and chessboard distances (dist: 0 on zeros, kFar
// elsewhere), a pass per axis, all lines in parallel (where the sweeps' 2-D wavefront is one row at a time).
// Taxicab: in place, rows of the outer axes swept across many lines at once; chessboard: tiles of adjacent
// lines gathered for Meijster's envelope.
void separable_chamfer(const View& in, int kind, int32_t* dist) {
  for (int axis = 0; axis < in.ndim; ++axis) {
    const Lines l = lines_along(in, axis);
    const bool last = axis == in.ndim - 1;  // its lines are contiguous
    auto finish = [&](int32_t* line) {     // no zero element at all: scipy's -1
      if (last)
        for (int64_t p = 0; p < l.len; ++p) line[p] = line[p] >= kFar ? -1 : line[p];
    };
    // along the first axis the values are 0 or kFar: the chessboard's pass is the taxicab's
    const int k = axis == 0 ? 1 : kind;
    if (k == 1 && last) {
      parallel_for(l.count, std::max<int64_t>(1, (1 << 14) / l.len), [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i) {
          taxicab_line(dist + i * l.len, l.len);
          finish(dist + i * l.len);
        }
      });
      continue;
    }
    if (k == 1) {
      const int64_t width = std::min<int64_t>(l.inner, 1024), per_outer = (l.inner + width - 1) / width;
      parallel_for(l.count / l.inner * per_outer, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t c0 = t % per_outer * width, w_n = std::min(width, l.inner - c0);
          int32_t* base = dist + t / per_outer * l.len * l.inner + c0;
          for (int64_t p = 1; p < l.len; ++p) {
            int32_t* row = base + p * l.inner;
            for (int64_t w = 0; w < w_n; ++w) row[w] = std::min(row[w], row[w - l.inner] + 1);
          }
          for (int64_t p = l.len - 2; p >= 0; --p) {
            int32_t* row = base + p * l.inner;
            for (int64_t w = 0; w < w_n; ++w) row[w] = std::min(row[w], row[w + l.inner] + 1);
          }
        }
      });
      continue;
    }
    const int64_t width = std::min<int64_t>(l.inner, 16);
    const int64_t per_outer = (l.inner + width - 1) / width, tiles = l.count / l.inner * per_outer;
    parallel_for(tiles, std::max<int64_t>(1, (1 << 14) / (l.len * width)), [&](int64_t t0, int64_t t1) {
      // not zero-filled: every entry is written before it is read
      std::unique_ptr<int32_t[]> buf(new int32_t[width * l.len]), out(new int32_t[l.len]);
      std::unique_ptr<int64_t[]> st(new int64_t[2 * l.len]);
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t c0 = t % per_outer * width, w_n = std::min(width, l.inner - c0);
        int32_t* base = dist + t / per_outer * l.len * l.inner + c0;
        if (last) {  // a contiguous line: no gather
          chessboard_line(base, l.len, st.get(), st.get() + l.len, out.get());
          std::copy(out.get(), out.get() + l.len, base);
          finish(base);
          continue;
        }
        for (int64_t p = 0; p < l.len; ++p)
          for (int64_t w = 0; w < w_n; ++w) buf[w * l.len + p] = base[p * l.inner + w];
        for (int64_t w = 0; w < w_n; ++w) {
          chessboard_line(buf.get() + w * l.len, l.len, st.get(), st.get() + l.len, out.get());
          for (int64_t p = 0; p < l.len; ++p) base[p * l.inner + w] = out[p];
        }
      }
    });
  }
}

// A long line among few (a 1-D input): its sweep in chunks in parallel, as the CUDA schedule's warp runs it:
// each chunk's own choices, the chunks' chain summaries, their running combination, each chunk's chain.
template <class F>
void chunked_chamfer_line(const Chamfer& g, int64_t line, bool backward, int32_t* dist, F* feat) {
  const int64_t len = g.shape[g.ndim - 1], chunks = std::min<int64_t>(len >> 12, 4 * num_threads());
  parallel_for(chunks, 1, [&](int64_t a, int64_t b) {
    ChamferLine l;
    chamfer_setup(g, line, backward, l);
    for (int64_t c = a; c < b; ++c)
      chamfer_own(g, l, line, backward, band_start(int(c), int(chunks), len), band_start(int(c) + 1, int(chunks), len),
                  dist, feat);
  });
  if (!g.chain) return;
  std::vector<ChainKey> carry(chunks);
  parallel_for(chunks, 1, [&](int64_t a, int64_t b) {
    for (int64_t c = a; c < b; ++c)
      carry[c] = chain_summary(g, line, backward, band_start(int(c), int(chunks), len),
                               band_start(int(c) + 1, int(chunks), len), dist);
  });
  ChainKey run{kNoSource, -1};
  for (int64_t c = 0; c < chunks; ++c) {  // exclusive: each chunk starts from the chunks before it
    const ChainKey own = carry[c];
    carry[c] = run;
    run = later_min(run, own);
  }
  parallel_for(chunks, 1, [&](int64_t a, int64_t b) {
    for (int64_t c = a; c < b; ++c)
      chamfer_chain(g, line, backward, band_start(int(c), int(chunks), len), band_start(int(c) + 1, int(chunks), len),
                    carry[c], dist, feat);
  });
}

template <class F>
void chamfer_cpu(const View& in, const Chamfer& g, int32_t* dist, F* feat) {
  const int64_t n = in.size();
  const bool separable = g.separable && !feat;
  const int32_t far = separable ? kFar : -1;
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
      int64_t i = a;
      if (in.c_contiguous() && !feat) {
        for (; i < b; ++i) dist[i] = src[i] == T(0) ? 0 : far;
        return;
      }
      for_range(in, a, b, [&](int64_t o) {
        dist[i] = src[o] == T(0) ? 0 : far;
        if (feat) feat[i] = F(i);
        ++i;
      });
    });
  });
  if (separable) return separable_chamfer(in, g.separable, dist);
  const auto levels = wavefront(in);
  const int64_t len = in.shape[in.ndim - 1];
  for (bool backward : {false, true}) {
    for (size_t s = 0; s < levels.size(); ++s) {
      const auto& lv = levels[backward ? levels.size() - 1 - s : s];
      if (int64_t(lv.size()) >= num_threads() || len < (1 << 14)) {
        parallel_for(int64_t(lv.size()), 1, [&](int64_t a, int64_t b) {
          for (int64_t i = a; i < b; ++i) chamfer_line(g, lv[i], backward, dist, feat);
        });
        continue;
      }
      for (int64_t line : lv) chunked_chamfer_line(g, line, backward, dist, feat);
    }
  }
}

template <class F>
void brute_force_cpu(const View& in, const int64_t* border, int64_t nb, Metric metric, const double* sampling,
                     const View& dist, F* feat) {
  const int64_t n = in.size();
  int64_t cstride[kMaxDim];
  cstride[in.ndim - 1] = 1;
  for (int d = in.ndim - 1; d > 0; --d) cstride[d - 1] = cstride[d] * in.shape[d];
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    parallel_for(n, 64, [&](int64_t a, int64_t b) {
      int64_t i = a;
      for_range(in, a, b, [&](int64_t o) {
        int64_t coords[kMaxDim], rem = i, f = i;
        for (int d = in.ndim - 1; d >= 0; --d) {
          coords[d] = rem % in.shape[d];
          rem /= in.shape[d];
        }
        const bool fg = src[o] != T(0);
        if (metric == Metric::euclidean) {
          double v = 0;
          if (fg) nearest_border(coords, in.ndim, border, nb, metric, sampling, cstride, v, f);
          dist.ptr<double>()[i] = v;
        } else {
          uint32_t v = 0;
          if (fg) nearest_border(coords, in.ndim, border, nb, metric, sampling, cstride, v, f);
          dist.ptr<uint32_t>()[i] = v;
        }
        if (feat) feat[i] = F(f);
        ++i;
      });
    });
  });
}

void unravel_cpu(const View& feat, const View& indices) {
  const int64_t n = feat.size();
  int32_t* out = indices.ptr<int32_t>();
  dispatch_dtype(feat.dtype, [&]<class F>() {
    if constexpr (std::is_same_v<F, int32_t> || std::is_same_v<F, int64_t>) {
      const F* f = feat.ptr<F>();
      parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i) {
          int64_t rem = f[i];  // read before the first plane (which may be `feat`) is written
          for (int d = feat.ndim - 1; d >= 0; --d) {
            out[d * n + i] = int32_t(rem % feat.shape[d]);
            rem /= feat.shape[d];
          }
        }
      });
    }
  });
}

template void edt_cpu<int32_t>(const View&, const double*, double*, int32_t*);
template void edt_cpu<int64_t>(const View&, const double*, double*, int64_t*);
template void chamfer_cpu<int32_t>(const View&, const Chamfer&, int32_t*, int32_t*);
template void chamfer_cpu<int64_t>(const View&, const Chamfer&, int32_t*, int64_t*);
template void brute_force_cpu<int32_t>(const View&, const int64_t*, int64_t, Metric, const double*, const View&,
                                       int32_t*);
template void brute_force_cpu<int64_t>(const View&, const int64_t*, int64_t, Metric, const double*, const View&,
                                       int64_t*);

}  // namespace ndimg::distance
