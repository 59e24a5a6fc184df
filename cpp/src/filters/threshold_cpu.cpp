#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "filters/threshold.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::threshold {
namespace {

// Calls f(offset) for the C-order flat indices [begin, end) of `v`, walking the offset incrementally.
template <class F>
void for_range(const View& v, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  if (v.ndim == 0) { f(int64_t(0)); return; }
  const int last = v.ndim - 1;
  int64_t idx[kMaxDim];
  int64_t off = 0, rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % v.shape[d];
    rem /= v.shape[d];
    off += idx[d] * v.strides[d];
  }
  const int64_t s = v.strides[last];
  for (int64_t i = begin; i < end;) {
    const int64_t run = std::min(end - i, v.shape[last] - idx[last]);
    for (int64_t r = 0; r < run; ++r) f(off + r * s);
    i += run;
    idx[last] += run;
    off += run * s;
    for (int d = last; d > 0 && idx[d] == v.shape[d]; --d) {
      off += v.strides[d - 1] - idx[d] * v.strides[d];
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

// How many parts (at most one per thread, each at least min_part long) to split n items into. The thread
// count is read here, once: callers size their per-part buffers from this value and never read
// num_threads() again, since another thread may change it at any moment.
int64_t parts_for(int64_t n, int64_t min_part = 1 << 15) {
  return std::max<int64_t>(1, std::min<int64_t>(num_threads(), n / std::max<int64_t>(min_part, 1)));
}
// Parts of a reduction whose merge depends on the order (floating-point sums): fixed by n alone, so that
// the result is the same bits at every thread count.
int64_t fixed_parts(int64_t n) { return std::max<int64_t>(1, n / (1 << 15)); }

// Splits [0, n) into `parts` ranges and calls fn(part, begin, end) on the pool.
template <class F>
void for_parts(int64_t n, int64_t parts, F&& fn) {
  parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) fn(p, n * p / parts, n * (p + 1) / parts);
  });
}

void require_counts(const View& counts, const char* op) {
  if (counts.dtype != DType::I64 || counts.ndim != 1 || (counts.shape[0] > 1 && counts.strides[0] != 1))
    throw ValueError(std::string(op) + ": counts must be a contiguous 1-D int64 array");
}

// A reduction over the elements of `in`: add(acc, offset) into one accumulator per part (each starting
// from `identity`), then merge(total, part) in part order.
template <class Acc, class Add, class Merge>
Acc reduce_cpu(const View& in, const Acc& identity, Add&& add, Merge&& merge) {
  const int64_t parts = fixed_parts(in.size());
  std::vector<Acc> part(parts, identity);
  for_parts(in.size(), parts, [&](int64_t p, int64_t a, int64_t b) {
    Acc acc = identity;
    for_range(in, a, b, [&](int64_t o) { add(acc, o); });
    part[p] = acc;
  });
  Acc total = identity;
  for (int64_t p = 0; p < parts; ++p) merge(total, part[p]);
  return total;
}

// Adds to `counts` the bin bin_of(offset) of every element of `in` (a negative bin is not counted), in
// per-part histograms summed at the end where they are small next to the image.
template <class BinOf>
void histogram_cpu(const View& in, const View& counts, BinOf&& bin_of) {
  const int64_t n = in.size(), nbins = counts.shape[0];
  const int64_t parts = nbins * 8 <= n ? parts_for(n) : 1;
  std::vector<int64_t> local(parts * nbins, 0);
  for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
    int64_t* h = local.data() + p * nbins;
    for_range(in, a, b, [&](int64_t o) {
      const int64_t i = bin_of(o);
      if (i >= 0) ++h[i];
    });
  });
  int64_t* c = counts.ptr<int64_t>();
  parallel_for(nbins, 4096, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t p = 0; p < parts; ++p) c[b] += local[p * nbins + b];
  });
}

template <class I>
I find_root(I* parent, I i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}
template <class I>
void unite(I* parent, I a, I b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a == b) return;
  if (a < b) parent[b] = a;
  else parent[a] = b;
}

