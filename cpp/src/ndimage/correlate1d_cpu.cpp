#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ndimage/correlate1d.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {
int weight_symmetry(std::span<const double> w) {
  const size_t n = w.size(), c = n / 2;
  if (!(n & 1)) return 0;
  auto all = [&](auto pred) {
    for (size_t i = 1; i <= c; ++i)
      if (!pred(w[c + i], w[c - i])) return false;
    return true;
  };
  constexpr double eps = 2.220446049250313e-16;  // scipy's DBL_EPSILON test
  if (all([](double a, double b) { return std::abs(a - b) <= eps; })) return 1;
  if (all([](double a, double b) { return std::abs(a + b) <= eps; })) return -1;
  return 0;
}

namespace {

// Byte range [lo, hi) a view touches.
std::pair<const char*, const char*> extent(const View& v) {
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < v.ndim; ++d) {
    int64_t span = (v.shape[d] - 1) * v.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  auto base = static_cast<const char*>(v.data);
  auto sz = int64_t(dtype_size(v.dtype));
  return {base + lo * sz, base + (hi + 1) * sz};
}

bool overlaps(const View& a, const View& b) {
  auto [alo, ahi] = extent(a);
  auto [blo, bhi] = extent(b);
  return alo < bhi && blo < ahi;
}

}  // namespace

void separable(const View& in, const View& out, std::span<const Pass1d> passes, StreamHandle stream) {
  const char* op = "separable";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (passes.empty()) throw ValueError("separable: no passes given");
  std::vector<Pass1d> ps(passes.begin(), passes.end());
  for (auto& p : ps) {
    p.axis = normalize_axis(p.axis, in.ndim, op);
    if (p.mean) {
      // a mean's weights are its count of ones, made only for windows the bit-identical schedules take
      p.size = p.size > 0 ? p.size : int64_t(p.weights.size());
      if (p.size < 1) throw ValueError("separable: incorrect filter size");
      check_origin(p.size, p.origin, op);
      if (long_mean(p.size, in.shape[p.axis])) p.weights.clear();
      else p.weights.assign(size_t(p.size), 1.0);
      continue;
    }
    if (p.weights.empty()) throw ValueError("separable: no filter weights given");
    check_origin(int64_t(p.weights.size()), p.origin, op);
  }
  if (in.size() == 0) return;
  if (in.device == Device::CUDA) {
    if (overlaps(in, out)) throw ValueError("separable: on CUDA, input and output must not overlap");
    NDIMG_ON_CUDA(op, separable_cuda(in, out, ps, stream));
    return;
  }
  const View mid = between_passes(out);
  for (size_t i = 0; i < ps.size(); ++i) pass1d_cpu(i == 0 ? in : mid, i + 1 == ps.size() ? out : mid, ps[i]);
}

void correlate1d(const View& in, const View& out, std::span<const double> w, int axis, Mode mode, double cval,
                 int origin, StreamHandle stream) {
  Pass1d p{axis, std::vector<double>(w.begin(), w.end()), mode, cval, origin, false};
  separable(in, out, std::span<const Pass1d>(&p, 1), stream);
}

void uniform_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval, int origin,
                      StreamHandle stream) {
  if (size < 1) throw ValueError("uniform_filter1d: incorrect filter size");
  Pass1d p{axis, {}, mode, cval, origin, true, size};
  separable(in, out, std::span<const Pass1d>(&p, 1), stream);
}

