// CPU schedule of the colour conversions: blocks of pixels over the thread pool. Each block is loaded into a
// small contiguous buffer of the pixel float type (the only code that depends on the input dtype), converted
// pixel by pixel, and stored through the output's strides. 8-bit input to a conversion that starts with one
// function of each channel (sRGB's gamma, the stains' log) reads that function's 256 values from a table.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "color/color.hpp"
#include "core/index.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::color {
namespace {

constexpr int64_t kBlock = 256;    // pixels per buffer
constexpr int64_t kGrain = 16384;  // pixels per task of the pool

// Pixels [begin, begin + n) of `in` (the first `nin` channels) into x, scaled to T (Scale false: cast); `pre`:
// offsets subtracted in the input dtype first.
template <class T, bool Scale = true>
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
        if constexpr (Scale) dst[c] = scale<T>(v);
        else dst[c] = T(v);
      }
      dst += nin;
    });
  });
}

// The table of Op::first over the 256 values of 8-bit input (bool: its bytes' truth), indexed by the raw byte.
template <class Op, class T, class F>
bool byte_table(DType t, F* lut) {
  auto fill = [&]<class S>() {
    for (int b = 0; b < 256; ++b) {
      const uint8_t raw = uint8_t(b);
      S v;
      if constexpr (std::is_same_v<S, bool>) v = raw != 0;
      else std::memcpy(&v, &raw, 1);
      lut[b] = Op::first(scale<T>(v));
    }
    return true;
  };
  if (t == DType::U8) return fill.template operator()<uint8_t>();
  if (t == DType::I8) return fill.template operator()<int8_t>();
  if (t == DType::Bool) return fill.template operator()<bool>();
  return false;
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
      // the per-pixel pass over blocks: load(begin, count, buffer) fills the buffer, convert(buffer, y) one pixel
      auto pass = [&](auto&& load_block, auto* buffer, int per_pixel, auto&& convert) {
        parallel_for(n, kGrain, [&](int64_t b, int64_t e) {
          std::remove_pointer_t<decltype(buffer)> x[kBlock * kMaxIn];
          O y[kBlock * kMaxOut];
          int64_t count = 0;
          for (int64_t s = b; s < e; s += kBlock) {
            const int64_t m = std::min(kBlock, e - s);
            load_block(s, m, x);
            for (int64_t i = 0; i < m; ++i) count += convert(x + i * per_pixel, y + i * k);
            store(out, opx, k, s, m, y);
          }
          if (count) clipped += count;
        });
      };
      if constexpr (Op::channel_first) {
        using F = decltype(Op::first(T()));
        F lut[256];
        if (byte_table<Op, T>(in.dtype, lut)) {
          const uint8_t* src = in.ptr<uint8_t>();
          const int64_t cs = in.strides[in.ndim - 1];
          pass([&](int64_t s, int64_t m, F* f) {
                 for_range(ipx, s, s + m, [&](int64_t o) {
                   for (int ch = 0; ch < 3; ++ch) f[ch] = lut[src[o + ch * cs]];
                   f += 3;
                 });
               },
               static_cast<F*>(nullptr), 3, [&](const F* f, O* y) { return Op::after(f, y, p); });
          return;
        }
      }
      pass([&](int64_t s, int64_t m, T* x) { load(in, ipx, Op::in, s, m, x, p, c == Conversion::OffsetMatrix); },
           static_cast<T*>(nullptr), Op::in, [&](const T* x, O* y) { return Op::run(x, y, p); });
    });
  });
  return clipped;
}

void difference_cpu(const View& lab1, const View& lab2, const View& out, Difference d, const DiffParams& p) {
  const View px1 = pixels(lab1), px2 = pixels(lab2);
  const Params none{};
  dispatch_difference(d, [&]<class Diff>() {
    dispatch_float(out.dtype, [&]<class O>() {
      O* dst = out.ptr<O>();
      parallel_for(px1.size(), kGrain, [&](int64_t b, int64_t e) {
        double x[kBlock * 3], y[kBlock * 3];
        for (int64_t s = b; s < e; s += kBlock) {
          const int64_t m = std::min(kBlock, e - s);
          load<double, false>(lab1, px1, 3, s, m, x, none, false);
          load<double, false>(lab2, px2, 3, s, m, y, none, false);
          for (int64_t i = 0; i < m; ++i) dst[s + i] = O(Diff::run(x + 3 * i, y + 3 * i, p));
        }
      });
    });
  });
}

}  // namespace ndimg::color