// Union-find over the C-order mask m (0: background, 1: low, 2: high): slabs along axis 0 are labelled in
// parallel, their seams joined serially, then every pixel learns whether its component reaches `high`.
template <class I>
void hysteresis_components(const View& in, const std::vector<uint8_t>& m, std::vector<uint8_t>& keep) {
  const int64_t n = in.size(), rows = in.shape[0], row = n / rows;
  std::vector<I> parent(n);
  I* par = parent.data();
  int64_t cstride[kMaxDim];
  cstride[in.ndim - 1] = 1;
  for (int d = in.ndim - 2; d >= 0; --d) cstride[d] = cstride[d + 1] * in.shape[d + 1];
  const int64_t slabs = parts_for(rows, (1 << 15) / row);
  parallel_for(slabs, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t begin = rows * s / slabs * row, end = rows * (s + 1) / slabs * row;
      int64_t idx[kMaxDim];
      int64_t rem = begin;
      for (int d = in.ndim - 1; d >= 0; --d) { idx[d] = rem % in.shape[d]; rem /= in.shape[d]; }
      for (int64_t i = begin; i < end; ++i) {
        if (m[i]) {
          par[i] = I(i);
          for (int d = 0; d < in.ndim; ++d) {
            const int64_t j = i - cstride[d];
            if (idx[d] > 0 && j >= begin && m[j]) unite<I>(par, I(i), I(j));
          }
        }
        for (int d = in.ndim - 1; d >= 0; --d) {
          if (++idx[d] < in.shape[d]) break;
          idx[d] = 0;
        }
      }
    }
  });
  for (int64_t s = 1; s < slabs; ++s) {
    const int64_t begin = rows * s / slabs * row;
    for (int64_t i = begin; i < begin + row; ++i)
      if (m[i] && m[i - row]) unite<I>(par, I(i), I(i - row));
  }
  // Flatten (concurrent readers see either an old ancestor or the root: both lead to the root).
  std::vector<uint8_t> reaches(n, 0);
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) {
      if (!m[i]) continue;
      I r = std::atomic_ref<I>(par[i]).load(std::memory_order_relaxed);
      for (I p; (p = std::atomic_ref<I>(par[r]).load(std::memory_order_relaxed)) != r;) r = p;
      std::atomic_ref<I>(par[i]).store(r, std::memory_order_relaxed);
      if (m[i] == 2) std::atomic_ref<uint8_t>(reaches[r]).store(1, std::memory_order_relaxed);
    }
  });
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) keep[i] = m[i] && reaches[par[i]];
  });
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Public entries: validation and engine routing.
// ---------------------------------------------------------------------------------------------------

ImageStats image_stats(const View& in, StreamHandle stream) {
  if (in.size() == 0) throw ValueError("image_stats: empty image");
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA("image_stats", return image_stats_cuda(in, stream));
  }
  return image_stats_cpu(in);
}

void histogram_integer(const View& in, int64_t lo, const View& counts, StreamHandle stream) {
  const char* op = "histogram_integer";
  require_counts(counts, op);
  require_same_device(in, counts, op);
  if (!is_integer(in.dtype) && in.dtype != DType::Bool) throw TypeError("histogram_integer: integer image expected");
  if (in.size() == 0 || counts.shape[0] == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, histogram_integer_cuda(in, lo, counts, stream));
    return;
  }
  histogram_integer_cpu(in, lo, counts);
}

void histogram_uniform(const View& in, std::span<const double> edges, const View& counts, StreamHandle stream) {
  const char* op = "histogram_uniform";
  require_counts(counts, op);
  require_same_device(in, counts, op);
  if (edges.size() < 2 || int64_t(edges.size()) != counts.shape[0] + 1)
    throw ValueError("histogram_uniform: need nbins + 1 edges for nbins counts");
  if (in.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, histogram_uniform_cuda(in, edges, counts, stream));
    return;
  }
  histogram_uniform_cpu(in, edges, counts);
}

ClassSums class_sums(const View& in, double shift, double t, StreamHandle stream) {
  if (!is_float(in.dtype)) throw TypeError("class_sums: float image expected");
  if (in.size() == 0) return {};
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA("class_sums", return class_sums_cuda(in, shift, t, stream));
  }
  return class_sums_cpu(in, shift, t);
}

double min_gap(const View& in, double shift, StreamHandle stream) {
  if (!is_float(in.dtype)) throw TypeError("min_gap: float image expected");
  if (in.size() < 2) return INFINITY;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA("min_gap", return min_gap_cuda(in, shift, stream));
  }
  return min_gap_cpu(in, shift);
}

void hysteresis(const View& in, double low, double high, const View& out, StreamHandle stream) {
  const char* op = "hysteresis";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype != DType::Bool) throw TypeError("hysteresis: output must be bool");
  if (in.size() == 0) return;
  if (in.ndim == 0) throw ValueError("hysteresis: 0-d input");
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, hysteresis_cuda(in, low, high, out, stream));
    return;
  }
  hysteresis_cpu(in, low, high, out);
}

