// CPU schedule of the colour conversions: blocks of pixels over the thread pool. Each block is loaded into a
// small contiguous buffer of the pixel float type (the only code that depends on the input dtype), converted
// pixel by pixel, and stored through the output's strides.
#include <algorithm>
#include <atomic>

#include "color/color.hpp"
#include "core/index.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::color {
namespace {

constexpr int64_t kBlock = 256;    // pixels per buffer
constexpr int64_t kGrain = 16384;  // pixels per task of the pool

// Pixels [begin, begin + n) of `in` (the first `nin` channels) into x, scaled to T; `pre`: offsets subtracted in
// the input dtype first.
template <class T>
void load(const View& in, const View& px, int nin, int64_t begin, int64_t n, T* x, const Params& p, bool pre) {
  const int64_t cs = in.strides[in.ndim - 1];
  dispatch_dtype(in.dtype, [&]<class S>() {
    const S* src = in.ptr<S>();
    T* dst = x;
    for_range(px, begin, begin + n, [&](int64_t o) {
      for (int c = 0; c < nin; ++c) {
        S v = src[o + c * cs];
        if (pre) {
          if constexpr (!std::is_same_v<S, bool>) v = minus(v, p.v[c]);
        }
        dst[c] = scale<T>(v);
      }
      dst += nin;
    });
  });
}

template <class O>
void store(const View& out, const View& px, int k, int64_t begin, int64_t n, const O* y) {
  O* dst = out.ptr<O>();
  const int64_t cs = out.strides[out.ndim - 1];
  for_range(px, begin, begin + n, [&](int64_t o) {
    for (int c = 0; c < k; ++c) dst[o + c * cs] = y[c];
    y += k;
  });
}

}  // namespace

int64_t convert_cpu(const View& in, const View& out, Conversion c, const Params& p) {
  const View ipx = pixels(in), opx = pixels(out);
  const int64_t n = ipx.size();
  const int k = int(out.shape[out.ndim - 1]);
  std::atomic<int64_t> clipped{0};
  dispatch_conversion(c, [&]<class Op>() {
    dispatch_float(in.dtype, [&]<class T>() {
      using O = typename Op::template out_t<T>;
      parallel_for(n, kGrain, [&](int64_t b, int64_t e) {
        T x[kBlock * kMaxIn];
        O y[kBlock * kMaxOut];
        int64_t count = 0;
        for (int64_t s = b; s < e; s += kBlock) {
          const int64_t m = std::min(kBlock, e - s);
          load(in, ipx, Op::in, s, m, x, p, c == Conversion::OffsetMatrix);
          for (int64_t i = 0; i < m; ++i) count += Op::run(x + i * Op::in, y + i * k, p);
          store(out, opx, k, s, m, y);
        }
        if (count) clipped += count;
      });
    });
  });
  return clipped;
}

}  // namespace ndimg::color
