// minimum_filter1d / maximum_filter1d on the CUDA engine (the rank family's sliding extremes).
#include <algorithm>
#include <cmath>

#include "core/index.hpp"
#include "ndimage/correlate1d.hpp"
#include "ndimage/footprint.cuh"
#include "ndimage/rank.hpp"

namespace ndimg::ndimage {
namespace {

// One thread per output; a window holding NaN flags its line (nan_lines), which then takes scipy's deque.
template <class TI, class TO, class C>
__global__ void min_max1d_kernel(const TI* in, TO* out, Layout l, int axis, int64_t size, int64_t left, Mode mode,
                                 C cval, bool minimum, int64_t total, int* nan_lines) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = idx, oi = 0, oo = 0, pos = 0, line = 0, lines = 1;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      if (d == axis) {
        pos = c;
      } else {
        oi += c * l.in_strides[d];
        line += c * lines;
        lines *= l.shape[d];
      }
      oo += c * l.out_strides[d];
    }
    const int64_t n = l.shape[axis], s = l.in_strides[axis];
    C r = 0;
    bool nan = false;
    for (int64_t j = 0; j < size; ++j) {
      const int64_t k = extend_index(pos + j - left, n, mode);
      const C x = k < 0 ? cval : C(in[oi + k * s]);
      nan |= !(x == x);
      r = j == 0 ? x : extreme(minimum, r, x);
    }
    out[oo] = cast_to<TO>(r);
    if (nan) nan_lines[line] = 1;
  }
}

// Lines [l0, l0 + count) flagged in nan_lines, one thread each, again: scipy's deque (sliding_extreme),
// whose order of comparisons decides what NaN does; ring/death give each line `cap` entries.
template <class TI, class TO, class C>
__global__ void min_max1d_nan_lines(const TI* in, TO* out, Layout l, int axis, int64_t size, int64_t left,
                                    Mode mode, C cval, bool minimum, const int* nan_lines, int64_t l0,
                                    int64_t count, C* ring, int64_t* death, int64_t cap) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= count || !nan_lines[l0 + t]) return;
  const int64_t oi = line_in_offset(l, axis, l0 + t), oo = line_out_offset(l, axis, l0 + t);
  const int64_t n = l.shape[axis], s = l.in_strides[axis], so = l.out_strides[axis];
  auto ext = [&](int64_t j) {
    const int64_t k = extend_index(j - left, n, mode);
    return k < 0 ? cval : C(in[oi + k * s]);
  };
  sliding_extreme<C>(minimum, n, size, ext, ring + t * cap, death + t * cap, cap,
                     [&](int64_t i, C v) { out[oo + i * so] = cast_to<TO>(v); });
}

}  // namespace

void min_max_filter1d_cuda(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval,
                           int origin, bool minimum, StreamHandle stream) {
  const char* op = minimum ? "minimum_filter1d" : "maximum_filter1d";
  auto s = static_cast<cudaStream_t>(stream);
  cuda::DeviceGuard guard(in.device_id, op);
  const int64_t n = in.shape[axis], nlines = in.size() / n, total = in.size();
  const Reach r = clip_reach(filter_reach(size, origin), n), rn = nan_reach(size, origin, n);  // as the CPU engine
  const int64_t w = r.left + r.right + 1, wn = rn.left + rn.right + 1, cap = std::min(wn, n + wn - 1);
  dispatch_dtype(in.dtype, [&]<class TI>() {
    using C = compute_t<TI>;
    with_kernel_output<TI>(out, s, op, [&]<class TO>(const View& o) {
      const Layout l = make_layout(in, o);
      const bool may_nan = std::is_floating_point_v<TI> || (mode == Mode::Constant && std::isnan(cval));
      cuda::Scratch flags(may_nan ? size_t(nlines) * sizeof(int) : 0, s, op);
      if (may_nan) cuda::check(cudaMemsetAsync(flags.get<int>(), 0, size_t(nlines) * sizeof(int), s), op);
      min_max1d_kernel<TI, TO, C><<<cuda::blocks_for(total, 256), 256, 0, s>>>(
          in.ptr<TI>(), o.ptr<TO>(), l, axis, w, r.left, mode, C(cval), minimum, total, flags.get<int>());
      cuda::check_launch(op);
      if (may_nan) {
        // the flagged lines again, in batches whose deques fit in about 64 MiB
        const int64_t per_line = cap * int64_t(sizeof(C) + sizeof(int64_t));
        const int64_t lines = std::min(nlines, std::max<int64_t>(1, (int64_t(64) << 20) / per_line));
        cuda::Scratch ring(size_t(lines * cap) * sizeof(C), s, op), death(size_t(lines * cap) * sizeof(int64_t), s, op);
        for (int64_t l0 = 0; l0 < nlines; l0 += lines) {
          const int64_t count = std::min(lines, nlines - l0);
          min_max1d_nan_lines<TI, TO, C><<<cuda::blocks_for(count, 128), 128, 0, s>>>(
              in.ptr<TI>(), o.ptr<TO>(), l, axis, wn, rn.left, mode, C(cval), minimum, flags.get<int>(), l0, count,
              ring.get<C>(), death.get<int64_t>(), cap);
          cuda::check_launch(op);
        }
      }
    });
  });
}

}  // namespace ndimg::ndimage