void local_threshold(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind, double k,
                     double r, StreamHandle stream) {
  const char* op = "local_threshold";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (!is_float(out.dtype)) throw TypeError("local_threshold: output must be float32 or float64");
  if (int64_t(window.size()) != in.ndim) throw ValueError("local_threshold: one window size per axis expected");
  for (int64_t w : window)
    if (w < 1 || w % 2 == 0) throw ValueError("local_threshold: window sizes must be odd and positive");
  if (in.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, local_threshold_cuda(in, out, window, kind, k, r, stream));
    return;
  }
  local_threshold_cpu(in, out, window, kind, k, r);
}

std::vector<int64_t> multiotsu_indices(std::span<const float> prob, int thresh_count) {
  const int64_t nbins = int64_t(prob.size());
  if (thresh_count < 1 || nbins < thresh_count + 1) throw ValueError("multiotsu: too few bins for the classes");
  // zeroth (P) and first (S) moments; S[0] = prob[0] as in the reference formulation
  std::vector<float> P(nbins), S(nbins);
  P[0] = prob[0];
  S[0] = prob[0];
  for (int64_t i = 1; i < nbins; ++i) {
    P[i] = P[i - 1] + prob[i];
    S[i] = S[i - 1] + float(i) * prob[i];
  }
  // between-class variance of the bins [i, j]
  auto var = [&](int64_t i, int64_t j) -> float {
    if (i == 0) {
      if (j == 0 || !(P[j] > 0)) return 0.f;
      return (S[j] * S[j]) / P[j];
    }
    const float p = P[j] - P[i - 1];
    if (!(p > 0)) return 0.f;
    const float s = S[j] - S[i - 1];
    return (s * s) / p;
  };
  const int k = thresh_count;
  std::vector<int64_t> cur(k), best(k, 0);
  for (int i = 0; i < k; ++i) cur[i] = i;
  float sigma_max = 0;
  while (true) {
    float sigma = var(0, cur[0]) + var(cur[k - 1] + 1, nbins - 1);
    for (int i = 0; i + 1 < k; ++i) sigma += var(cur[i] + 1, cur[i + 1]);
    if (sigma > sigma_max) {
      sigma_max = sigma;
      best = cur;
    }
    // next combination of k increasing indices in [0, nbins - 2], lexicographic
    int i = k - 1;
    while (i >= 0 && cur[i] == nbins - 1 - k + i) --i;
    if (i < 0) break;
    ++cur[i];
    for (int j = i + 1; j < k; ++j) cur[j] = cur[j - 1] + 1;
  }
  return best;
}

// ---------------------------------------------------------------------------------------------------
// CPU schedules: one partial result per thread over a contiguous range of C-order indices.
// ---------------------------------------------------------------------------------------------------

ImageStats image_stats_cpu(const View& in) {
  return dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    return stats_result(reduce_cpu(
        in, stats_identity(), [&](StatsAcc& acc, int64_t o) { stats_add(acc, src[o]); }, stats_merge));
  });
}

void histogram_integer_cpu(const View& in, int64_t lo, const View& counts) {
  const int64_t nbins = counts.shape[0];
  dispatch_dtype(in.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      throw TypeError("histogram_integer: integer image expected");
    } else {
      const T* src = in.ptr<T>();
      histogram_cpu(in, counts, [&](int64_t o) { return integer_bin(src[o], lo, nbins); });
    }
  });
}

void histogram_uniform_cpu(const View& in, std::span<const double> edges, const View& counts) {
  const int64_t nbins = counts.shape[0];
  dispatch_dtype(in.dtype, [&]<class T>() {
    using B = bin_t<T>;
    std::vector<B> e(edges.begin(), edges.end());
    const B first = e.front(), last = e.back();
    const T* src = in.ptr<T>();
    histogram_cpu(in, counts, [&](int64_t o) {
      return uniform_bin<B>(static_cast<B>(src[o]), first, last, nbins, e.data());
    });
  });
}

ClassSums class_sums_cpu(const View& in, double shift, double t) {
  return dispatch_dtype(in.dtype, [&]<class T>() -> ClassSums {
    if constexpr (!std::is_floating_point_v<T>) {
      throw TypeError("class_sums: float image expected");
    } else {
      const T* src = in.ptr<T>();
      return reduce_cpu(
          in, ClassSums{}, [&](ClassSums& acc, int64_t o) { class_sums_add<T>(acc, src[o], T(shift), T(t)); },
          class_sums_merge);
    }
  });
}