namespace {

// CPU schedule of one pass, in double as scipy computes, so results agree with it to the last bit in
// every dtype. Every line is first gathered, extended at both ends and converted to double, into a
// buffer; a group of lines is gathered completely before any of it is written, so in == out works. Along
// the last axis (or across runs of fewer than kW lines: trailing_run) a group is kRows lines, each kept as
// one run of positions ([line][position]); along another axis it is a bundle of up to kBundle neighbours
// along the run of the axes after it, laid out [position][line] so that the gather reads memory in order.
// The taps then run over blocks of kW neighbouring outputs (positions of a line, or lines of a bundle)
// held in registers as GCC vectors of doubles: lane for lane the same operations in the same order as
// scalar code (the x86 clones enable AVX2 but never FMA, so nothing is contracted).
constexpr int64_t kBundle = 64, kRows = 8;
// (the ABI note is moot: every function taking or returning V is inlined)
#pragma GCC diagnostic ignored "-Wpsabi"
using V = double __attribute__((vector_size(32)));
constexpr int kVL = int(sizeof(V) / sizeof(double)), kW = 16, kWV = kW / kVL;
static_assert(kW % kVL == 0 && kRows % kVL == 0);

#if defined(__GNUC__)
#define NDIMG_INLINE inline __attribute__((always_inline))
#else
#define NDIMG_INLINE inline
#endif

// ext(j, k) = p[j * tap_stride + k]: output k's tap j, lanes in unit stride (double or V lanes).
template <class T>
struct Lanes {
  const double* p;
  int64_t tap_stride;
  NDIMG_INLINE T operator()(int j, int k) const {
    T v;
    std::memcpy(&v, p + j * tap_stride + int64_t(k) * int64_t(sizeof(T) / sizeof(double)), sizeof v);
    return v;
  }
};

// What every line of a pass shares: the weights, and where each extended position reads.
struct PassPlan {
  int64_t n, taps, len;  // line length, taps, extended length n + taps - 1
  Reach r;
  std::vector<double> w;
  std::vector<double> wv_store;  // holds wv: w broadcast, at the first sizeof(V)-aligned address in it
  V* wv;
  std::vector<int64_t> src;  // extended position j reads input index src[j] (-1: cval)
  double fill;
  int sym;
  bool mean;
  PassPlan(int64_t n_, const Pass1d& p)
      : n(n_), taps(int64_t(p.weights.size())), len(n_ + taps - 1), r(filter_reach(taps, p.origin)),
        w(p.weights), wv_store((w.size() + 1) * kVL), src(size_t(len)), fill(p.cval), sym(weight_symmetry(p.weights)),
        mean(p.mean) {
    const auto a = reinterpret_cast<uintptr_t>(wv_store.data());
    wv = reinterpret_cast<V*>(a + (-a & (sizeof(V) - 1)));
    for (size_t j = 0; j < w.size(); ++j) wv[j] = V{} + w[j];
    for (int64_t j = 0; j < len; ++j) src[size_t(j)] = extend_index(j - r.left, n, p.mode);
  }
  PassPlan(const PassPlan&) = delete;  // wv points into wv_store
  // Correlation of `lanes` neighbouring outputs into res, output k's tap j at e[j * tap_stride + k]:
  // kW of them in registers, fewer (a tail) in res itself.
  NDIMG_INLINE void correlate(double* res, const double* e, int64_t tap_stride, int lanes) const {
    if (lanes == kW) {
      V acc[kWV];
      correlate_taps(acc, kWV, wv, int(taps), sym, Lanes<V>{e, tap_stride});
      std::memcpy(res, acc, sizeof acc);
    } else {
      correlate_taps(res, lanes, w.data(), int(taps), sym, Lanes<double>{e, tap_stride});
    }
  }
};

// scipy's running mean (uniform_filter1d) over `lanes` lanes of T: the sum of the first `taps` values,
// then per output the value entering the window added and the one leaving it subtracted, each sum
// divided by taps. ext(j, k) is lane k's extended position j; emit(i, k, value) takes the results.
template <class T, class Ext, class Emit>
NDIMG_INLINE void running_mean(T* acc, int lanes, int64_t i0, int64_t i1, int64_t taps, const Ext& ext,
                               const Emit& emit) {
  // outputs [i0, i1); acc carries the sums from output i0 - 1 (and is started here when i0 == 0)
  const double size = double(taps);
  int64_t i = i0;
  if (i0 == 0) {
    for (int k = 0; k < lanes; ++k) acc[k] = T{};
    for (int64_t j = 0; j < taps; ++j)
      for (int k = 0; k < lanes; ++k) acc[k] += ext(j, k);
    for (int k = 0; k < lanes; ++k) emit(0, k, acc[k] / size);
    i = 1;
  }
  for (; i < i1; ++i)
    for (int k = 0; k < lanes; ++k) {
      acc[k] += ext(i + taps - 1, k) - ext(i - 1, k);
      emit(i, k, acc[k] / size);
    }
}

// The only dtype-dependent steps, chosen once per pass at run time, so that the schedules below are
// compiled once (not per input x output dtype): reading `count` elements at src[k * stride] as doubles
// into dst[k * step], and writing `count` results to dst[k * stride] in dst's dtype (scipy's C casts).
using LoadFn = void (*)(const void* src, int64_t stride, int64_t count, double* dst, int64_t step);
using StoreFn = void (*)(const double* res, int64_t count, void* dst, int64_t stride);

#if defined(__x86_64__) && defined(__GNUC__)
#define NDIMG_X86_CLONES 1
bool have_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#define NDIMG_AVX2 __attribute__((target("avx2")))
#else
#define NDIMG_AVX2
#endif

template <class T>
NDIMG_INLINE void load_as_double(const void* src, int64_t stride, int64_t count, double* dst, int64_t step) {
  const T* a = static_cast<const T*>(src);
  if (stride == 1 && step == 1)
    for (int64_t k = 0; k < count; ++k) dst[k] = double(a[k]);
  else
    for (int64_t k = 0; k < count; ++k) dst[k * step] = double(a[k * stride]);
}
template <class T>
NDIMG_INLINE void store_from_double(const double* res, int64_t count, void* dst, int64_t stride) {
  T* o = static_cast<T*>(dst);
  if (stride == 1)
    for (int64_t k = 0; k < count; ++k) o[k] = cast_to<T>(res[k]);
  else
    for (int64_t k = 0; k < count; ++k) o[k * stride] = cast_to<T>(res[k]);
}

// Each compiled for the baseline ISA and, on x86, for AVX2 (chosen at run time, as the schedules are).
template <class T>
void load_base(const void* s, int64_t st, int64_t n, double* d, int64_t step) { load_as_double<T>(s, st, n, d, step); }
template <class T>
NDIMG_AVX2 void load_avx2(const void* s, int64_t st, int64_t n, double* d, int64_t step) {
  load_as_double<T>(s, st, n, d, step);
}
template <class T>
void store_base(const double* r, int64_t n, void* d, int64_t st) { store_from_double<T>(r, n, d, st); }
template <class T>
NDIMG_AVX2 void store_avx2(const double* r, int64_t n, void* d, int64_t st) { store_from_double<T>(r, n, d, st); }
template <class T>
LoadFn loader() {
#ifdef NDIMG_X86_CLONES
  if (have_avx2()) return &load_avx2<T>;
#endif
  return &load_base<T>;
}
template <class T>
StoreFn storer() {
#ifdef NDIMG_X86_CLONES
  if (have_avx2()) return &store_avx2<T>;
#endif
  return &store_base<T>;
}

// A view's element type erased: its bytes, element size and the load or store of its dtype.
struct Typed {
  const View& v;
  LoadFn load;
  StoreFn store;
  int64_t esize;
  explicit Typed(const View& v_)
      : v(v_), load(dispatch_dtype(v_.dtype, []<class T>() { return loader<T>(); })),
        store(dispatch_dtype(v_.dtype, []<class T>() { return storer<T>(); })),
        esize(int64_t(dtype_size(v_.dtype))) {}
  // the element `offset` elements from the start of line `line` along `axis`
  char* at(int axis, int64_t line, int64_t offset = 0) const {
    return static_cast<char*>(v.data) + (line_offset(v, axis, line) + offset) * esize;
  }
};

// A pass along the last axis, or across short runs (trailing_run): groups [g0, g1) of kRows lines.
struct Rows {
  Typed in, out;
  int axis;
  PassPlan pl;
  int64_t nlines;
  int64_t work() const { return (nlines + kRows - 1) / kRows; }
  int64_t grain() const { return std::max<int64_t>(1, 16384 / (pl.n * kRows)); }

