// CPU schedule of the scan. Every line is summed one element after the other, as np.cumsum sums it; what the
// threads share out are lines. Along the last merged axis (inner == 1) a task sums kChains lines at once in
// interleaved chains (one line is bound by the add's latency); across an outer axis (inner > 1) a task takes
// a segment of `inner` and runs the recurrence row[i] = row[i - 1] + in[i] down the axis over it, so the
// segment's elements vectorize and the previous row is still in L1. Input elements are widened into a
// per-task buffer (one loader per input dtype) and converted to R as they are summed.
#include <algorithm>
#include <vector>

#include "ndimg/parallel.hpp"
#include "scan/cumsum.hpp"

namespace ndimg::scan {
namespace {

constexpr int64_t kChunk = 512;  // elements of one line loaded at a time
constexpr int kChains = 4;

template <class W>
using Loader = void (*)(const void* base, int64_t offset, int64_t stride, int64_t n, W* buf);

// n input elements of type T from element `offset` of `base`, `stride` apart, widened into buf.
template <class T>
void load(const void* base, int64_t offset, int64_t stride, int64_t n, wide_t<T>* buf) {
  const T* p = static_cast<const T*>(base) + offset;
  if (stride == 1) {
    for (int64_t j = 0; j < n; ++j) buf[j] = p[j];
  } else {
    for (int64_t j = 0; j < n; ++j) buf[j] = p[j * stride];
  }
}

// Lines o0 .. o0 + K - 1 of an inner == 1 scan.
template <int K, bool Half, class W, class R>
void scan_lines(const View& in, R* out, const Lines& l, Loader<W> ld, int64_t o0, W* buf) {
  R acc[K];
  for (int64_t c0 = 0; c0 < l.n; c0 += kChunk) {
    const int64_t m = std::min(kChunk, l.n - c0);
    R* dst[K];
    for (int k = 0; k < K; ++k) {
      ld(in.data, (o0 + k) * l.in_s[0] + c0 * l.in_s[1], l.in_s[1], m, buf + k * kChunk);
      dst[k] = out + (o0 + k) * l.out_s[0] + c0 * l.out_s[1];
    }
    const int64_t s = l.out_s[1];
    int64_t j = 0;
    if (c0 == 0) {  // the first element is the input's, converted (0 + x would turn -0.0 into 0.0)
      for (int k = 0; k < K; ++k) dst[k][0] = acc[k] = element<R, Half>(buf[k * kChunk]);
      j = 1;
    }
    for (; j < m; ++j)
      for (int k = 0; k < K; ++k) {
        acc[k] = step<Half>(acc[k], element<R, Half>(buf[k * kChunk + j]));
        dst[k][j * s] = acc[k];
      }
  }
}

// Elements [j0, j0 + m) of `inner` in outer line o of an inner > 1 scan.
template <bool Half, class W, class R>
void scan_segment(const View& in, R* out, const Lines& l, Loader<W> ld, int64_t o, int64_t j0, int64_t m, W* buf) {
  const int64_t s = l.out_s[2];
  R* row = out + o * l.out_s[0] + j0 * s;
  for (int64_t i = 0; i < l.n; ++i, row += l.out_s[1]) {
    ld(in.data, o * l.in_s[0] + i * l.in_s[1] + j0 * l.in_s[2], l.in_s[2], m, buf);
    if (i == 0) {
      for (int64_t j = 0; j < m; ++j) row[j * s] = element<R, Half>(buf[j]);
      continue;
    }
    const R* prev = row - l.out_s[1];
    if (s == 1) {
      for (int64_t j = 0; j < m; ++j) row[j] = step<Half>(prev[j], element<R, Half>(buf[j]));
    } else {
      for (int64_t j = 0; j < m; ++j) row[j * s] = step<Half>(prev[j * s], element<R, Half>(buf[j]));
    }
  }
}

template <class W, class R, bool Half>
void scan(const View& in, const View& out, const Lines& l, Loader<W> ld) {
  R* dst = out.ptr<R>();
  if (l.inner == 1) {
    const int64_t groups = (l.outer + kChains - 1) / kChains;
    const int64_t grain = std::max<int64_t>(1, (1 << 14) / (kChains * l.n));
    parallel_for(groups, grain, [&](int64_t g0, int64_t g1) {
      std::vector<W> buf(kChains * kChunk);
      for (int64_t g = g0; g < g1; ++g) {
        const int64_t o0 = g * kChains;
        if (o0 + kChains <= l.outer) scan_lines<kChains, Half>(in, dst, l, ld, o0, buf.data());
        else for (int64_t o = o0; o < l.outer; ++o) scan_lines<1, Half>(in, dst, l, ld, o, buf.data());
      }
    });
    return;
  }
  // segments of `inner`: about two tasks per thread, each 64 to 4096 wide (long enough for the prefetchers,
  // short enough that the previous row is still in cache), whole vectors
  const int64_t per_outer = std::max<int64_t>(1, (2 * num_threads() + l.outer - 1) / l.outer);
  int64_t seg = std::clamp<int64_t>((l.inner + per_outer - 1) / per_outer, 64, 4096);
  seg = std::min((seg + 7) / 8 * 8, l.inner);
  const int64_t nseg = (l.inner + seg - 1) / seg;
  parallel_for(l.outer * nseg, 1, [&](int64_t t0, int64_t t1) {
    std::vector<W> buf(seg);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t o = t / nseg, j0 = t % nseg * seg;
      scan_segment<Half>(in, dst, l, ld, o, j0, std::min(seg, l.inner - j0), buf.data());
    }
  });
}

template <class W>
void scan_to_out(const View& in, const View& out, const Lines& l, Loader<W> ld) {
  dispatch_dtype(out.dtype, [&]<class R>() {
    if constexpr (std::is_same_v<R, bool>) throw TypeError("cumsum: bool output is not supported");
    else if constexpr (std::is_same_v<R, float>) l.half ? scan<W, R, true>(in, out, l, ld) : scan<W, R, false>(in, out, l, ld);
    else scan<W, R, false>(in, out, l, ld);
  });
}

}  // namespace

void cumsum_cpu(const View& in, const View& out, const Lines& l) {
  dispatch_dtype(in.dtype, [&]<class T>() { scan_to_out<wide_t<T>>(in, out, l, &load<T>); });
}

}  // namespace ndimg::scan