// Each thread sorts its part; the parts are then merged pairwise (in parallel per level) and the gaps read.
double min_gap_cpu(const View& in, double shift) {
  return dispatch_dtype(in.dtype, [&]<class T>() -> double {
    if constexpr (!std::is_floating_point_v<T>) {
      throw TypeError("min_gap: float image expected");
    } else {
      const int64_t n = in.size();
      std::vector<T> y(n);
      const T* src = in.ptr<T>();
      const int64_t parts = parts_for(n);
      for_parts(n, parts, [&](int64_t, int64_t a, int64_t b) {
        int64_t i = a;
        for_range(in, a, b, [&](int64_t o) {
          const T v = src[o];
          y[i++] = v - v == T(0) ? T(v - T(shift)) : T(INFINITY);
        });
        std::sort(y.begin() + a, y.begin() + b);
      });
      for (int64_t width = 1; width < parts; width *= 2) {
        parallel_for((parts + 2 * width - 1) / (2 * width), 1, [&](int64_t g0, int64_t g1) {
          for (int64_t g = g0; g < g1; ++g) {
            const int64_t p0 = g * 2 * width, p1 = std::min(p0 + width, parts), p2 = std::min(p0 + 2 * width, parts);
            std::inplace_merge(y.begin() + n * p0 / parts, y.begin() + n * p1 / parts, y.begin() + n * p2 / parts);
          }
        });
      }
      const int64_t gparts = parts_for(n - 1);
      std::vector<double> part(gparts, INFINITY);
      for_parts(n - 1, gparts, [&](int64_t p, int64_t a, int64_t b) {
        double g = INFINITY;
        for (int64_t i = a; i < b; ++i) g = std::min(g, sorted_gap(y[i], y[i + 1]));
        part[p] = g;
      });
      return *std::min_element(part.begin(), part.end());
    }
  });
}

void hysteresis_cpu(const View& in, double low, double high, const View& out) {
  const int64_t n = in.size();
  std::vector<uint8_t> m(n), keep(n);
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
      int64_t i = a;
      for_range(in, a, b, [&](int64_t o) {
        m[i++] = above(src[o], high) ? 2 : above(src[o], low) ? 1 : 0;
      });
    });
  });
  if (n < INT32_MAX) hysteresis_components<int32_t>(in, m, keep);
  else hysteresis_components<int64_t>(in, m, keep);
  bool* dst = out.ptr<bool>();
  parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    int64_t i = a;
    for_range(out, a, b, [&](int64_t o) { dst[o] = keep[i++] != 0; });
  });
}

void local_threshold_cpu(const View& in, const View& out, std::span<const int64_t> window, LocalKind kind,
                         double k, double r) {
  const int64_t n = in.size();
  std::vector<double> sum(n), sq(n);
  dispatch_dtype(out.dtype, [&]<class F>() {
    if constexpr (std::is_floating_point_v<F>) {
      dispatch_dtype(in.dtype, [&]<class T>() {
        const T* src = in.ptr<T>();
        parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
          int64_t i = a;
          for_range(in, a, b, [&](int64_t o) {
            const F v = static_cast<F>(src[o]);
            sum[i] = double(v);
            sq[i++] = double(F(v * v));
          });
        });
      });
      // window sums along each axis of the C-order buffers, one line at a time
      int64_t inner = n;
      for (int d = 0; d < in.ndim; ++d) {
        const int64_t len = in.shape[d], w = window[d];
        inner /= len;
        if (w == 1) continue;
        parallel_for(n / len, std::max<int64_t>(1, 4096 / len), [&](int64_t l0, int64_t l1) {
          std::vector<double> ls(len), lq(len);
          for (int64_t l = l0; l < l1; ++l) {
            const int64_t base = (l / inner) * len * inner + l % inner;
            for (int64_t j = 0; j < len; ++j) { ls[j] = sum[base + j * inner]; lq[j] = sq[base + j * inner]; }
            for (int64_t j = 0; j < len; ++j) {
              sum[base + j * inner] = window_sum(j, len, w, [&](int64_t q) { return ls[q]; });
              sq[base + j * inner] = window_sum(j, len, w, [&](int64_t q) { return lq[q]; });
            }
          }
        });
      }
      int64_t area = 1;
      for (int64_t w : window) area *= w;
      const F size = F(area);
      F* dst = out.ptr<F>();
      parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
        int64_t i = a;
        for_range(out, a, b, [&](int64_t o) {
          dst[o] = local_value<F>(sum[i], sq[i], size, kind, F(k), F(r));
          ++i;
        });
      });
    }
  });
}

}  // namespace ndimg::threshold