  NDIMG_INLINE void run(int64_t g0, int64_t g1) const {
    const int64_t n = pl.n, len = pl.len, si = in.v.strides[axis], so = out.v.strides[axis];
    std::vector<double> ext(size_t(len * kRows)), res(size_t(n * kRows));
    // the running mean keeps the lines side by side ([position][line]), so that their sums advance
    // together in vectors; correlation keeps each line in one run ([line][position])
    const int64_t pos_step = pl.mean ? kRows : 1, line_step = pl.mean ? 1 : len;
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t line0 = g * kRows, lines = std::min(kRows, nlines - line0);
      for (int64_t k = 0; k < lines; ++k) {
        double* e = ext.data() + k * line_step;
        double* inside = e + pl.r.left * pos_step;
        in.load(in.at(axis, line0 + k), si, n, inside, pos_step);
        // the ends read the line's values already converted
        auto edge = [&](int64_t j) { return pl.src[size_t(j)] < 0 ? pl.fill : inside[pl.src[size_t(j)] * pos_step]; };
        for (int64_t j = 0; j < pl.r.left; ++j) e[j * pos_step] = edge(j);
        for (int64_t j = pl.r.left + n; j < len; ++j) e[j * pos_step] = edge(j);
      }
      if (pl.mean) {
        for (int64_t k = lines; k < kRows; ++k)  // lines past the end: zeros
          for (int64_t j = 0; j < len; ++j) ext[size_t(j * kRows + k)] = 0;
        const double* e = ext.data();
        double* r = res.data();
        V acc[kRows / kVL];
        running_mean(
            acc, int(kRows / kVL), 0, n, pl.taps, [&](int64_t j, int k) { return Lanes<V>{e, kRows}(int(j), k); },
            [&](int64_t i, int k, V v) {
              for (int m = 0; m < kVL; ++m) r[(k * kVL + m) * n + i] = v[m];
            });
      } else {
        for (int64_t k = 0; k < lines; ++k)
          for (int64_t i0 = 0; i0 < n; i0 += kW)
            pl.correlate(res.data() + k * n + i0, ext.data() + k * len + i0, 1, int(std::min<int64_t>(kW, n - i0)));
      }
      for (int64_t k = 0; k < lines; ++k)
        out.store(res.data() + k * n, n, out.at(axis, line0 + k), so);
    }
  }
};

