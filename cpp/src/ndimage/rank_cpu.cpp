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
      auto pick = [minimum](C a, C b) { return extreme(minimum, a, b); };
      const TI* src = in.ptr<TI>();
      TO* dst = ov.ptr<TO>();
      const int64_t si = in.strides[axis], so = ov.strides[axis];
      parallel_for(nlines, std::max<int64_t>(1, 16384 / n), [&](int64_t l0, int64_t l1) {
        std::vector<C> g(static_cast<size_t>(len)), h(static_cast<size_t>(len)), ring;
        std::vector<int64_t> death;
        for (int64_t l = l0; l < l1; ++l) {
          const TI* a = src + line_offset(in, axis, l);
          TO* b = dst + line_offset(ov, axis, l);
          auto ext = [&](int64_t j, const Reach& q) {
            const int64_t k = extend_index(j - q.left, n, mode);
            return k < 0 ? C(cval) : C(a[k * si]);
          };
          bool nan = false;
          for (int64_t j = 0; j < len; ++j) {
            h[j] = ext(j, r);
            if constexpr (may_nan) nan |= !(h[j] == h[j]);
          }
          if (nan || cval_nan) {
            ring.resize(size_t(cap));
            death.resize(size_t(cap));
            sliding_extreme<C>(minimum, n, wn, [&](int64_t j) { return ext(j, rn); }, ring.data(), death.data(),
                               cap, [&](int64_t i, C v) { b[i * so] = cast_to<TO>(v); });
            continue;
          }
          for (int64_t j = 0; j < len; ++j) g[j] = j % w ? pick(g[j - 1], h[j]) : h[j];
          for (int64_t j = len - 2; j >= 0; --j)
            if ((j + 1) % w) h[j] = pick(h[j], h[j + 1]);
          for (int64_t i = 0; i < n; ++i) b[i * so] = cast_to<TO>(pick(h[i], g[i + w - 1]));
        }
      });
    });
  });
}

}  // namespace ndimg::ndimage
