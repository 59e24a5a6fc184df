#include <cmath>
#include <vector>

#include "core/output.hpp"
#include "ndimage/correlate1d.hpp"
#include "ndimage/rank.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {

void rank_filter(const View& in, const View& out, std::span<const int64_t> offsets, int64_t rank, Mode mode,
                 double cval, StreamHandle stream) {
  const char* op = "rank_filter";
  require_same_shape(in, out, op);
  const Taps t = make_taps(in, out, offsets, op);
  if (rank < 0 || rank >= t.count) throw ValueError("rank_filter: rank not within filter footprint size");
  if (out.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, rank_filter_cuda(in, out, t, rank, mode, cval, stream));
    return;
  }
  // CPU schedule: lines over the pool; each thread gathers the taps into its own buffer.
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using C = compute_t<TI>;
    const TI* src = in.ptr<TI>();
    with_kernel_output_cpu<TI>(out, [&]<class TO>(const View& ov) {
      Geometry g = t.geom;
      for (int d = 0; d < g.ndim; ++d) g.out_strides[d] = ov.strides[d];
      TO* dst = ov.ptr<TO>();
      cpu_for_each_output(g, 32768 / t.count, [&](const int64_t* c, int64_t o) {
        thread_local std::vector<C> buf;
        buf.resize(size_t(t.count));
        C* v = buf.data();
        for_each_tap<C>(g, c, src, t.offsets.data(), t.linear.data(), t.count, mode, C(cast_to<TI>(cval)),
                        [&](int64_t k, C x) { v[k] = x; });
        dst[o] = cast_to<TO>(rank_value(v, t.count, rank));
      });
    });
  });
}

namespace {

// Lines of a strided axis handled together by the CPU's min/max filter: 64 neighbours read a quarter of
// a page per row (fewer TLB misses than one cache line per row).
constexpr int64_t kLineBlock = 64;
// Windows up to this size fold their values directly (van Herk's three passes cost more).
constexpr int64_t kDirectWindow = 4;

// van Herk / Gil-Werman over the extended line h[0..len), for B lines at once (element j of line q at
// h[j * B + q]): block-wise (blocks of w) prefix extremes g and suffix extremes (h, in place); window i of
// line q is h[i] combined with g[i + w - 1], written to b[i * so + q * lso]. Either way a window's result
// is its earliest extreme (ties keep the first), as a left-to-right fold gives.
template <bool Minimum, int64_t B, class C, class TO>
void van_herk(C* g, C* h, int64_t len, int64_t w, int64_t n, TO* b, int64_t so, int64_t lso) {
  if (w <= kDirectWindow) {  // each window folded left to right: the same earliest extreme, fewer passes
    for (int64_t i = 0; i < n; ++i) {
      C r[B];
      for (int64_t q = 0; q < B; ++q) r[q] = h[i * B + q];
      for (int64_t k = 1; k < w; ++k)
        for (int64_t q = 0; q < B; ++q) r[q] = extreme<Minimum>(r[q], h[(i + k) * B + q]);
      for (int64_t q = 0; q < B; ++q) b[i * so + q * lso] = cast_to<TO>(r[q]);
    }
    return;
  }
  for (int64_t b0 = 0; b0 < len; b0 += w) {
    const int64_t b1 = std::min(len, b0 + w);
    for (int64_t q = 0; q < B; ++q) g[b0 * B + q] = h[b0 * B + q];
    for (int64_t j = b0 + 1; j < b1; ++j)
      for (int64_t q = 0; q < B; ++q) g[j * B + q] = extreme<Minimum>(g[(j - 1) * B + q], h[j * B + q]);
    for (int64_t j = b1 - 2; j >= b0; --j)
      for (int64_t q = 0; q < B; ++q) h[j * B + q] = extreme<Minimum>(h[j * B + q], h[(j + 1) * B + q]);
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t q = 0; q < B; ++q)
      b[i * so + q * lso] = cast_to<TO>(extreme<Minimum>(h[i * B + q], g[(i + w - 1) * B + q]));
}

}  // namespace