// A pass along another axis than the last: bundles [b0, b1) of up to kBundle lines. A bundle's line is
// taken kChunk outputs at a time, through a window of extended positions [i0 - 1, i1 + taps - 1) (the
// one before i0 for the running mean) that stays in cache: the next chunk keeps the window's last taps
// positions and gathers the rest, which the outputs written so far cannot have reached (position j reads
// index j - left >= i0 + right). Positions past the end may read anywhere under the mode, so they are
// gathered before the first write, into `edge`.
constexpr int64_t kChunk = 128, kAhead = 8;

// Asks for the cache lines of `count` elements of `esize` bytes, `step` bytes apart, from c (rw: 1 to write them).
NDIMG_INLINE void prefetch_span(const char* c, int64_t count, int64_t step, int64_t esize, int rw) {
#if defined(__GNUC__)
  if (step == esize) {
    for (int64_t b = 0; b < count * step; b += 64)
      rw ? __builtin_prefetch(c + b, 1) : __builtin_prefetch(c + b, 0);
    rw ? __builtin_prefetch(c + count * step - 1, 1) : __builtin_prefetch(c + count * step - 1, 0);
  } else {
    for (int64_t k = 0; k < count; ++k) rw ? __builtin_prefetch(c + k * step, 1) : __builtin_prefetch(c + k * step, 0);
  }
#endif
}
struct Bundles {
  Typed in, out;
  int axis;
  PassPlan pl;
  int64_t nlines, run_len, B, per_run;  // run_len: trailing_run's lines, cut into per_run bundles of B
  Bundles(const View& in_, const View& out_, const Pass1d& p, int64_t run)
      : in(in_), out(out_), axis(p.axis), pl(in_.shape[p.axis], p), nlines(in_.size() / pl.n), run_len(run),
        B(std::min(run_len, kBundle)) {
    // wide bundles read more of each row at once (every row is on another page); narrower ones where
    // that leaves fewer than 4 bundles a thread, for balance
    while (B > kW && (nlines / run_len) * ((run_len + B - 1) / B) < 4 * int64_t(num_threads())) B /= 2;
    per_run = (run_len + B - 1) / B;
  }
  int64_t work() const { return (nlines / run_len) * per_run; }
  int64_t grain() const { return std::max<int64_t>(1, 16384 / (pl.n * B)); }