void min_max_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval, int origin,
                      bool minimum, StreamHandle stream) {
  const char* op = minimum ? "minimum_filter1d" : "maximum_filter1d";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (size < 1) throw ValueError(std::string(op) + ": incorrect filter size");
  axis = normalize_axis(axis, in.ndim, op);
  check_origin(size, origin, op);
  if (in.size() == 0) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, min_max_filter1d_cuda(in, out, size, axis, mode, cval, origin, minimum, stream));
    return;
  }
  // CPU schedule, per line: van Herk / Gil-Werman (three comparisons per element whatever the size):
  // block-wise prefix (g) and suffix (h) extremes of the extended line; a window [i, i+size) is h[i]
  // combined with g[i+size-1], over the clipped window (clip_reach), so memory stays O(n). A line holding
  // NaN takes scipy's deque instead (nan_reach), whose comparisons decide what NaN does.
  const int64_t n = in.shape[axis], nlines = in.size() / n;
  const Reach r = clip_reach(filter_reach(size, origin), n), rn = nan_reach(size, origin, n);
  const int64_t w = r.left + r.right + 1, len = n + w - 1;
  const int64_t wn = rn.left + rn.right + 1, cap = std::min(wn, n + wn - 1);
  const bool cval_nan = mode == Mode::Constant && std::isnan(cval);  // NaN even in integer data
  dispatch_dtype(in.dtype, [&]<class TI>() {
    with_kernel_output_cpu<TI>(out, [&]<class TO>(const View& ov) {
      using C = compute_t<TI>;
      constexpr bool may_nan = std::is_floating_point_v<TI>;
      const TI* src = in.ptr<TI>();
      TO* dst = ov.ptr<TO>();
      const int64_t si = in.strides[axis], so = ov.strides[axis];
      struct Buffers {
        std::vector<C> g, h, ring;
        std::vector<int64_t> death;
      };
      // one line from a to b (output stride so)
      auto line = [&](const TI* a, TO* b, Buffers& buf) {
        buf.g.resize(size_t(len));
        buf.h.resize(size_t(len));
        C* h = buf.h.data();
        auto ext = [&](int64_t j, const Reach& q) {
          const int64_t k = extend_index(j - q.left, n, mode);
          return k < 0 ? C(cval) : C(a[k * si]);
        };
        // the extended line: boundary-extended at the ends only, the inside copied
        bool nan = false;
        for (int64_t j = 0; j < r.left; ++j) h[j] = ext(j, r);
        if (si == 1) for (int64_t j = 0; j < n; ++j) h[r.left + j] = C(a[j]);
        else for (int64_t j = 0; j < n; ++j) h[r.left + j] = C(a[j * si]);
        for (int64_t j = r.left + n; j < len; ++j) h[j] = ext(j, r);
        if constexpr (may_nan)
          for (int64_t j = 0; j < len; ++j) nan |= !(h[j] == h[j]);
        if (nan || cval_nan) {
          buf.ring.resize(size_t(cap));
          buf.death.resize(size_t(cap));
          sliding_extreme<C>(minimum, n, wn, [&](int64_t j) { return ext(j, rn); }, buf.ring.data(), buf.death.data(),
                             cap, [&](int64_t i, C v) { b[i * so] = cast_to<TO>(v); });
          return;
        }
        if (minimum) van_herk<true, 1>(buf.g.data(), h, len, w, n, b, so, 0);
        else van_herk<false, 1>(buf.g.data(), h, len, w, n, b, so, 0);
      };
      const int last = in.ndim - 1;
      const int64_t nl = in.shape[last];
      // (blocks whose buffers would pass 8 MiB a thread, for very long lines, go line by line)
      if (axis == last || in.strides[last] != 1 || nl < kLineBlock ||
          len * kLineBlock * int64_t(sizeof(C)) > (int64_t(4) << 20)) {
        parallel_for(nlines, std::max<int64_t>(1, 16384 / n), [&](int64_t l0, int64_t l1) {
          Buffers buf;
          for (int64_t l = l0; l < l1; ++l) line(src + line_offset(in, axis, l), dst + line_offset(ov, axis, l), buf);
        });
        return;
      }
      // Lines along a strided axis, kLineBlock neighbours along the contiguous last axis at a time: every
      // step reads and combines contiguous runs of kLineBlock values (whole cache lines, vectorized).
      constexpr int64_t B = kLineBlock;
      const int64_t per_row = (nl + B - 1) / B, blocks = nlines / nl * per_row, lso = ov.strides[last];
      parallel_for(blocks, std::max<int64_t>(1, 16384 / (n * B)), [&](int64_t t0, int64_t t1) {
        Buffers buf;
        std::vector<C> G(size_t(len * B)), H(size_t(len * B));
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t p0 = t % per_row * B, nb = std::min(B, nl - p0), l = t / per_row * nl + p0;
          const TI* a = src + line_offset(in, axis, l);
          TO* b = dst + line_offset(ov, axis, l);
          bool nan = cval_nan;
          if (nb == B) {
            for (int64_t j = 0; j < len; ++j) {
              const int64_t k = j >= r.left && j < r.left + n ? j - r.left : extend_index(j - r.left, n, mode);
              C* hj = H.data() + j * B;
              if (k < 0) {
                for (int64_t q = 0; q < B; ++q) hj[q] = C(cval);
              } else {
                const TI* row = a + k * si;
                for (int64_t q = 0; q < B; ++q) hj[q] = C(row[q]);
              }
            }
            if constexpr (may_nan)
              for (int64_t j = 0; j < len * B; ++j) nan |= !(H[j] == H[j]);
          }
          if (nb < B || nan) {  // the line by line path (scipy's deque for NaN)
            for (int64_t q = 0; q < nb; ++q) line(a + q, b + q * lso, buf);
            continue;
          }
          if (minimum) van_herk<true, B>(G.data(), H.data(), len, w, n, b, so, lso);
          else van_herk<false, B>(G.data(), H.data(), len, w, n, b, so, lso);
        }
      });
    });
  });
}

}  // namespace ndimg::ndimage