  NDIMG_INLINE void run(int64_t b0, int64_t b1) const {
    const int inner = in.v.ndim - 1;
    const int64_t n = pl.n, taps = pl.taps, end = pl.r.left + n, si = in.v.strides[axis], so = out.v.strides[axis];
    const int64_t sik = in.v.strides[inner], sok = out.v.strides[inner], ies = in.esize, oes = out.esize;
    std::vector<double> ext(size_t((kChunk + taps) * B)), edge(size_t((pl.len - end) * B));
    double res[kW], sums[kBundle];
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t k0 = (b % per_run) * B, nb = std::min(B, run_len - k0);
      const int64_t line = (b / per_run) * run_len + k0;
      const char* a = in.at(axis, line);
      char* o = out.at(axis, line);
      auto read = [&](int64_t j, double* e) {  // extended position j of the bundle's lines
        const int64_t kk = pl.src[size_t(j)];
        if (kk < 0) std::fill(e, e + nb, pl.fill);
        else in.load(a + kk * si * ies, sik, nb, e, 1);
      };
      for (int64_t j = end; j < pl.len; ++j) read(j, edge.data() + (j - end) * B);
      for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
        const int64_t i1 = std::min(n, i0 + kChunk);
        // window row r holds extended position i0 - 1 + r
        int64_t j0 = 0;
        if (i0 > 0) {
          std::copy(ext.begin() + kChunk * B, ext.begin() + (kChunk + taps) * B, ext.begin());
          j0 = i0 + taps - 1;
        }
        for (int64_t j = j0; j < i1 + taps - 1; ++j) {
          // the hardware prefetchers stop at page boundaries, and every row of a bundle is on another
          // page: fetch the input kAhead positions ahead, and the rows this chunk will write
          if (j + kAhead < end && pl.src[size_t(j + kAhead)] >= 0)
            prefetch_span(a + pl.src[size_t(j + kAhead)] * si * ies, nb, sik * ies, ies, 0);
          if (j >= taps - 1) prefetch_span(o + (j - taps + 1) * so * oes, nb, sok * oes, oes, 1);
          double* e = ext.data() + (j - i0 + 1) * B;
          if (j < end)
            read(j, e);
          else
            std::copy(edge.data() + (j - end) * B, edge.data() + (j - end) * B + nb, e);
        }
        // the lanes are the bundle's lines, kW at a time
        for (int64_t c0 = 0; c0 < nb; c0 += kW) {
          const int lanes = int(std::min<int64_t>(kW, nb - c0));
          const double* e = ext.data() + B + c0;  // + (j - i0) * B: position j (j >= i0 - 1)
          char* oc = o + c0 * sok * oes;
          if (pl.mean && lanes == kW) {
            V acc[kWV];
            std::memcpy(acc, sums + c0, sizeof acc);
            running_mean(
                acc, kWV, i0, i1, taps, [&](int64_t j, int k) { return Lanes<V>{e, B}(int(j - i0), k); },
                [&](int64_t i, int k, V v) {
                  std::memcpy(res + k * kVL, &v, sizeof v);
                  if (k == kWV - 1) out.store(res, kW, oc + i * so * oes, sok);
                });
            std::memcpy(sums + c0, acc, sizeof acc);
          } else if (pl.mean) {
            running_mean(
                sums + c0, lanes, i0, i1, taps, [&](int64_t j, int k) { return e[(j - i0) * B + k]; },
                [&](int64_t i, int k, double v) {
                  res[k] = v;
                  if (k == lanes - 1) out.store(res, lanes, oc + i * so * oes, sok);
                });
          } else {
            for (int64_t i = i0; i < i1; ++i) {
              pl.correlate(res, e + (i - i0) * B, B, lanes);
              out.store(res, lanes, oc + i * so * oes, sok);
            }
          }
        }
      }
    }
  }
};

// The chunk functions parallel_for runs: the schedule compiled for the baseline ISA and, on x86, for
// AVX2 (chosen at run time).
template <class Job>
void chunk_base(const Job& job, int64_t a, int64_t b) {
  job.run(a, b);
}
#ifdef NDIMG_X86_CLONES
template <class Job>
__attribute__((target("avx2"))) void chunk_avx2(const Job& job, int64_t a, int64_t b) {
  job.run(a, b);
}
#endif

template <class Job>
void launch(const Job& job) {
  void (*fn)(const Job&, int64_t, int64_t) = &chunk_base<Job>;
#ifdef NDIMG_X86_CLONES
  if (have_avx2()) fn = &chunk_avx2<Job>;
#endif
  parallel_for(job.work(), job.grain(), [&](int64_t a, int64_t b) { fn(job, a, b); });
}

// How many consecutive lines of a pass along `axis` lie at one stride from each other in both views: the
// axes after it merged from the last one while they are contiguous with each other (an RGB image's
// columns and channels, a volume's rows and columns).
int64_t trailing_run(const View& in, const View& out, int axis) {
  const int last = in.ndim - 1;
  int64_t run = in.shape[last];
  for (int d = last - 1; d > axis; --d) {
    if (in.strides[d] != in.strides[d + 1] * in.shape[d + 1] || out.strides[d] != out.strides[d + 1] * out.shape[d + 1])
      break;
    run *= in.shape[d];
  }
  return run;
}

// A mean over a long window (long_mean), line by line over the pool; each line is read whole before it
// is written, so in may be out.
void long_mean_cpu(const View& in, const View& out, const Pass1d& p) {
  const int axis = p.axis;
  const int64_t n = in.shape[axis], left = filter_reach(p.size, p.origin).left;
  const Typed ti(in), to(out);
  parallel_for(in.size() / n, std::max<int64_t>(1, 16384 / n), [&](int64_t l0, int64_t l1) {
    std::vector<double> x(static_cast<size_t>(n)), res(static_cast<size_t>(n));
    for (int64_t l = l0; l < l1; ++l) {
      ti.load(ti.at(axis, l), in.strides[axis], n, x.data(), 1);
      long_mean_line([&](int64_t k) { return x[size_t(k)]; }, n, p.mode, p.cval, left, p.size,
                     [&](int64_t i, double v) { res[size_t(i)] = v; });
      to.store(res.data(), n, to.at(axis, l), out.strides[axis]);
    }
  });
}

}  // namespace

void pass1d_cpu(const View& in, const View& out, const Pass1d& p) {
  if (p.mean && p.weights.empty()) {
    long_mean_cpu(in, out, p);
    return;
  }
  // lines along the last axis, or in runs too short to fill a block of kW lanes (the pass along an RGB
  // image's rows: runs of 3 channels), are taken a few at a time; the others in bundles along their run
  const int64_t run = p.axis == in.ndim - 1 ? 1 : trailing_run(in, out, p.axis);
  if (run < kW)
    launch(Rows{Typed(in), Typed(out), p.axis, PassPlan(in.shape[p.axis], p), in.size() / in.shape[p.axis]});
  else
    launch(Bundles(in, out, p, run));
}

}  // namespace ndimg::ndimage
